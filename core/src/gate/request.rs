//! The request the caller hands the gate: plain owned data. Its `Debug`
//! redacts credential headers; its `Display` shows method and path only.

use crate::model::credential::RedactedHeaders;
use crate::model::header_names::{all_values, first_value};

/// One HTTP request as the gate sees it.
#[derive(Clone, PartialEq, Eq)]
pub struct GateRequest {
    /// The method, e.g. `GET` (compared case-sensitively, as HTTP does).
    pub method: String,
    /// The request target as received: path, then optionally `?` and the
    /// raw query, e.g. `/api/v1/tables/t1?limit=5`. Bytes, not text: invalid
    /// UTF-8 or percent-encoding becomes a 400, never a panic.
    pub target: Vec<u8>,
    /// Header names and raw values, in order; names compare case-insensitively.
    pub headers: Vec<(String, Vec<u8>)>,
    /// The client's IP address (limits of unauthenticated traffic count per IP).
    pub client_ip: String,
}

impl GateRequest {
    /// A `GET` of `target` from `client_ip`, without headers.
    pub fn get(target: impl Into<Vec<u8>>, client_ip: impl Into<String>) -> Self {
        Self {
            method: "GET".into(),
            target: target.into(),
            headers: vec![],
            client_ip: client_ip.into(),
        }
    }

    /// This request with one more header (builder form).
    #[must_use]
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<Vec<u8>>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The first raw value of header `name` (case-insensitive), if present.
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        first_value(&self.headers, name)
    }

    /// Every raw value of header `name` (case-insensitive), in order.
    pub fn header_all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a [u8]> + 'a {
        all_values(&self.headers, name)
    }
}

impl std::fmt::Debug for GateRequest {
    /// Every field, with the values of `X-API-Key` and `Authorization`
    /// shown as `<redacted>`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GateRequest")
            .field("method", &self.method)
            .field("target", &String::from_utf8_lossy(&self.target))
            .field("headers", &RedactedHeaders(&self.headers))
            .field("client_ip", &self.client_ip)
            .finish()
    }
}

impl std::fmt::Display for GateRequest {
    /// Method and path only: headers may hold secrets and are never shown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let target = String::from_utf8_lossy(&self.target);
        let path = target.split('?').next().unwrap_or_default();
        write!(f, "{} {}", self.method, path)
    }
}
