//! [`ErrorCategory`]: the one coarse class of every [`ClientError`], which
//! each language maps to its error class with a single table.
//!
//! The rules live here and nowhere else:
//! - errors raised before anything is sent are [`ErrorCategory::Config`]
//!   (the client's own setup is wrong: a configuration value, an unknown
//!   operation, a missing or unknown credential, a credential the operation
//!   does not accept) or [`ErrorCategory::Request`] (this call's arguments
//!   are wrong); never an HTTP-status category;
//! - an API error goes by its status: 401 authentication, 403 permission,
//!   404 not found, 429 rate limit, 5xx server, any other status request;
//! - a wait for a rate limit longer than the caller accepts is rate limit;
//! - a redirect, a broken contract or a body over the client's max body
//!   size is protocol;
//! - a transport failure goes by how it failed (connection, timeout,
//!   interrupted);
//! - a retry that gave up takes the category of its last attempt's error;
//! - a run poller's deadline is timeout;
//! - misuse of the driver (an outcome for an unknown call, or for a call with
//!   nothing in flight) is request: the caller's own call was wrong;
//! - a keyset pager that meets a record without a usable order value is
//!   request: the caller chose the column, and paging by offset is the fix.
//!
//! [`ErrorCategory::Cancelled`] is for a call the caller stopped: no
//! [`ClientError`] has it today (a cancelled call simply ends in the core),
//! but every language's table maps it, for the languages' own cancellations.

use super::http::TransportFailure;
use super::ClientError;
use serde::{Deserialize, Serialize};

/// The coarse class of a [`ClientError`] (snake_case in JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCategory {
    /// The client's setup is wrong (nothing was sent).
    Config,
    /// This call's arguments are wrong, or the API refused the request as
    /// malformed (a 4xx other than 401, 403, 404 and 429).
    Request,
    /// The API refused the credential (401).
    Authentication,
    /// The credential may not do this (403).
    Permission,
    /// The resource does not exist (404).
    NotFound,
    /// A rate limit refused the call (429), or would for longer than the
    /// caller accepts.
    RateLimit,
    /// The server failed (5xx).
    Server,
    /// The connection could not be made; the request was never sent.
    Connection,
    /// No answer arrived in time (a transport timeout or a poller's deadline).
    Timeout,
    /// The connection broke after the request was sent.
    Interrupted,
    /// The server broke the API's contract (a redirect, a malformed or
    /// over-large response).
    Protocol,
    /// The caller cancelled the call.
    Cancelled,
}

impl ErrorCategory {
    /// Every category, in declaration order.
    pub const ALL: [ErrorCategory; 12] = [
        ErrorCategory::Config,
        ErrorCategory::Request,
        ErrorCategory::Authentication,
        ErrorCategory::Permission,
        ErrorCategory::NotFound,
        ErrorCategory::RateLimit,
        ErrorCategory::Server,
        ErrorCategory::Connection,
        ErrorCategory::Timeout,
        ErrorCategory::Interrupted,
        ErrorCategory::Protocol,
        ErrorCategory::Cancelled,
    ];

    /// The snake_case name, as in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCategory::Config => "config",
            ErrorCategory::Request => "request",
            ErrorCategory::Authentication => "authentication",
            ErrorCategory::Permission => "permission",
            ErrorCategory::NotFound => "not_found",
            ErrorCategory::RateLimit => "rate_limit",
            ErrorCategory::Server => "server",
            ErrorCategory::Connection => "connection",
            ErrorCategory::Timeout => "timeout",
            ErrorCategory::Interrupted => "interrupted",
            ErrorCategory::Protocol => "protocol",
            ErrorCategory::Cancelled => "cancelled",
        }
    }

    /// The category of an API error with this HTTP status.
    pub fn of_status(status: u16) -> Self {
        match status {
            401 => ErrorCategory::Authentication,
            403 => ErrorCategory::Permission,
            404 => ErrorCategory::NotFound,
            429 => ErrorCategory::RateLimit,
            500..=599 => ErrorCategory::Server,
            _ => ErrorCategory::Request,
        }
    }
}

impl std::fmt::Display for ErrorCategory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ClientError {
    /// This error's category (see the module's rules).
    pub fn category(&self) -> ErrorCategory {
        match self {
            ClientError::InvalidConfig { .. }
            | ClientError::UnknownOperation { .. }
            | ClientError::NoCredential { .. }
            | ClientError::UnknownCredential { .. }
            | ClientError::CredentialNotAccepted { .. } => ErrorCategory::Config,
            ClientError::InvalidParams { .. }
            | ClientError::MissingPathParam { .. }
            | ClientError::BadPathParam { .. }
            | ClientError::StableEgressUnavailable { .. }
            | ClientError::UnknownCall { .. }
            | ClientError::NothingInFlight { .. }
            | ClientError::KeysetValueMissing { .. }
            | ClientError::InvalidInput { .. }
            | ClientError::HeaderNotAllowed { .. } => ErrorCategory::Request,
            ClientError::Api { status, .. } => ErrorCategory::of_status(*status),
            ClientError::RateLimitedTooLong { .. } => ErrorCategory::RateLimit,
            ClientError::Redirect { .. }
            | ClientError::Protocol { .. }
            | ClientError::BodyTooLarge { .. } => ErrorCategory::Protocol,
            ClientError::Transport { failure, .. } => match failure {
                TransportFailure::Connect
                | TransportFailure::Refused
                | TransportFailure::Dns
                | TransportFailure::ConnectTimeout
                | TransportFailure::Blocked
                | TransportFailure::Unknown => ErrorCategory::Connection,
                TransportFailure::Timeout => ErrorCategory::Timeout,
                TransportFailure::Interrupted | TransportFailure::Reset => {
                    ErrorCategory::Interrupted
                }
                TransportFailure::Protocol => ErrorCategory::Protocol,
            },
            ClientError::GaveUp { last, .. } => last.category(),
            ClientError::PollDeadline { .. } | ClientError::CallTimedOut { .. } => {
                ErrorCategory::Timeout
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_json() {
        for category in ErrorCategory::ALL {
            let json = serde_json::to_value(category).unwrap();
            assert_eq!(json, category.as_str());
        }
        assert_eq!(ErrorCategory::of_status(418), ErrorCategory::Request);
        assert_eq!(ErrorCategory::of_status(503), ErrorCategory::Server);
    }
}
