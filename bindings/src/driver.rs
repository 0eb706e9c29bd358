//! [`Driver`]: the driver protocol (`docs/driver-protocol.md`) for Python
//! and Kotlin. Every method forwards bytes to the core's client and hands
//! back its JSON; nothing is decoded or re-encoded here. A refusal crosses
//! as [`DriverError::Call`], whose `json` is the core's error object
//! (`type`, `category`, `message`, ...).

use acd_core::client::wire::{millis_from_signed, ErrorJson};
use acd_core::client::{CallId, Client, ClientError};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// A refusal of the core, as its error object's JSON text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, uniffi::Error)]
pub enum DriverError {
    /// The core refused the call; `json` is its error object.
    #[error("{json}")]
    Call {
        /// The error object: `type`, `category`, `message`, and `status`
        /// when an HTTP answer caused it.
        json: String,
    },
}

impl From<ClientError> for DriverError {
    fn from(error: ClientError) -> Self {
        DriverError::Call {
            json: ErrorJson(&error).to_json(),
        }
    }
}

/// One client of the core, driven through bytes.
#[derive(uniffi::Object)]
pub struct Driver {
    client: Mutex<Client>,
}

impl std::fmt::Debug for Driver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Driver").finish_non_exhaustive()
    }
}

impl Driver {
    fn client(&self) -> MutexGuard<'_, Client> {
        self.client.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[uniffi::export]
impl Driver {
    /// A client from the configuration's JSON; seeded from the operating
    /// system unless the configuration names a seed.
    #[uniffi::constructor]
    pub fn new(config_json: Vec<u8>) -> Result<Arc<Self>, DriverError> {
        let client = Client::from_config_json_os(&config_json)?;
        Ok(Arc::new(Self {
            client: Mutex::new(client),
        }))
    }

    /// Starts the call a call spec's JSON describes; returns its id.
    pub fn start(&self, spec_json: Vec<u8>) -> Result<u64, DriverError> {
        Ok(self.client().start_json(&spec_json)?.0)
    }

    /// The batch JSON: transmits to send now, events, next wake-up.
    pub fn poll(&self, now_ms: i64) -> Result<String, DriverError> {
        let now = millis_from_signed(now_ms)?;
        Ok(self.client().poll_json(now))
    }

    /// The answer to `call`'s request in flight.
    pub fn respond(
        &self,
        call: u64,
        status: u16,
        headers: String,
        body: Vec<u8>,
        now_ms: i64,
    ) -> Result<(), DriverError> {
        let now = millis_from_signed(now_ms)?;
        Ok(self
            .client()
            .respond(CallId(call), status, &headers, body, now)?)
    }

    /// `call`'s request in flight failed: `connect`, `timeout` or
    /// `interrupted`.
    pub fn fail(&self, call: u64, kind: String, now_ms: i64) -> Result<(), DriverError> {
        let now = millis_from_signed(now_ms)?;
        Ok(self.client().fail(CallId(call), &kind, now)?)
    }

    /// Drops `call`; nothing more is reported for it.
    pub fn cancel(&self, call: u64) {
        self.client().cancel(CallId(call));
    }

    /// The throttle's view of each limit, as a JSON array.
    pub fn limits(&self) -> String {
        self.client().limits_json()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_json(error: DriverError) -> serde_json::Value {
        let DriverError::Call { json } = error;
        serde_json::from_str(&json).unwrap()
    }

    #[test]
    fn bytes_in_json_out() {
        let driver =
            Driver::new(br#"{"api_key": "acd_live_demo_ada", "seed": 1}"#.to_vec()).unwrap();
        let call = driver
            .start(br#"{"type": "request", "operation": "getApiIndex"}"#.to_vec())
            .unwrap();
        assert_eq!(call, 1);
        let batch: serde_json::Value = serde_json::from_str(&driver.poll(5).unwrap()).unwrap();
        assert_eq!(batch["transmits"][0]["url"], "http://127.0.0.1:8080/api/v1");
        driver.fail(call, "connect".into(), 10).unwrap();
        let refused = error_json(driver.fail(call, "connect".into(), 10).unwrap_err());
        assert_eq!(refused["type"], "nothing_in_flight");
        assert_eq!(refused["category"], "invalid_request");
        let negative = error_json(driver.poll(-1).unwrap_err());
        assert_eq!(
            negative["message"],
            "the time is not valid: -1 is negative; pass Unix milliseconds (0 or more)"
        );
        // A public operation counts against the client IP's limit; the send
        // at 5 opened its window, and a refused connection gave the request back.
        assert_eq!(
            driver.limits(),
            r#"[{"name":"client_ip","requests":100,"window_seconds":60,"remaining":100,"reset_at":60005}]"#
        );
    }

    #[test]
    fn a_refused_config_crosses_as_its_error_object() {
        let error = error_json(Driver::new(br#"{"base_url": "ftp://x"}"#.to_vec()).unwrap_err());
        assert_eq!(error["type"], "invalid_config");
        assert_eq!(error["category"], "config");
        assert_eq!(error["field"], "base_url");
    }
}
