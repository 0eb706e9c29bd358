//! Signing and verification (Standard Webhooks, version `v1`): the
//! signature is the standard base64 of HMAC-SHA256 over
//! `{webhook-id}.{webhook-timestamp}.{raw body}`; `webhook-signature` holds
//! space-separated `v1,<base64>` entries.
//!
//! Verification takes the body as raw bytes only: a parsed (and perhaps
//! re-serialised) object cannot be passed, so it cannot be verified by
//! mistake. The order of checks is fixed and documented in
//! `docs/webhooks.md`: headers, timestamp, tolerance, signatures, payload.

use super::event::WebhookEvent;
use super::{Secret, WebhookError};
use crate::UnixMillis;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The header with the message id (the same on every attempt).
pub const HEADER_ID: &str = "webhook-id";
/// The header with the attempt's time, whole Unix seconds.
pub const HEADER_TIMESTAMP: &str = "webhook-timestamp";
/// The header with the signatures.
pub const HEADER_SIGNATURE: &str = "webhook-signature";
/// The default tolerance between `webhook-timestamp` and now: 5 minutes.
pub const DEFAULT_TOLERANCE_MS: u64 = 300_000;
/// The longest `webhook-id` accepted, bytes.
pub const MAX_ID_BYTES: usize = 256;
/// The longest `webhook-signature` header read, bytes.
pub const MAX_SIGNATURE_HEADER_BYTES: usize = 16 * 1024;
/// Signature entries read from one header; later ones are ignored.
pub const MAX_SIGNATURES: usize = 32;
/// The largest body decoded as a payload, bytes.
pub const MAX_PAYLOAD_BYTES: usize = 1024 * 1024;

type HmacSha256 = Hmac<Sha256>;

fn mac(secret: &Secret, id: &str, timestamp: u64, body: &[u8]) -> HmacSha256 {
    // `new_from_slice` accepts a key of any length for HMAC.
    let mut mac = match HmacSha256::new_from_slice(secret.key()) {
        Ok(mac) => mac,
        Err(_) => HmacSha256::new(&Default::default()),
    };
    mac.update(id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac
}

/// One signature entry, `v1,<base64 HMAC-SHA256>`, of `body` sent as
/// message `id` at `timestamp` (Unix seconds).
pub fn sign(secret: &Secret, id: &str, timestamp: u64, body: &[u8]) -> String {
    let tag = mac(secret, id, timestamp, body).finalize().into_bytes();
    format!("v1,{}", STANDARD.encode(tag))
}

/// The three headers of a delivery (`webhook-id`, `webhook-timestamp`,
/// `webhook-signature`), signed with every secret in `secrets` (several
/// during a rotation), in that order.
pub fn signed_headers(
    secrets: &[Secret],
    id: &str,
    timestamp: u64,
    body: &[u8],
) -> Vec<(String, String)> {
    let signatures: Vec<String> = secrets
        .iter()
        .map(|secret| sign(secret, id, timestamp, body))
        .collect();
    vec![
        (HEADER_ID.to_owned(), id.to_owned()),
        (HEADER_TIMESTAMP.to_owned(), timestamp.to_string()),
        (HEADER_SIGNATURE.to_owned(), signatures.join(" ")),
    ]
}

/// The three webhook headers as read from a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookHeaders {
    /// `webhook-id`.
    pub id: String,
    /// `webhook-timestamp`, Unix seconds.
    pub timestamp: u64,
    /// The raw `webhook-signature` value.
    pub signature: String,
}

fn header<'h, K, V>(headers: &'h [(K, V)], name: &str) -> Option<&'h str>
where
    K: AsRef<str>,
    V: AsRef<str>,
{
    headers
        .iter()
        .find(|(key, _)| key.as_ref().eq_ignore_ascii_case(name))
        .map(|(_, value)| value.as_ref())
}

fn required<'h, K, V>(
    headers: &'h [(K, V)],
    name: &'static str,
    max: usize,
) -> Result<&'h str, WebhookError>
where
    K: AsRef<str>,
    V: AsRef<str>,
{
    match header(headers, name) {
        None => Err(WebhookError::MissingHeader {
            header: name,
            reason: "absent",
        }),
        Some("") => Err(WebhookError::MissingHeader {
            header: name,
            reason: "empty",
        }),
        Some(value) if value.len() > max => Err(WebhookError::MissingHeader {
            header: name,
            reason: "longer than its bound",
        }),
        Some(value) => Ok(value),
    }
}

/// Reads `webhook-timestamp`: 1 to 19 ASCII digits, nothing else.
pub fn parse_timestamp(value: &str) -> Result<u64, WebhookError> {
    let bad = || WebhookError::BadTimestamp {
        value: value.chars().take(64).collect(),
    };
    if value.is_empty() || value.len() > 19 || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    value.parse().map_err(|_| bad())
}

/// Reads the three headers (names case-insensitive, the first of repeated
/// names wins): `missing_header` for an absent, empty or over-long one,
/// `bad_timestamp` for a timestamp that is not whole seconds.
pub fn parse_headers<K, V>(headers: &[(K, V)]) -> Result<WebhookHeaders, WebhookError>
where
    K: AsRef<str>,
    V: AsRef<str>,
{
    let id = required(headers, HEADER_ID, MAX_ID_BYTES)?;
    let timestamp = required(headers, HEADER_TIMESTAMP, 64)?;
    let signature = required(headers, HEADER_SIGNATURE, MAX_SIGNATURE_HEADER_BYTES)?;
    Ok(WebhookHeaders {
        id: id.to_owned(),
        timestamp: parse_timestamp(timestamp)?,
        signature: signature.to_owned(),
    })
}

/// The decoded `v1` signatures of a `webhook-signature` value: entries are
/// separated by spaces; entries of other versions, without a comma, or
/// whose base64 is malformed are skipped; at most [`MAX_SIGNATURES`].
pub fn parse_signatures(value: &str) -> Vec<Vec<u8>> {
    value
        .split(' ')
        .filter(|entry| !entry.is_empty())
        .take(MAX_SIGNATURES)
        .filter_map(|entry| entry.split_once(','))
        .filter(|(version, _)| *version == "v1")
        .filter_map(|(_, signature)| STANDARD.decode(signature).ok())
        .collect()
}

/// A receiver's settings: its secrets (several during a rotation) and the
/// tolerance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verifier {
    secrets: Vec<Secret>,
    tolerance_ms: u64,
}

impl Verifier {
    /// A verifier of these secrets with the default tolerance;
    /// `bad_secret` when the list is empty.
    pub fn new(secrets: Vec<Secret>) -> Result<Self, WebhookError> {
        if secrets.is_empty() {
            return Err(WebhookError::BadSecret {
                reason: "no secret was given",
            });
        }
        Ok(Self {
            secrets,
            tolerance_ms: DEFAULT_TOLERANCE_MS,
        })
    }

    /// A verifier of secrets in their `whsec_...` form (what a binding
    /// forwards); `bad_secret` for an empty list or any malformed secret.
    pub fn from_strs<S: AsRef<str>>(secrets: &[S]) -> Result<Self, WebhookError> {
        let parsed = secrets
            .iter()
            .map(|secret| Secret::parse(secret.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        Self::new(parsed)
    }

    /// The same verifier with another tolerance, in milliseconds (applied
    /// on whole seconds: `floor(tolerance_ms / 1000)`).
    #[must_use]
    pub fn with_tolerance_ms(mut self, tolerance_ms: u64) -> Self {
        self.tolerance_ms = tolerance_ms;
        self
    }

    /// The tolerance, in milliseconds.
    pub fn tolerance_ms(&self) -> u64 {
        self.tolerance_ms
    }

    /// Verifies a request: its headers (name, value pairs as received), its
    /// raw body bytes, and the receiver's `now`. Returns the event, or the
    /// first failing check's error.
    pub fn verify<K, V>(
        &self,
        headers: &[(K, V)],
        body: &[u8],
        now: UnixMillis,
    ) -> Result<WebhookEvent, WebhookError>
    where
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let parsed = parse_headers(headers)?;
        self.check_time(parsed.timestamp, now)?;
        if body.len() > MAX_PAYLOAD_BYTES {
            return Err(WebhookError::BadPayload {
                reason: format!("it is longer than {MAX_PAYLOAD_BYTES} bytes"),
            });
        }
        let signatures = parse_signatures(&parsed.signature);
        let matches = self.secrets.iter().any(|secret| {
            let expected = mac(secret, &parsed.id, parsed.timestamp, body);
            signatures
                .iter()
                .any(|signature| expected.clone().verify_slice(signature).is_ok())
        });
        if !matches {
            return Err(WebhookError::NoMatchingSignature {
                secrets: self.secrets.len(),
            });
        }
        WebhookEvent::decode(parsed.id, parsed.timestamp, body)
    }

    fn check_time(&self, timestamp_s: u64, now: UnixMillis) -> Result<(), WebhookError> {
        let now_s = now.as_millis() / crate::MILLIS_PER_SECOND;
        let tolerance_s = self.tolerance_ms / crate::MILLIS_PER_SECOND;
        let distance_s = now_s.abs_diff(timestamp_s);
        if distance_s > tolerance_s {
            return Err(WebhookError::TimestampOutOfTolerance {
                timestamp_s,
                now_s,
                distance_s,
                tolerance_s,
            });
        }
        Ok(())
    }
}

/// Verifies a request with these secrets and the default tolerance (5
/// minutes); see [`Verifier::verify`].
pub fn verify<K, V>(
    secrets: &[Secret],
    headers: &[(K, V)],
    body: &[u8],
    now: UnixMillis,
) -> Result<WebhookEvent, WebhookError>
where
    K: AsRef<str>,
    V: AsRef<str>,
{
    Verifier::new(secrets.to_vec())?.verify(headers, body, now)
}
