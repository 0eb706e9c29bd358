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
