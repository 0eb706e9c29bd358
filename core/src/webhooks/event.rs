//! Webhook payloads: `{"type", "timestamp", "data"}` (Standard Webhooks),
//! and the run lifecycle events carried in them,
//! `{"type": "run.<status>", "timestamp": RFC 3339, "data": {"run": Run}}`.

use super::WebhookError;
use crate::UnixMillis;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A verified webhook: the message id and time from the headers, and the
/// decoded payload. JSON:
/// `{"id", "webhook_timestamp", "type", "timestamp", "data"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WebhookEvent {
    /// `webhook-id`: the message id, the same on every attempt (the key of
    /// an idempotent handler; see [`super::ReplayGuard`]).
    pub id: String,
    /// `webhook-timestamp`: when this attempt was signed, Unix seconds.
    pub webhook_timestamp: u64,
    /// The payload's `type`, e.g. `run.succeeded`.
    #[serde(rename = "type")]
    pub event_type: String,
    /// The payload's `timestamp`: when the event happened (RFC 3339, UTC).
    pub timestamp: String,
    /// The payload's `data` object.
    pub data: Value,
}

#[derive(Deserialize)]
struct Payload {
    #[serde(rename = "type")]
    event_type: String,
    timestamp: String,
    data: Map<String, Value>,
}

impl WebhookEvent {
    /// Decodes a (verified) body: `bad_payload` unless it is a JSON object
    /// with a string `type`, a string `timestamp` and an object `data`
    /// (other members are ignored).
    pub(super) fn decode(
        id: String,
        webhook_timestamp: u64,
        body: &[u8],
    ) -> Result<Self, WebhookError> {
        let payload: Payload =
            serde_json::from_slice(body).map_err(|error| WebhookError::BadPayload {
                reason: format!(
                    "expected {{\"type\": string, \"timestamp\": string, \"data\": object}} ({error})"
                ),
            })?;
        Ok(Self {
            id,
            webhook_timestamp,
            event_type: payload.event_type,
            timestamp: payload.timestamp,
            data: Value::Object(payload.data),
        })
    }

    /// The run lifecycle event this is, decoded: `bad_payload` when the
    /// type is not a run event type or `data.run` is not a run.
    pub fn run_event(&self) -> Result<RunEvent, WebhookError> {
        let kind =
            RunEventType::parse(&self.event_type).ok_or_else(|| WebhookError::BadPayload {
                reason: format!("{:?} is not a run event type", self.event_type),
            })?;
        let run = self
            .data
            .get("run")
            .cloned()
            .ok_or_else(|| WebhookError::BadPayload {
                reason: "data has no run member".to_owned(),
            })?;
        let run: RunObject =
            serde_json::from_value(run).map_err(|error| WebhookError::BadPayload {
                reason: format!("data.run is not a run with a string id and status ({error})"),
            })?;
        Ok(RunEvent {
            kind,
            timestamp: self.timestamp.clone(),
            run,
        })
    }
}

/// The run lifecycle event types. A run's status `s` is announced as
/// `run.s`; the three terminal statuses (`succeeded`, `failed`,
/// `cancelled`) each have their own type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RunEventType {
    /// `run.queued`: the run was created and waits to start.
    #[serde(rename = "run.queued")]
    Queued,
    /// `run.running`: the run started.
    #[serde(rename = "run.running")]
    Running,
    /// `run.succeeded`: the run ended well (terminal).
    #[serde(rename = "run.succeeded")]
    Succeeded,
    /// `run.failed`: the run ended in failure (terminal).
    #[serde(rename = "run.failed")]
    Failed,
    /// `run.cancelled`: the run was cancelled (terminal).
    #[serde(rename = "run.cancelled")]
    Cancelled,
}

impl RunEventType {
    /// Every run event type, in lifecycle order.
    pub const ALL: [Self; 5] = [
        Self::Queued,
        Self::Running,
        Self::Succeeded,
        Self::Failed,
        Self::Cancelled,
    ];

    /// The wire name, e.g. `run.succeeded`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "run.queued",
            Self::Running => "run.running",
            Self::Succeeded => "run.succeeded",
            Self::Failed => "run.failed",
            Self::Cancelled => "run.cancelled",
        }
    }

    /// The type of a wire name, `None` for any other name.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == name)
    }

    /// The event announcing a run's `status`; `None` for a status without
    /// an event type (a server-specific intermediate status).
    pub fn for_status(status: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|kind| kind.as_str().strip_prefix("run.") == Some(status))
    }

    /// Whether the run has ended with this event (no later event follows).
    pub const fn is_terminal(self) -> bool {
        matches!(self, Self::Succeeded | Self::Failed | Self::Cancelled)
    }
}

impl std::fmt::Display for RunEventType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A run as a webhook carries it: its `id` and `status`, and every other
/// member as sent (the spec shows no run fields).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunObject {
    /// The run's id.
    pub id: String,
    /// The run's status when the event happened.
    pub status: String,
    /// The other members.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A decoded run lifecycle event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunEvent {
    /// The event's type.
    #[serde(rename = "type")]
    pub kind: RunEventType,
    /// When it happened (RFC 3339, UTC).
    pub timestamp: String,
    /// The run.
    pub run: RunObject,
}

/// The body of a run lifecycle event: `{"type", "timestamp", "data":
/// {"run": run}}`, with `timestamp` the RFC 3339 form of `at`.
pub fn run_event_body(kind: RunEventType, run: &Value, at: UnixMillis) -> Vec<u8> {
    event_body(kind.as_str(), &serde_json::json!({ "run": run }), at)
}

/// The body of any event: `{"type", "timestamp", "data"}`.
pub fn event_body(event_type: &str, data: &Value, at: UnixMillis) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "type": event_type,
        "timestamp": rfc3339(at),
        "data": data,
    }))
    .unwrap_or_default()
}

/// `at` as RFC 3339 in UTC with milliseconds, e.g.
/// `2023-11-14T22:13:20.000Z` (years past 9999 are clamped to 9999).
#[allow(
    clippy::arithmetic_side_effects,
    reason = "bounded calendar arithmetic on a clamped u64 (Howard Hinnant's civil_from_days)"
)]
pub fn rfc3339(at: UnixMillis) -> String {
    // 253402300799999 ms is 9999-12-31T23:59:59.999Z.
    let ms = at.as_millis().min(253_402_300_799_999);
    let millis = ms % 1000;
    let secs = ms / 1000;
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (hour, minute, second) = (rem / 3600, rem % 3600 / 60, rem % 60);
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{millis:03}Z")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_known_instants() {
        assert_eq!(rfc3339(UnixMillis::ZERO), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            rfc3339(UnixMillis::new(1_700_000_000_123)),
            "2023-11-14T22:13:20.123Z"
        );
        assert_eq!(
            rfc3339(UnixMillis::new(951_782_400_000)),
            "2000-02-29T00:00:00.000Z"
        );
        assert_eq!(rfc3339(UnixMillis::MAX), "9999-12-31T23:59:59.999Z");
    }

    #[test]
    fn statuses_map_to_their_types() {
        assert_eq!(
            RunEventType::for_status("queued"),
            Some(RunEventType::Queued)
        );
        assert_eq!(
            RunEventType::for_status("cancelled"),
            Some(RunEventType::Cancelled)
        );
        assert_eq!(RunEventType::for_status("preparing"), None);
        assert!(RunEventType::Failed.is_terminal());
        assert!(!RunEventType::Running.is_terminal());
    }
}
