//! [`ErrorCategory`]: the one coarse class of every [`ClientError`], the
//! one list of categories ([`ErrorCategory::ALL`]) and the class each
//! language raises for each ([`ErrorCategory::classes`]): every language's
//! table is checked against this list by a test that iterates it through
//! the binding, so a new category cannot be mapped in one language only.
//!
//! The rules live here and nowhere else:
//! - errors raised before anything is sent are [`ErrorCategory::Config`]
//!   (the client's own setup is wrong: a configuration value, an unknown
//!   operation, a missing or unknown credential, a credential the operation
//!   does not accept) or [`ErrorCategory::InvalidRequest`] (this call's
//!   arguments are wrong); never an HTTP-status category;
//! - an API error goes by its status: 401 authentication, 403 permission,
//!   404 not found, 429 rate limit, 5xx server, any other status (400, 409,
//!   418, 422...) [`ErrorCategory::BadRequest`];
//! - a wait for a rate limit longer than the caller accepts is rate limit;
//! - a redirect, a broken contract or a body over the client's max body
//!   size is protocol;
//! - a transport failure goes by how it failed (connection, timeout,
//!   interrupted);
//! - a retry that gave up takes the category of its last attempt's error;
//! - a run poller's deadline and the call's timeout are timeout;
//! - misuse of the driver (an outcome for an unknown call, or for a call with
//!   nothing in flight) is invalid request: the caller's own call was wrong;
//! - a keyset pager that meets a record without a usable order value is
//!   invalid request: the caller chose the column, and paging by offset is
//!   the fix (the request it would need is never sent).
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
    /// This call's arguments are wrong: refused before sending.
    InvalidRequest,
    /// The API answered that the request is malformed (a 4xx other than
    /// 401, 403, 404 and 429).
    BadRequest,
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
    /// No answer arrived in time (a transport timeout, the call's timeout
    /// or a run wait's deadline).
    Timeout,
    /// The connection broke after the request was sent.
    Interrupted,
    /// The server broke the API's contract (a redirect, a malformed or
    /// over-large response).
    Protocol,
    /// The caller cancelled the call.
    Cancelled,
}

/// The class each language raises for one category, and the CLI's exit
/// status (`docs/sdk.md`, "Errors").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ErrorClasses {
    /// The category.
    pub category: ErrorCategory,
    /// The Python exception class (module `acd`).
    pub python: &'static str,
    /// The Kotlin exception class (package `dev.acd`).
    pub kotlin: &'static str,
    /// The JavaScript error class (package `acd`).
    pub js: &'static str,
    /// The `acd` command's exit status.
    pub exit_code: u8,
}

/// Exit status 1: the API answered an error, or broke the contract.
const EXIT_API: u8 = 1;
/// Exit status 2: bad command line or configuration; nothing was sent.
const EXIT_USAGE: u8 = 2;
/// Exit status 3: gave up (no answer in time, the connection failed, the
/// server kept failing (5xx, retried until the attempts ran out), a rate
/// limit for longer than accepted).
const EXIT_GAVE_UP: u8 = 3;
/// Exit status 130: the call was cancelled (as by Ctrl-C).
const EXIT_CANCELLED: u8 = 130;

impl ErrorCategory {
    /// Every category, in declaration order: the one list every language's
    /// table is checked against.
    pub const ALL: [ErrorCategory; 13] = [
        ErrorCategory::Config,
        ErrorCategory::InvalidRequest,
        ErrorCategory::BadRequest,
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
            ErrorCategory::InvalidRequest => "invalid_request",
            ErrorCategory::BadRequest => "bad_request",
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
            _ => ErrorCategory::BadRequest,
        }
    }

    /// The class each language raises for this category, and the CLI's
    /// exit status: the one table.
    pub fn classes(self) -> ErrorClasses {
        use ErrorCategory as C;
        let (python, kotlin, js, exit_code) = match self {
            C::Config => (
                "ConfigError",
                "ConfigException",
                "AcdConfigError",
                EXIT_USAGE,
            ),
            C::InvalidRequest => (
                "RequestError",
                "RequestException",
                "AcdRequestError",
                EXIT_USAGE,
            ),
            C::BadRequest => (
                "BadRequestError",
                "BadRequestException",
                "BadRequestError",
                EXIT_API,
            ),
            C::Authentication => (
                "AuthenticationError",
                "AuthenticationException",
                "AuthenticationError",
                EXIT_API,
            ),
            C::Permission => (
                "PermissionDeniedError",
                "PermissionException",
                "PermissionDeniedError",
                EXIT_API,
            ),
            C::NotFound => (
                "NotFoundError",
                "NotFoundException",
                "NotFoundError",
                EXIT_API,
            ),
            C::RateLimit => (
                "RateLimitError",
                "RateLimitException",
                "RateLimitError",
                EXIT_GAVE_UP,
            ),
            C::Server => (
                "InternalServerError",
                "ServerException",
                "ServerError",
                EXIT_GAVE_UP,
            ),
            C::Connection => (
                "APIConnectionError",
                "ConnectionException",
                "ConnectionError",
                EXIT_GAVE_UP,
            ),
            C::Timeout => (
                "APITimeoutError",
                "AcdTimeoutException",
                "TimeoutError",
                EXIT_GAVE_UP,
            ),
            C::Interrupted => (
                "APIInterruptedError",
                "AcdInterruptedException",
                "AcdInterruptedError",
                EXIT_GAVE_UP,
            ),
            C::Protocol => (
                "ProtocolError",
                "AcdProtocolException",
                "AcdProtocolError",
                EXIT_API,
            ),
            C::Cancelled => (
                "CallCancelledError",
                "AcdCancelledException",
                "AcdCancelledError",
                EXIT_CANCELLED,
            ),
        };
        ErrorClasses {
            category: self,
            python,
            kotlin,
            js,
            exit_code,
        }
    }

    /// Every category's `ErrorClasses` as JSON (an array in
    /// [`ErrorCategory::ALL`]'s order), what the bindings expose.
    pub fn table_json() -> String {
        let table: Vec<ErrorClasses> = Self::ALL.iter().map(|c| c.classes()).collect();
        serde_json::to_string(&table).unwrap_or_default()
    }
}

impl std::fmt::Display for ErrorCategory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ClientError {
    /// Whether the failing request reached the wire: `false` for every
    /// error found before sending (config, invalid request) and for a
    /// connection that could not be made; `true` once an answer came or the
    /// request may have reached the server. A retry that gave up after more
    /// than one attempt was sent.
    pub fn sent(&self) -> bool {
        match self {
            ClientError::Api { .. }
            | ClientError::Protocol { .. }
            | ClientError::Redirect { .. }
            | ClientError::BodyTooLarge { .. }
            | ClientError::PollDeadline { .. }
            | ClientError::CallTimedOut { .. } => true,
            ClientError::Transport { failure, .. } => !failure.never_sent(),
            ClientError::GaveUp { attempts, last, .. } => *attempts > 1 || last.sent(),
            _ => false,
        }
    }

    /// When the server said a request is admitted again (Unix ms), when it
    /// said: set on every rate-limit error that knows it (a 429's
    /// `Retry-After` or rate-limit headers, a wait longer than accepted).
    pub fn retry_at(&self) -> Option<crate::UnixMillis> {
        match self {
            ClientError::Api { retry_at, .. } => *retry_at,
            ClientError::RateLimitedTooLong { retry_at, .. } => Some(*retry_at),
            ClientError::GaveUp {
                reason: super::GiveUpReason::RetryAfterTooLong { retry_at, .. },
                ..
            } => Some(*retry_at),
            ClientError::GaveUp { last, .. } => last.retry_at(),
            _ => None,
        }
    }

    /// The API's own error body when it answered one (`detail`, `status`
    /// and its other members), the last attempt's for a retry that gave up.
    pub fn api_body(&self) -> Option<(u16, &str, &super::error_members::ExtraMembers)> {
        match self {
            ClientError::Api {
                status,
                detail,
                extra,
                ..
            } => Some((*status, detail, extra)),
            ClientError::GaveUp { last, .. } => last.api_body(),
            _ => None,
        }
    }

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
            | ClientError::HeaderNotAllowed { .. } => ErrorCategory::InvalidRequest,
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
        assert_eq!(ErrorCategory::of_status(418), ErrorCategory::BadRequest);
        assert_eq!(ErrorCategory::of_status(503), ErrorCategory::Server);
    }
}
