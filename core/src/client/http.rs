//! Plain HTTP values exchanged with the caller's transport: the response it
//! received ([`HttpResponse`]) or how it failed ([`TransportFailure`]), wrapped
//! as one [`Outcome`] per attempt.

use crate::model::header_names::{all_values, first_value};
use serde::{Deserialize, Serialize};

/// One response as the transport received it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HttpResponse {
    /// The status code.
    pub status: u16,
    /// Header names and values, in order; names compare case-insensitively.
    pub headers: Vec<(String, String)>,
    /// The body bytes.
    pub body: Vec<u8>,
}

impl HttpResponse {
    /// A response with no headers.
    pub fn new(status: u16, body: impl Into<Vec<u8>>) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: body.into(),
        }
    }

    /// This response with one more header (builder form).
    #[must_use]
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The first value of header `name` (case-insensitive), if present.
    pub fn header(&self, name: &str) -> Option<&str> {
        first_value(&self.headers, name)
    }

    /// Every value of header `name` (case-insensitive), in order.
    pub fn header_all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        all_values(&self.headers, name)
    }
}

/// How an attempt failed without an HTTP response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "snake_case")]
pub enum TransportFailure {
    /// The connection could not be made (DNS, refused, TLS handshake): the
    /// request provably never left the client, so any method may be retried.
    #[error("the connection could not be established, so the request was never sent")]
    Connect,
    /// No response arrived in time; the server may have processed the request.
    #[error("no response arrived before the timeout; the server may have processed the request")]
    Timeout,
    /// The connection broke after the request was (perhaps partly) sent.
    #[error("the connection broke after the request was sent; the server may have processed it")]
    Interrupted,
}

impl TransportFailure {
    /// Whether the request provably never reached the server.
    pub fn never_sent(self) -> bool {
        matches!(self, TransportFailure::Connect)
    }
}

/// What one attempt produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum Outcome {
    /// A response arrived (any status).
    Response(HttpResponse),
    /// No response arrived.
    Transport(TransportFailure),
}

impl Outcome {
    /// The response status, if a response arrived.
    pub fn status(&self) -> Option<u16> {
        match self {
            Outcome::Response(response) => Some(response.status),
            Outcome::Transport(_) => None,
        }
    }
}
