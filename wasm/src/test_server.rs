//! The core's test server (`acd_core::testing::TestServer`) for
//! JavaScript: a dataset served through a real gate in virtual time. Built
//! from its JSON configuration; each exchange crosses once, as text.

use crate::error::{codes, ErrorClass, Failure};
use crate::js;
use acd_core::testing::{TestServer, TestServerError};
use acd_core::UnixMillis;
use wasm_bindgen::prelude::*;

/// A test server: tables, connections and runs served through the gate's
/// own rules, with latency and injected faults, at the instants given.
#[wasm_bindgen(js_name = TestServer)]
pub struct JsTestServer {
    inner: TestServer,
}

fn failure(error: TestServerError) -> Failure {
    match error {
        TestServerError::Request { .. } => Failure::argument(error.to_string()),
        _ => Failure::new(ErrorClass::Config, codes::INVALID_CONFIG, error.to_string()),
    }
}

#[wasm_bindgen(js_class = TestServer)]
impl JsTestServer {
    /// A server from its JSON configuration (a string or UTF-8 bytes:
    /// `tables`, `connections`, `runs`, `new_runs`, `limits`, `gate`,
    /// `credentials`, `client_ip`, `start_ms`, `latency_ms`, `timeout_ms`,
    /// `date_header`, `faults`, `seed`, `log_limit`; every member optional,
    /// unknown ones refused). Throws `AcdConfigError` when it is refused.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] json: JsValue,
    ) -> Result<JsTestServer, JsValue> {
        let bytes = js::bytes_from_js(&json, "the test server configuration")?;
        let inner = TestServer::from_json(&bytes).map_err(failure)?;
        Ok(Self { inner })
    }

    /// One exchange at `nowMs`: `headers` is a block of `Name: value`
    /// lines, `url` absolute or a target starting with `/`. Returns the
    /// JSON text `{"status", "headers": [[name, value], ...], "body",
    /// "deliver_at"}` or `{"failure": "connect" | "timeout" |
    /// "interrupted", "deliver_at"}`. Throws `AcdArgumentError` when the
    /// pieces cannot be read.
    pub fn exchange(
        &mut self,
        method: &str,
        url: &str,
        headers: &str,
        body: Option<Vec<u8>>,
        #[wasm_bindgen(js_name = nowMs)] now_ms: f64,
    ) -> Result<String, JsValue> {
        let now = UnixMillis::new(js::millis_from_js(now_ms, "nowMs")?);
        let exchange = self
            .inner
            .exchange(method, url, headers, body.as_deref(), now)
            .map_err(failure)?;
        Ok(exchange.to_json())
    }

    /// The requests received, as the JSON text of an array of `{"at",
    /// "method", "path", "query", "status", "failure", "injected"}`.
    pub fn log(&self) -> String {
        self.inner.log_json()
    }

    /// The status of every response given, in order (transport failures
    /// have none).
    pub fn statuses(&self) -> Vec<u16> {
        self.inner.statuses()
    }
}
