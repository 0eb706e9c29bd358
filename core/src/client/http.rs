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

/// How an attempt failed without an HTTP response: the transport's facts
/// (was anything sent; did it time out before or after sending). Core alone
/// turns them into the error category, the sentence and the retry decision
/// (`docs/driver-protocol.md`, "Transport failures").
#[non_exhaustive]
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
    /// The server refused the connection (`ECONNREFUSED`): never sent.
    #[error("could not connect (connection refused), so the request was never sent")]
    Refused,
    /// The host name did not resolve: never sent.
    #[error("could not connect (the host name did not resolve), so the request was never sent")]
    Dns,
    /// Connecting took longer than the timeout allowed: never sent.
    #[error("could not connect (timed out while connecting), so the request was never sent")]
    ConnectTimeout,
    /// The HTTP client refused to open the connection (e.g. a port on
    /// fetch's bad-port list): never sent.
    #[error(
        "the HTTP client refused to open the connection (an address or port it blocks), \
         so the request was never sent"
    )]
    Blocked,
    /// The connection was reset after the request was sent.
    #[error(
        "the connection was reset after the request was sent; the server may have processed it"
    )]
    Reset,
    /// The request failed before any response and the HTTP client gave no
    /// reason (a browser's `fetch`: a network error, or a cross-origin
    /// request its CORS policy blocked). Read safely: it may have been sent.
    #[error(
        "the request failed before any response and the HTTP client gave no reason (a network \
         error, or in a browser a cross-origin request its CORS policy blocked); the server may \
         have processed it"
    )]
    Unknown,
    /// The answer was not valid HTTP (a bad status line, a header line too
    /// long, too many headers): the request was sent.
    #[error(
        "the server's answer was not valid HTTP (a bad status line, a header line too long or \
         too many headers); the server may have processed the request"
    )]
    Protocol,
}

impl TransportFailure {
    /// Every kind, in protocol order.
    pub const ALL: [TransportFailure; 10] = [
        TransportFailure::Connect,
        TransportFailure::Timeout,
        TransportFailure::Interrupted,
        TransportFailure::Refused,
        TransportFailure::Dns,
        TransportFailure::ConnectTimeout,
        TransportFailure::Blocked,
        TransportFailure::Reset,
        TransportFailure::Unknown,
        TransportFailure::Protocol,
    ];

    /// Whether the request provably never reached the server (so any
    /// method, a POST included, may be retried).
    pub fn never_sent(self) -> bool {
        matches!(
            self,
            TransportFailure::Connect
                | TransportFailure::Refused
                | TransportFailure::Dns
                | TransportFailure::ConnectTimeout
                | TransportFailure::Blocked
        )
    }

    /// The kind's protocol name, as `fail(call, kind)` takes it.
    pub fn as_str(self) -> &'static str {
        match self {
            TransportFailure::Connect => "connect",
            TransportFailure::Timeout => "timeout",
            TransportFailure::Interrupted => "interrupted",
            TransportFailure::Refused => "refused",
            TransportFailure::Dns => "dns",
            TransportFailure::ConnectTimeout => "connect_timeout",
            TransportFailure::Blocked => "blocked",
            TransportFailure::Reset => "reset",
            TransportFailure::Unknown => "unknown",
            TransportFailure::Protocol => "protocol",
        }
    }

    /// A kind by its protocol name.
    pub fn from_name(name: &str) -> Option<TransportFailure> {
        TransportFailure::ALL
            .into_iter()
            .find(|kind| kind.as_str() == name)
    }

    /// What a retry notice says the attempt did.
    pub(crate) fn attempt_text(self) -> &'static str {
        match self {
            TransportFailure::Connect => "could not connect",
            TransportFailure::Timeout => "timed out",
            TransportFailure::Interrupted => "lost its connection after sending",
            TransportFailure::Refused => "could not connect (connection refused)",
            TransportFailure::Dns => "could not connect (the host name did not resolve)",
            TransportFailure::ConnectTimeout => "timed out while connecting",
            TransportFailure::Blocked => "could not connect (blocked by the HTTP client)",
            TransportFailure::Reset => "lost its connection after sending (connection reset)",
            TransportFailure::Unknown => "failed before any response, for no reason given",
            TransportFailure::Protocol => "got an answer that was not valid HTTP",
        }
    }
}

/// The origin of `url` (`scheme://host:port`, the port written out), with
/// no credentials, path or query: what a connection error names.
pub fn url_origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit('@').next().unwrap_or_default();
    if host_port.is_empty() {
        return None;
    }
    let scheme = scheme.to_ascii_lowercase();
    let has_port = match host_port.rfind(':') {
        Some(colon) => !host_port[colon..].contains(']'),
        None => false,
    };
    if has_port {
        return Some(format!("{scheme}://{host_port}"));
    }
    let port = match scheme.as_str() {
        "http" => 80,
        "https" => 443,
        _ => return Some(format!("{scheme}://{host_port}")),
    };
    Some(format!("{scheme}://{host_port}:{port}"))
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
