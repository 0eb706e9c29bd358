//! The byte level of [`Client`]: every entry a binding forwards to without
//! decoding anything itself — the config and call-spec JSON in, a response
//! as status + header block + body bytes, a transport failure by name, and
//! the throttle's view of each limit as JSON.

use crate::client::calls::CallId;
use crate::client::config::ClientConfig;
use crate::client::driver::Client;
use crate::client::error::ClientError;
use crate::client::http::{HttpResponse, Outcome, TransportFailure};
use crate::client::random::Entropy;
use crate::model::parse_header_block;
use crate::time::ceil_seconds;
use crate::UnixMillis;
use serde::Serialize;

use super::spec::CallSpec;

/// A transport failure by its protocol name: `connect`, `timeout`,
/// `interrupted` (the original three, meaning what they always did) or one
/// of the finer kinds `refused`, `dns`, `connect_timeout`, `blocked`,
/// `reset`, `unknown`, `protocol` (`docs/driver-protocol.md`).
pub fn parse_failure(kind: &str) -> Result<TransportFailure, ClientError> {
    TransportFailure::from_name(kind).ok_or_else(|| {
        let names: Vec<&str> = TransportFailure::ALL.iter().map(|k| k.as_str()).collect();
        ClientError::InvalidInput {
            input: "transport failure".into(),
            problem: format!("{kind:?} is not one of {}", names.join(", ")),
        }
    })
}

/// The throttle's model of one limit, as `limits_json` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LimitView {
    /// The limit's name, e.g. `user_table_reads`.
    pub name: String,
    /// Requests per window.
    pub requests: u32,
    /// The window, in whole seconds (rounded up).
    pub window_seconds: u64,
    /// Requests left in the current window, as the model has it.
    pub remaining: u32,
    /// When the current window ends (`None` until a send opens one).
    pub reset_at: Option<UnixMillis>,
}

impl Client {
    /// A client from the protocol's config JSON ([`ClientConfig::from_json`]:
    /// every member optional, plus `api_key` and `env`); a malformed
    /// document is a `config` error naming what is wrong.
    pub fn from_config_json(json: &[u8], entropy: Entropy) -> Result<Client, ClientError> {
        Client::new(ClientConfig::from_json(json)?, entropy)
    }

    /// [`Client::from_config_json`] seeded from the operating system's
    /// generator (the configuration's `seed`, when set, wins).
    #[cfg(feature = "os-entropy")]
    pub fn from_config_json_os(json: &[u8]) -> Result<Client, ClientError> {
        let entropy = Entropy::from_os().map_err(|error| ClientError::InvalidConfig {
            field: "entropy".into(),
            problem: format!("the operating system gave no random bytes ({error})"),
        })?;
        Client::from_config_json(json, entropy)
    }

    /// Starts the call a call spec's JSON describes (see [`CallSpec`]);
    /// refused before any I/O when it is malformed or invalid.
    pub fn start_json(&mut self, spec: &[u8]) -> Result<CallId, ClientError> {
        let spec = CallSpec::from_json(spec)?;
        self.start(spec)
    }

    /// The answer to `call`'s request in flight: its status, its header
    /// block (read by [`parse_header_block`]) and its body bytes.
    pub fn respond(
        &mut self,
        call: CallId,
        status: u16,
        header_block: &str,
        body: Vec<u8>,
        now: impl Into<UnixMillis>,
    ) -> Result<(), ClientError> {
        let headers =
            parse_header_block(header_block).map_err(|problem| ClientError::InvalidInput {
                input: "response header block".into(),
                problem: problem.to_string(),
            })?;
        let response = HttpResponse {
            status,
            headers,
            body,
        };
        self.handle(call, Outcome::Response(response), now)
    }

    /// `call`'s request in flight failed in transport; `kind` is one of
    /// [`parse_failure`]'s names.
    pub fn fail(
        &mut self,
        call: CallId,
        kind: &str,
        now: impl Into<UnixMillis>,
    ) -> Result<(), ClientError> {
        let failure = parse_failure(kind)?;
        self.handle(call, Outcome::Transport(failure), now)
    }

    /// The throttle's current view of each limit, in key order.
    pub fn limits(&self) -> Vec<LimitView> {
        self.throttle()
            .models()
            .map(|model| LimitView {
                name: model.name.clone(),
                requests: model.limit,
                window_seconds: ceil_seconds(model.window_ms).as_secs(),
                remaining: model.remaining,
                reset_at: model.window_end,
            })
            .collect()
    }

    /// [`Client::limits`] as a JSON array.
    pub fn limits_json(&self) -> String {
        serde_json::to_string(&self.limits()).unwrap_or_else(|_| "[]".to_owned())
    }
}

/// An instant a host passes as signed Unix milliseconds (Kotlin's and
/// Python's integers); a negative one is refused.
pub fn millis_from_signed(now_ms: i64) -> Result<UnixMillis, ClientError> {
    u64::try_from(now_ms)
        .map(UnixMillis::new)
        .map_err(|_| ClientError::InvalidInput {
            input: "time".into(),
            problem: format!("{now_ms} is negative; pass Unix milliseconds (0 or more)"),
        })
}

/// The largest integer a JavaScript number holds exactly (2^53 - 1).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// A whole number a host passes as a JavaScript number (an instant in Unix
/// milliseconds, or a call id): finite, whole, 0 to 2^53 - 1.
pub fn whole_from_f64(value: f64, what: &str) -> Result<u64, ClientError> {
    if value.is_finite() && value.fract() == 0.0 && (0.0..=MAX_SAFE_INTEGER).contains(&value) {
        // In range and whole, so the conversion is exact.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        return Ok(value as u64);
    }
    Err(ClientError::InvalidInput {
        input: what.into(),
        problem: format!("{value} is not a whole number from 0 to 2^53 - 1"),
    })
}
