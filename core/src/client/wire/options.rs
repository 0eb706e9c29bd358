//! [`CallOptions`]: what a caller may set per call (extra headers, an
//! explicit idempotency key, a max-attempts override, a timeout), and the
//! check that keeps headers the client owns out of the extra ones.

use crate::client::error::ClientError;
use crate::model::credential::{carries_secret, is_credential_header};
use crate::model::header_names::{same_name, CONTENT_TYPE, IDEMPOTENCY_KEY};
use serde::{Deserialize, Serialize};

/// Options that apply to every request of one call.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CallOptions {
    /// Headers added to every attempt, in order, after the client's own.
    /// A header the client sets itself is refused.
    pub headers: Vec<(String, String)>,
    /// The `Idempotency-Key` of a single request, replacing the automatic one
    /// (reused on every attempt).
    pub idempotency_key: Option<String>,
    /// Attempts per request of this call, replacing the retry policy's
    /// `max_attempts` (at least 1).
    pub max_attempts: Option<u32>,
    /// The whole call, waits and retries included, must finish this long
    /// after its first send; it then fails with category `timeout`.
    pub timeout_ms: Option<u64>,
}

/// Headers the client writes itself on every request (besides the
/// credential headers and the configured stable-egress header).
const OWNED: [&str; 6] = [
    IDEMPOTENCY_KEY,
    CONTENT_TYPE,
    "Content-Length",
    "Host",
    "Accept",
    "Transfer-Encoding",
];

/// An RFC 9110 token character (a header name is one or more of them).
fn is_tchar(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

impl CallOptions {
    /// Checks the options: every header a valid HTTP header the client does
    /// not set itself (`stable_egress_header` is the configured one), and a
    /// `max_attempts` of at least 1.
    pub fn check(&self, stable_egress_header: &str) -> Result<(), ClientError> {
        for (name, value) in &self.headers {
            let refuse = |problem: &str| {
                Err(ClientError::HeaderNotAllowed {
                    header: name.clone(),
                    problem: problem.to_owned(),
                })
            };
            if name.is_empty() || !name.bytes().all(is_tchar) {
                return refuse(
                    "a header name is one or more letters, digits or !#$%&'*+-.^_`|~ characters",
                );
            }
            if value
                .bytes()
                .any(|byte| byte.is_ascii_control() && byte != b'\t')
            {
                return refuse("a header value may not hold control characters or line breaks");
            }
            if is_credential_header(name) {
                return refuse(
                    "the client sends the credential itself; choose the call's credential instead",
                );
            }
            if carries_secret(name) {
                return refuse(
                    "a header that carries a secret is never taken from the call's headers",
                );
            }
            if same_name(name, IDEMPOTENCY_KEY) {
                return refuse("set the call's idempotency key instead");
            }
            if same_name(name, stable_egress_header) {
                return refuse("ask for stable egress with the call's egress choice instead");
            }
            if OWNED.iter().any(|owned| same_name(owned, name)) {
                return refuse("the client sets this header itself");
            }
        }
        if self.max_attempts == Some(0) {
            return Err(ClientError::InvalidInput {
                input: "call options".into(),
                problem: "the call's max attempts must be at least 1 (the first attempt counts)"
                    .into(),
            });
        }
        if let Some(key) = &self.idempotency_key {
            if key.is_empty() || key.bytes().any(|byte| !(0x21..=0x7e).contains(&byte)) {
                return Err(ClientError::InvalidInput {
                    input: "call options".into(),
                    problem:
                        "the call's idempotency key must be 1 or more visible ASCII characters"
                            .into(),
                });
            }
        }
        Ok(())
    }
}
