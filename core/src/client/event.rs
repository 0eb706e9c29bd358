//! What the driver tells its caller: one [`Event`] enum for every kind of
//! call (single request, pager, run poller), drained with
//! [`super::Client::poll_event`].
//!
//! Every call ends with exactly one [`Event::Done`] or [`Event::Failed`];
//! its data events ([`Event::Response`], [`Event::Page`],
//! [`Event::RunStatus`]) come before it.

use super::deprecation::DeprecationWarning;
use super::error::ClientError;
use super::response::ApiResponse;
use super::throttle::WaitReason;
use crate::time::Seconds;
use crate::UnixMillis;
use serde::Serialize;
use serde_json::value::RawValue;

/// The limit a call waits for, as the client models it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LimitInfo {
    /// The limit's name, e.g. `user_table_reads`.
    pub name: String,
    /// Requests per window.
    pub requests: u64,
    /// The window, in whole seconds (rounded up).
    pub window_seconds: Seconds,
}

/// Something that happened to one call.
#[non_exhaustive]
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A single call's successful result.
    Response(ApiResponse),
    /// One page of a pager; `last` when the pager is over after it.
    Page {
        /// The records, raw JSON objects as received.
        records: Vec<Box<RawValue>>,
        /// The page's number: 1 for the first page.
        page: u64,
        /// Whether this was the final page.
        last: bool,
    },
    /// A run poll answered (emitted when the status changes, and for the
    /// terminal one).
    RunStatus {
        /// The run's status.
        status: String,
        /// Whether it is terminal (the poller is over).
        terminal: bool,
        /// The run object as received.
        run: Box<RawValue>,
    },
    /// The call waits until `until` (throttle, Retry-After, backoff, poll
    /// interval). Emitted once per wait.
    Waiting {
        /// The instant (caller's clock).
        until: UnixMillis,
        /// The limit that makes it wait, when one does.
        limit: Option<LimitInfo>,
        /// Why.
        reason: WaitReason,
    },
    /// A Deprecation/Sunset notice for the call's operation (once per
    /// operation per client, and again only when it changes).
    Deprecation(DeprecationWarning),
    /// The call ended successfully (always the last event of a call that did
    /// not fail).
    Done,
    /// The call ended with this error (always the last event of a failed call).
    Failed(ClientError),
}

impl Event {
    /// Whether this is the last event of its call (`Done` or `Failed`).
    pub fn is_final(&self) -> bool {
        matches!(self, Event::Done | Event::Failed(_))
    }
}

fn same_raw(a: &[Box<RawValue>], b: &[Box<RawValue>]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.get() == y.get())
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Event::Response(a), Event::Response(b)) => a == b,
            (
                Event::Page {
                    records: a,
                    page: pa,
                    last: la,
                },
                Event::Page {
                    records: b,
                    page: pb,
                    last: lb,
                },
            ) => pa == pb && la == lb && same_raw(a, b),
            (
                Event::RunStatus {
                    status: a,
                    terminal: ta,
                    run: ra,
                },
                Event::RunStatus {
                    status: b,
                    terminal: tb,
                    run: rb,
                },
            ) => a == b && ta == tb && ra.get() == rb.get(),
            (
                Event::Waiting {
                    until: a,
                    limit: la,
                    reason: ra,
                },
                Event::Waiting {
                    until: b,
                    limit: lb,
                    reason: rb,
                },
            ) => a == b && la == lb && ra == rb,
            (Event::Deprecation(a), Event::Deprecation(b)) => a == b,
            (Event::Done, Event::Done) => true,
            (Event::Failed(a), Event::Failed(b)) => a == b,
            _ => false,
        }
    }
}
