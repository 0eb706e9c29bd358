//! The delivery planner's configuration, inputs and outputs.

use crate::webhooks::Secret;
use crate::UnixMillis;
use serde::Serialize;
use std::sync::Arc;

/// The default schedule: the delay before each attempt, counted from when
/// the previous attempt was due (the first from when the event was
/// enqueued): immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h.
pub const DEFAULT_SCHEDULE_MS: [u64; 8] = [
    0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
];
/// How long an attempt may take before it counts as failed: 15 s.
pub const DEFAULT_ATTEMPT_TIMEOUT_MS: u64 = 15_000;
/// Deliveries not yet finished that one endpoint may have.
pub const DEFAULT_MAX_PENDING_PER_ENDPOINT: usize = 1_000;
/// Attempts one endpoint may have in flight at once.
pub const DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT: usize = 4;
/// Finished deliveries kept for redelivery (the oldest is forgotten first).
pub const DEFAULT_MAX_FINISHED: usize = 1_000;
/// The most endpoints one planner serves.
pub const MAX_ENDPOINTS: usize = 64;
/// The most attempts in a schedule.
pub const MAX_SCHEDULE_ATTEMPTS: usize = 32;

/// How a planner delivers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannerConfig {
    /// The delay before each attempt (see [`DEFAULT_SCHEDULE_MS`]); its
    /// length is the number of attempts (1 to [`MAX_SCHEDULE_ATTEMPTS`]).
    pub schedule_ms: Vec<u64>,
    /// How long an attempt may take (at least 1 ms).
    pub attempt_timeout_ms: u64,
    /// Deliveries not yet finished per endpoint (at least 1); one more
    /// drops the endpoint's oldest waiting delivery.
    pub max_pending_per_endpoint: usize,
    /// Attempts in flight per endpoint (at least 1).
    pub max_in_flight_per_endpoint: usize,
    /// Finished deliveries kept for redelivery.
    pub max_finished: usize,
}

impl Default for PlannerConfig {
    fn default() -> Self {
        Self {
            schedule_ms: DEFAULT_SCHEDULE_MS.to_vec(),
            attempt_timeout_ms: DEFAULT_ATTEMPT_TIMEOUT_MS,
            max_pending_per_endpoint: DEFAULT_MAX_PENDING_PER_ENDPOINT,
            max_in_flight_per_endpoint: DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT,
            max_finished: DEFAULT_MAX_FINISHED,
        }
    }
}

/// Why a planner could not be configured or could not act.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlannerError {
    /// The configuration is out of its bounds.
    #[error("the delivery configuration is invalid: {0}")]
    Config(&'static str),
    /// [`MAX_ENDPOINTS`] endpoints are configured already.
    #[error("at most {MAX_ENDPOINTS} webhook endpoints can be configured")]
    TooManyEndpoints,
    /// An endpoint has no secret.
    #[error("the webhook endpoint {0} has no secret")]
    NoSecret(String),
    /// No delivery has this id (or it was forgotten).
    #[error("no webhook delivery {0} is known; it may have been forgotten (only the last deliveries are kept)")]
    UnknownDelivery(DeliveryId),
    /// The delivery has an attempt in flight; redeliver once it ends.
    #[error("the webhook delivery {0} has an attempt in flight; try again when it ends")]
    InFlight(DeliveryId),
    /// The endpoint's queue is full.
    #[error("the endpoint of webhook delivery {0} has a full queue; try again later")]
    QueueFull(DeliveryId),
}

/// An endpoint: where to send, the secrets to sign with (several during a
/// rotation: one signature each) and the event types it receives (empty:
/// every type; otherwise exact names).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The URL each attempt is POSTed to.
    pub url: String,
    /// The signing secrets (at least one).
    pub secrets: Vec<Secret>,
    /// The event types sent to it; empty for all.
    pub event_types: Vec<String>,
}

impl Endpoint {
    /// Whether events of `event_type` go to this endpoint.
    pub fn wants(&self, event_type: &str) -> bool {
        self.event_types.is_empty() || self.event_types.iter().any(|t| t == event_type)
    }
}

/// An endpoint's index in its planner, in the order they were added.
pub type EndpointId = usize;

/// A delivery's id: one event to one endpoint.
pub type DeliveryId = u64;

/// An attempt's id.
pub type AttemptId = u64;

/// An event to deliver: its message id (`webhook-id`, the same on every
/// attempt and every endpoint), its type and its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutgoingEvent {
    /// The message id, e.g. `msg_1`.
    pub id: String,
    /// The payload's type, e.g. `run.succeeded`.
    pub event_type: String,
    /// The payload bytes (sent as they are, signed as they are).
    pub body: Arc<[u8]>,
}

/// One attempt to send: POST `body` with `headers` to `url`, and report
/// the outcome with [`super::DeliveryPlanner::handle`] by `deadline`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryTransmit {
    /// This attempt's id.
    pub attempt: AttemptId,
    /// The delivery it belongs to.
    pub delivery: DeliveryId,
    /// The endpoint.
    pub endpoint: EndpointId,
    /// The endpoint's URL.
    pub url: String,
    /// `content-type`, `webhook-id`, `webhook-timestamp` (now) and
    /// `webhook-signature` (one `v1` entry per secret).
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Arc<[u8]>,
    /// The message id.
    pub event_id: String,
    /// The event type.
    pub event_type: String,
    /// 1 for the first attempt, counting redeliveries.
    pub number: u32,
    /// When the attempt counts as timed out.
    pub deadline: UnixMillis,
}

/// What came of an attempt, as the caller saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttemptOutcome {
    /// A response with this status (2xx is success, anything else failure).
    Response(u16),
    /// No response: the connection failed (a person-readable reason).
    Error(String),
}

/// How an attempt ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum AttemptResult {
    /// A 2xx response within the timeout.
    Succeeded {
        /// The HTTP status.
        status: u16,
    },
    /// A response other than 2xx.
    Failed {
        /// The HTTP status.
        status: u16,
    },
    /// No response within the timeout.
    TimedOut,
    /// No response: the connection failed.
    Error {
        /// Why.
        reason: String,
    },
}

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryState {
    /// Waiting for its next attempt.
    Pending,
    /// An attempt is in flight.
    InFlight,
    /// An attempt succeeded.
    Succeeded,
    /// The last attempt of the schedule (or a redelivery) failed.
    GaveUp,
    /// Dropped unsent because its endpoint's queue was full.
    Dropped,
}

/// What the planner reports through [`super::DeliveryPlanner::poll_event`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeliveryRecord {
    /// The attempt's id (`None` for a delivery dropped unsent).
    pub attempt: Option<AttemptId>,
    /// The delivery.
    pub delivery: DeliveryId,
    /// The message id.
    pub event_id: String,
    /// The event type.
    pub event_type: String,
    /// The endpoint.
    pub endpoint: EndpointId,
    /// The endpoint's URL.
    pub url: String,
    /// The attempt's number (1-based; 0 for a drop).
    pub number: u32,
    /// When the attempt started (or the drop happened).
    pub started: UnixMillis,
    /// When its outcome was known.
    pub finished: UnixMillis,
    /// How it ended (`None` for a drop).
    pub result: Option<AttemptResult>,
    /// The delivery's state afterwards.
    pub state: DeliveryState,
    /// When the next attempt is due, if any.
    pub next_attempt: Option<UnixMillis>,
}

/// A delivery as the planner holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeliveryInfo {
    /// Its id.
    pub id: DeliveryId,
    /// The message id.
    pub event_id: String,
    /// The event type.
    pub event_type: String,
    /// The endpoint.
    pub endpoint: EndpointId,
    /// Where it stands.
    pub state: DeliveryState,
    /// Attempts made so far.
    pub attempts: u32,
    /// When the next attempt is due, if any.
    pub next_attempt: Option<UnixMillis>,
}
