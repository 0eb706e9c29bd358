//! What a simulation records: a trace of every step, per-client figures,
//! and the invariants it checked.

use crate::client::{TransportFailure, WaitReason};
use serde::{Deserialize, Serialize};

/// One step of one job, at a virtual instant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceEvent {
    /// Milliseconds after the simulation's start (server clock).
    pub at_ms: u64,
    /// The client's index.
    pub client: usize,
    /// The job's index within the client.
    pub job: usize,
    /// What happened.
    pub what: TraceKind,
}

/// What happened in one trace step.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TraceKind {
    /// A request was sent.
    Send {
        /// Method.
        method: String,
        /// Path and query.
        target: String,
        /// Attempt number of its logical call.
        attempt: u32,
    },
    /// A response arrived.
    Response {
        /// Status.
        status: u16,
        /// Whether it was injected.
        injected: bool,
    },
    /// No response arrived.
    Transport {
        /// How it failed.
        failure: TransportFailure,
    },
    /// The job waits (caller's clock converted to ms after start).
    Wait {
        /// Until, ms after start.
        until_ms: u64,
    },
    /// A retry was planned.
    Retry {
        /// When, ms after start.
        at_ms: u64,
        /// Why it waits that long (`retry_after` or `backoff`).
        reason: WaitReason,
        /// Budget tokens spent (from the client's budget delta).
        cost: u32,
    },
    /// A page was delivered.
    Page {
        /// Records in it.
        records: usize,
        /// Whether it was the last.
        last: bool,
    },
    /// A run poll answered.
    Poll {
        /// The run's state.
        state: String,
    },
    /// The job finished successfully.
    Done,
    /// The job failed.
    Failed {
        /// The error sentence.
        error: String,
    },
}

/// Figures of one client instance.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientSummary {
    /// Its name.
    pub name: String,
    /// Requests sent.
    pub requests_sent: u64,
    /// 429 responses received.
    pub responses_429: u64,
    /// 429s it could have avoided (none of its limits shared with others).
    pub avoidable_429: u64,
    /// Retries planned.
    pub retries: u64,
    /// Budget tokens spent on retries, summed from the trace.
    pub budget_spent: u64,
    /// Budget tokens refunded, from the client.
    pub budget_refunded: u64,
    /// Jobs finished successfully.
    pub jobs_done: usize,
    /// Jobs failed.
    pub jobs_failed: usize,
}

/// The result of a simulation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SimReport {
    /// Requests sent by all clients.
    pub requests_sent: u64,
    /// 429 responses.
    pub responses_429: u64,
    /// 429s a client could have avoided.
    pub avoidable_429: u64,
    /// Retries planned.
    pub retries: u64,
    /// Failures injected.
    pub faults_injected: u64,
    /// Virtual time from start to the last event, in ms.
    pub elapsed_ms: u64,
    /// Whether every job finished successfully in time.
    pub completed: bool,
    /// Broken invariants, one sentence each (empty when all held).
    pub violations: Vec<String>,
    /// Per-client figures.
    pub clients: Vec<ClientSummary>,
    /// Every step.
    pub trace: Vec<TraceEvent>,
    /// The same simulation with naive clients (no proactive throttling,
    /// only `Retry-After` honoured), when [`super::SimConfig::naive_baseline`]
    /// asked for it.
    pub baseline: Option<Baseline>,
}

/// Figures of the naive baseline run, next to the throttled run's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Baseline {
    /// Requests sent by all naive clients.
    pub requests_sent: u64,
    /// 429 responses they received.
    pub responses_429: u64,
    /// Retries they planned.
    pub retries: u64,
    /// Virtual time to their last event, in ms.
    pub elapsed_ms: u64,
    /// Whether every naive job finished successfully.
    pub completed: bool,
    /// 429s the throttle avoided: the baseline's minus the throttled run's
    /// (negative if the throttled run met more).
    pub avoided_429: i64,
}

impl SimReport {
    /// A 64-bit FNV-1a digest of the trace: equal traces, equal digests.
    pub fn trace_digest(&self) -> u64 {
        let bytes = serde_json::to_vec(&self.trace).unwrap_or_default();
        bytes.iter().fold(0xCBF2_9CE4_8422_2325, |hash, &byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01B3)
        })
    }

    /// A one-line summary: requests, 429s, retries, virtual seconds, and
    /// the naive baseline's figures when there is one.
    pub fn summary(&self) -> String {
        let baseline = self.baseline.as_ref().map_or(String::new(), |b| {
            format!(
                "; naive baseline: {} requests, {} x 429, {:.1} virtual s, {}",
                b.requests_sent,
                b.responses_429,
                b.elapsed_ms as f64 / 1_000.0,
                if b.completed {
                    "completed"
                } else {
                    "NOT completed"
                }
            )
        });
        format!(
            "{} requests, {} x 429 ({} avoidable), {} retries, {} faults, {:.1} virtual s, {}{baseline}",
            self.requests_sent,
            self.responses_429,
            self.avoidable_429,
            self.retries,
            self.faults_injected,
            self.elapsed_ms as f64 / 1_000.0,
            if self.completed {
                "completed"
            } else {
                "NOT completed"
            }
        )
    }
}
