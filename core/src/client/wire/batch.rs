//! [`Batch`]: what one [`Client::poll`] hands out — every transmit that may
//! go now, every event, the next wake-up — and its JSON, the one crossing a
//! binding makes per step. Every transmit carries the core's defaults a
//! transport needs: `timeout_at` (never later than
//! [`DEFAULT_EXCHANGE_TIMEOUT_MS`] after the send) and `max_body_bytes`.

use crate::client::calls::CallId;
use crate::client::config::DEFAULT_EXCHANGE_TIMEOUT_MS;
use crate::client::driver::{Client, Transmit};
use crate::client::event::Event;
use crate::client::notice::{notice_levels, NoticeLevel};
use crate::UnixMillis;
use serde::Serialize;

/// Everything one poll of the client gives.
#[derive(Debug, Clone, PartialEq)]
pub struct Batch {
    /// Requests to send now (their sends are recorded at the poll's `now`).
    pub transmits: Vec<Transmit>,
    /// Events of every call, in order.
    pub events: Vec<(CallId, Event)>,
    /// When to poll again if no outcome arrives first (`None`: nothing
    /// waits on time).
    pub timeout: Option<UnixMillis>,
    /// The largest response body a transport reads (the client's
    /// [`crate::client::ClientConfig::max_body_bytes`]), on every transmit's
    /// JSON.
    pub max_body_bytes: u64,
    /// How loudly to say each event (its `level` member; `None` for events
    /// that are not notices), one per event.
    pub levels: Vec<Option<NoticeLevel>>,
}

impl Client {
    /// Sends every transmit that may go at `now` (recording the sends),
    /// drains every event, and reports the next wake-up.
    pub fn poll(&mut self, now: impl Into<UnixMillis>) -> Batch {
        let now = now.into();
        let mut transmits = Vec::new();
        let exchange_ends = now.saturating_add(DEFAULT_EXCHANGE_TIMEOUT_MS);
        while let Some(mut transmit) = self.poll_transmit(now) {
            // Every exchange ends by the core's default at the latest.
            transmit.timeout_at = Some(
                transmit
                    .timeout_at
                    .map_or(exchange_ends, |at| at.min(exchange_ends)),
            );
            transmits.push(transmit);
        }
        let events: Vec<(CallId, Event)> = self.events.drain(..).collect();
        let levels = notice_levels(&events, now);
        Batch {
            transmits,
            events,
            timeout: self.poll_timeout(),
            max_body_bytes: self.config.max_body_bytes,
            levels,
        }
    }

    /// [`Client::poll`] as the protocol's batch JSON. Transmit headers keep
    /// every byte, credentials included (the transport needs them): never
    /// log this text.
    pub fn poll_json(&mut self, now: impl Into<UnixMillis>) -> String {
        self.poll(now).to_json()
    }
}

#[derive(Serialize)]
struct TransmitJson<'a> {
    call: CallId,
    method: &'a str,
    url: &'a str,
    headers: &'a [(String, String)],
    body: Option<std::borrow::Cow<'a, str>>,
    timeout_at: Option<UnixMillis>,
    max_body_bytes: u64,
}

#[derive(Serialize)]
struct CallEvent<'a> {
    call: CallId,
    #[serde(flatten)]
    event: &'a Event,
    #[serde(skip_serializing_if = "Option::is_none")]
    level: Option<NoticeLevel>,
}

#[derive(Serialize)]
struct BatchJson<'a> {
    transmits: Vec<TransmitJson<'a>>,
    events: Vec<CallEvent<'a>>,
    timeout: Option<UnixMillis>,
}

impl Batch {
    /// The protocol's batch JSON (credential headers included as sent).
    pub fn to_json(&self) -> String {
        let batch = BatchJson {
            transmits: self
                .transmits
                .iter()
                .map(|transmit| TransmitJson {
                    call: transmit.id,
                    method: &transmit.request.method,
                    url: &transmit.request.url,
                    headers: &transmit.request.headers,
                    body: transmit
                        .request
                        .body
                        .as_deref()
                        .map(String::from_utf8_lossy),
                    timeout_at: transmit.timeout_at,
                    max_body_bytes: self.max_body_bytes,
                })
                .collect(),
            events: self
                .events
                .iter()
                .enumerate()
                .map(|(index, (call, event))| CallEvent {
                    call: *call,
                    event,
                    level: self.levels.get(index).copied().flatten(),
                })
                .collect(),
            timeout: self.timeout,
        };
        // Nothing in a batch can fail to serialise (no map has non-string
        // keys, every raw value is valid JSON).
        serde_json::to_string(&batch).unwrap_or_default()
    }
}
