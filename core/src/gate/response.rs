//! The response the gate hands back: status, headers and body bytes.

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
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(candidate, _)| candidate.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}
