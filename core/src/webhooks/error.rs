//! The one error of webhook verification, with the stable `code` strings
//! that every SDK forwards unchanged.

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

/// Why a webhook was refused (or a secret could not be read).
///
/// [`WebhookError::code`] is the stable, machine-readable name; the
/// `Display` text is a sentence for a person. Serialises as
/// `{"code": "...", "message": "..."}`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WebhookError {
    /// A required header is absent, empty or over its bound (`missing_header`).
    #[error("the request has no usable {header} header ({reason}); pass every header the request arrived with")]
    MissingHeader {
        /// The header's lowercase name.
        header: &'static str,
        /// What was wrong with it.
        reason: &'static str,
    },
    /// `webhook-timestamp` is not whole Unix seconds (`bad_timestamp`).
    #[error("the webhook-timestamp header {value:?} is not a whole number of Unix seconds")]
    BadTimestamp {
        /// The header's value, cut to 64 bytes.
        value: String,
    },
    /// The timestamp is too old or too far in the future
    /// (`timestamp_out_of_tolerance`).
    #[error("the webhook-timestamp {timestamp_s} is {distance_s} s away from now ({now_s}), more than the tolerance of {tolerance_s} s; check the clock, or this may be a replay")]
    TimestampOutOfTolerance {
        /// The header's timestamp, Unix seconds.
        timestamp_s: u64,
        /// The verifier's now, Unix seconds.
        now_s: u64,
        /// How far apart the two are, seconds.
        distance_s: u64,
        /// The tolerance, seconds.
        tolerance_s: u64,
    },
    /// No `v1` signature matched any secret (`no_matching_signature`).
    #[error("no v1 signature in webhook-signature matches the body with any of the {secrets} secret(s); check the secret and pass the raw body bytes exactly as received")]
    NoMatchingSignature {
        /// How many secrets were tried.
        secrets: usize,
    },
    /// A secret is not `whsec_<base64>` (or none was given) (`bad_secret`).
    #[error("the webhook secret is unusable: {reason}; pass the whsec_... value the sender shows")]
    BadSecret {
        /// What was wrong with it (never the secret itself).
        reason: &'static str,
    },
    /// The verified body is not a webhook payload (`bad_payload`).
    #[error("the webhook body is not a valid payload: {reason}")]
    BadPayload {
        /// What was wrong with it.
        reason: String,
    },
}

impl WebhookError {
    /// The stable code: `missing_header`, `bad_timestamp`,
    /// `timestamp_out_of_tolerance`, `no_matching_signature`, `bad_secret`
    /// or `bad_payload`.
    pub fn code(&self) -> &'static str {
        match self {
            Self::MissingHeader { .. } => "missing_header",
            Self::BadTimestamp { .. } => "bad_timestamp",
            Self::TimestampOutOfTolerance { .. } => "timestamp_out_of_tolerance",
            Self::NoMatchingSignature { .. } => "no_matching_signature",
            Self::BadSecret { .. } => "bad_secret",
            Self::BadPayload { .. } => "bad_payload",
        }
    }
}

impl Serialize for WebhookError {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_struct("WebhookError", 2)?;
        out.serialize_field("code", self.code())?;
        out.serialize_field("message", &self.to_string())?;
        out.end()
    }
}
