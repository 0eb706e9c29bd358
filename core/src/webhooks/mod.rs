//! Webhooks for run lifecycle updates, on the Standard Webhooks
//! specification (standardwebhooks.com), sans-IO (feature `webhooks`):
//!
//! * [`sign`] / [`signed_headers`] and [`verify`] / [`Verifier`]:
//!   HMAC-SHA256 (RustCrypto `hmac` + `sha2`, constant-time comparison) over
//!   `{webhook-id}.{webhook-timestamp}.{raw body}`, several secrets
//!   (rotation), several signatures per header, unknown versions ignored,
//!   a tolerance (default 5 minutes) against a `now` the caller passes;
//! * [`Secret`], a key read from `whsec_<base64>`;
//! * [`ReplayGuard`]: a bounded memory of recent `webhook-id`s;
//! * [`RunEventType`], [`RunEvent`], [`run_event_body`]: the run lifecycle
//!   events `run.queued`, `run.running`, `run.succeeded`, `run.failed`,
//!   `run.cancelled` with payload `{"type", "timestamp", "data": {"run"}}`;
//! * [`DeliveryPlanner`]: the sender's retry schedule as a state machine;
//! * [`wire`]: verification and signing as JSON, what the bindings forward.
//!
//! Every error is a [`WebhookError`] whose [`WebhookError::code`] SDKs
//! forward. The choices the specification leaves open are in
//! `docs/webhooks.md`.

mod delivery;
mod error;
mod event;
mod replay;
mod secret;
mod signature;
pub mod wire;

pub use delivery::*;
pub use error::WebhookError;
pub use event::{
    event_body, rfc3339, run_event_body, RunEvent, RunEventType, RunObject, WebhookEvent,
};
pub use replay::{ReplayGuard, Seen, DEFAULT_REPLAY_CAPACITY, DEFAULT_REPLAY_WINDOW_MS};
pub use secret::{Secret, GENERATED_SECRET_BYTES, MAX_SECRET_BYTES, SECRET_PREFIX};
pub use signature::{
    parse_headers, parse_signatures, parse_timestamp, sign, signed_headers, verify, Verifier,
    WebhookHeaders, DEFAULT_TOLERANCE_MS, HEADER_ID, HEADER_SIGNATURE, HEADER_TIMESTAMP,
    MAX_ID_BYTES, MAX_PAYLOAD_BYTES, MAX_SIGNATURES, MAX_SIGNATURE_HEADER_BYTES,
};
