//! What the driver tells its caller: one [`Event`] enum for every kind of
//! call (single request, pager, run poller), drained with
//! [`super::Client::poll_event`].
//!
//! Every call ends with exactly one [`Event::Done`] or [`Event::Failed`];
//! its data events ([`Event::Response`], [`Event::Page`],
//! [`Event::RunStatus`]) come before it. [`Event::Waiting`],
//! [`Event::Retrying`] and [`Event::Deprecation`] carry one human sentence
//! ([`Event::message`]) every language logs as is. The JSON form is the
//! driver protocol's (`docs/driver-protocol.md`, written in `wire`).

use super::deprecation::DeprecationWarning;
use super::error::ClientError;
use super::http::TransportFailure;
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
    /// Whether the server announced these numbers (not in the JSON: the
    /// wait's `message` says it).
    #[serde(skip)]
    pub origin: LimitOrigin,
}

/// Where a waited-for limit's numbers come from, as a wait's sentence
/// names them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LimitOrigin {
    /// The catalogue or the configuration: nothing from the server.
    #[default]
    Assumed,
    /// The server's headers gave the count, not the window's length (the
    /// window shown is the assumed one).
    ServerCount,
    /// The server gave count and window (its headers or its index).
    ServerWindow,
}

/// Something that happened to one call. Its JSON (`Serialize`) is the
/// driver protocol's event object without the `call` member.
#[non_exhaustive]
#[derive(Debug, Clone)]
pub enum Event {
    /// A single call's successful result, with the headers it came with.
    Response {
        /// The interpreted answer.
        response: ApiResponse,
        /// The response's headers, in order.
        headers: Vec<(String, String)>,
    },
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
        /// One sentence: what waits, how long, for which limit.
        message: String,
    },
    /// An attempt failed and another is planned (a `Waiting` for it follows).
    Retrying {
        /// The number of the next attempt (2 for the first retry).
        attempt: u32,
        /// The most attempts the call's request may make.
        max_attempts: u32,
        /// When the next attempt goes (not earlier).
        at: UnixMillis,
        /// The status of the failed attempt, when it was answered.
        status: Option<u16>,
        /// How the failed attempt's transport failed, when it was not answered.
        failure: Option<TransportFailure>,
        /// One sentence: what failed, the attempt, when the next goes.
        message: String,
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

    /// The sentence a host logs for this event: a wait's, a retry's or a
    /// deprecation's; `None` for the other events.
    pub fn message(&self) -> Option<String> {
        match self {
            Event::Waiting { message, .. } | Event::Retrying { message, .. } => {
                Some(message.clone())
            }
            Event::Deprecation(warning) => Some(super::notice::deprecation_message(warning)),
            _ => None,
        }
    }
}

fn same_raw(a: &[Box<RawValue>], b: &[Box<RawValue>]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.get() == y.get())
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (
                Event::Response {
                    response: a,
                    headers: ha,
                },
                Event::Response {
                    response: b,
                    headers: hb,
                },
            ) => a == b && ha == hb,
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
                    message: ma,
                },
                Event::Waiting {
                    until: b,
                    limit: lb,
                    reason: rb,
                    message: mb,
                },
            ) => a == b && la == lb && ra == rb && ma == mb,
            (
                Event::Retrying {
                    attempt: a,
                    max_attempts: ma,
                    at: ta,
                    status: sa,
                    failure: fa,
                    message: ga,
                },
                Event::Retrying {
                    attempt: b,
                    max_attempts: mb,
                    at: tb,
                    status: sb,
                    failure: fb,
                    message: gb,
                },
            ) => a == b && ma == mb && ta == tb && sa == sb && fa == fb && ga == gb,
            (Event::Deprecation(a), Event::Deprecation(b)) => a == b,
            (Event::Done, Event::Done) => true,
            (Event::Failed(a), Event::Failed(b)) => a == b,
            _ => false,
        }
    }
}
