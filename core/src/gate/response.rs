//! The response the gate hands back: status, headers and body bytes.

use crate::model::header_names::{all_values, first_value};

/// One HTTP response, ready to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateResponse {
    /// The status code.
    pub status: u16,
    /// Header names and values, in the order they should be sent.
    pub headers: Vec<(String, String)>,
    /// The body (JSON).
    pub body: Vec<u8>,
}

impl GateResponse {
    /// The first value of header `name` (case-insensitive), if present.
    pub fn header(&self, name: &str) -> Option<&str> {
        first_value(&self.headers, name)
    }

    /// Every value of header `name` (case-insensitive), in order.
    pub fn header_all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        all_values(&self.headers, name)
    }
}
