//! The core's test server (`acd_core::testing::TestServer`) for Python and
//! Kotlin: a dataset served through a real gate in virtual time. Built from
//! its JSON configuration; each exchange crosses once, as bytes and JSON.

use crate::{time, AcdError};
use acd_core::testing::{TestServer as CoreTestServer, TestServerError};
use std::sync::{Mutex, PoisonError};

/// A test server: tables, connections and runs served through the gate's
/// own rules, with latency and injected faults, at the instants given.
#[derive(Debug, uniffi::Object)]
pub struct TestServer {
    inner: Mutex<CoreTestServer>,
}

fn to_acd(error: TestServerError) -> AcdError {
    match error {
        TestServerError::Request { .. } => AcdError::InvalidArgument(error.to_string()),
        _ => AcdError::Config(error.to_string()),
    }
}

#[uniffi::export]
impl TestServer {
    /// A server from its JSON configuration (`tables`, `connections`,
    /// `runs`, `new_runs`, `limits`, `gate`, `credentials`, `client_ip`,
    /// `start_ms`, `latency_ms`, `timeout_ms`, `date_header`, `faults`,
    /// `seed`, `log_limit`; every member optional, unknown ones refused).
    #[uniffi::constructor]
    pub fn new(json: Vec<u8>) -> Result<Self, AcdError> {
        CoreTestServer::from_json(&json)
            .map(|inner| Self {
                inner: Mutex::new(inner),
            })
            .map_err(to_acd)
    }

    /// One exchange at `now_ms`: `headers` is a block of `Name: value`
    /// lines, `url` absolute or a target starting with `/`. Returns
    /// `{"status", "headers": [[name, value], ...], "body", "deliver_at"}`
    /// or `{"failure": "connect" | "timeout" | "interrupted", "deliver_at"}`.
    pub fn exchange(
        &self,
        method: String,
        url: String,
        headers: String,
        body: Option<Vec<u8>>,
        now_ms: i64,
    ) -> Result<String, AcdError> {
        let now = time::to_core("now_ms", now_ms)?;
        let mut server = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        server
            .exchange(&method, &url, &headers, body.as_deref(), now)
            .map(|exchange| exchange.to_json())
            .map_err(to_acd)
    }

    /// The requests received, as a JSON array of `{"at", "method", "path",
    /// "query", "status", "failure", "injected"}` (never headers).
    pub fn log(&self) -> String {
        self.inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .log_json()
    }

    /// The status of every response given, in order (transport failures
    /// have none).
    pub fn statuses(&self) -> Vec<u16> {
        self.inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .statuses()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exchange_crosses_as_json_and_errors_as_sentences() {
        let server =
            TestServer::new(br#"{"tables": {"t": [{"id": 1}]}, "date_header": false}"#.to_vec())
                .unwrap();
        let answer = server
            .exchange(
                "GET".into(),
                "http://127.0.0.1:8080/api/v1/tables/t".into(),
                "X-API-Key: acd_live_demo_ada".into(),
                None,
                1_700_000_000_000,
            )
            .unwrap();
        assert_eq!(
            answer,
            r#"{"status":200,"headers":[["Content-Type","application/json"],["RateLimit-Limit","5"],["RateLimit-Remaining","4"],["RateLimit-Reset","40"]],"body":"{\"data\":[{\"id\":1}]}","deliver_at":1700000000000}"#
        );
        assert_eq!(server.statuses(), [200]);
        assert_eq!(
            server.log(),
            r#"[{"at":1700000000000,"method":"GET","path":"/api/v1/tables/t","query":"","status":200,"failure":null,"injected":false}]"#
        );
        assert_eq!(
            server
                .exchange("GET".into(), "/api/v1".into(), String::new(), None, -1)
                .unwrap_err(),
            AcdError::InvalidArgument(
                "now_ms must be Unix milliseconds from 0 to 9223372036854775807; got -1".into()
            )
        );
        let AcdError::Config(sentence) = TestServer::new(b"{\"latency\": 5}".to_vec()).unwrap_err()
        else {
            panic!("a configuration error")
        };
        assert!(
            sentence.starts_with("test server configuration: "),
            "{sentence}"
        );
        assert!(sentence.contains("unknown field `latency`"), "{sentence}");
    }
}
