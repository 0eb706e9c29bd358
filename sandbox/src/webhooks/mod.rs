//! Webhook deliveries of run lifecycle events (docs/webhooks.md): the
//! endpoints of `webhooks.endpoints` and `--webhook URL`, the core's
//! [`DeliveryPlanner`] on the sandbox's clock, the attempt log behind
//! `GET /_sandbox/webhooks/deliveries`, and redelivery.
//!
//! Creating a run records its lifecycle's transitions (one event per
//! status with an event type, at the time the status begins); the
//! dispatcher task ([`dispatch::run`]) turns due transitions into events
//! and sends due attempts, on its own task: the API only takes a lock to
//! record a run, never waits for a delivery. With `--clock manual` the
//! dispatcher walks virtual time step by step up to the clock (so one
//! `POST /_sandbox/clock` of a day runs every retry due in that day), and
//! the clock route answers once it has caught up.
//!
//! Bounds: [`MAX_TRANSITIONS`] transitions waiting (the oldest dropped),
//! the planner's per-endpoint queue, and [`MAX_LOG`] attempt entries.

pub mod config;
pub mod dispatch;
pub mod openapi;
pub mod routes;

use acd_core::webhooks::{
    run_event_body, DeliveryPlanner, DeliveryRecord, Endpoint, OutgoingEvent, PlannerConfig,
    PlannerError, RunEventType,
};
use acd_core::UnixMillis;
use config::{CheckedEndpoint, DeliveryFaults};
use serde_json::{json, Value};
use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::{watch, Notify};

/// Run transitions waiting at most.
pub const MAX_TRANSITIONS: usize = 100_000;
/// Attempt entries kept in the log (the oldest forgotten first).
pub const MAX_LOG: usize = 10_000;

/// A status change of a run, to be announced at `at`.
#[derive(Debug, Clone)]
struct Transition {
    kind: RunEventType,
    run: Value,
}

#[derive(Debug)]
struct State {
    planner: DeliveryPlanner,
    transitions: BTreeMap<(u64, u64), Transition>,
    seq: u64,
    next_event: u64,
    log: VecDeque<Value>,
    faults: Option<(DeliveryFaults, fastrand::Rng)>,
}

/// The webhook side of a sandbox.
#[derive(Debug)]
pub struct Webhooks {
    state: Mutex<State>,
    endpoints: Vec<CheckedEndpoint>,
    wake: Notify,
    generation: AtomicU64,
    caught_up: watch::Sender<(u64, u64)>,
}

/// What the dispatcher does next.
#[derive(Debug)]
pub(crate) enum Step {
    /// Send these attempts, planned at this time.
    Send(u64, Vec<acd_core::webhooks::DeliveryTransmit>),
    /// Nothing due: wait until this time (or a wake).
    Wait(Option<u64>),
}

/// Which fault an attempt gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fault {
    Duplicate,
    OutOfOrder,
    Delayed,
    WrongSignature,
}

impl Fault {
    fn name(self) -> &'static str {
        match self {
            Self::Duplicate => "duplicate",
            Self::OutOfOrder => "out_of_order",
            Self::Delayed => "delayed",
            Self::WrongSignature => "wrong_signature",
        }
    }
}

fn entry(record: &DeliveryRecord, fault: Option<&str>) -> Value {
    let (status, outcome, error) = match &record.result {
        None => (None, "dropped", None),
        Some(acd_core::webhooks::AttemptResult::Succeeded { status }) => {
            (Some(*status), "succeeded", None)
        }
        Some(acd_core::webhooks::AttemptResult::Failed { status }) => {
            (Some(*status), "failed", None)
        }
        Some(acd_core::webhooks::AttemptResult::TimedOut) => (None, "timed_out", None),
        Some(acd_core::webhooks::AttemptResult::Error { reason }) => {
            (None, "error", Some(reason.clone()))
        }
    };
    json!({
        "id": record.attempt.map(|a| format!("att_{a}")),
        "delivery_id": format!("dlv_{}", record.delivery),
        "event_id": record.event_id,
        "type": record.event_type,
        "endpoint": record.url,
        "attempt": record.number,
        "status": status,
        "outcome": outcome,
        "error": error,
        "time_ms": record.started.as_millis(),
        "finished_ms": record.finished.as_millis(),
        "next_attempt_ms": record.next_attempt.map(UnixMillis::as_millis),
        "state": record.state,
        "fault": fault,
    })
}

impl Webhooks {
    /// The webhooks of these endpoints; `None` when there are none. Faults
    /// apply when `faults` (`--faults`) is on.
    pub fn new(
        endpoints: Vec<CheckedEndpoint>,
        faults: Option<DeliveryFaults>,
    ) -> Result<Option<Self>, PlannerError> {
        if endpoints.is_empty() {
            return Ok(None);
        }
        let mut planner = DeliveryPlanner::new(PlannerConfig::default())?;
        for endpoint in &endpoints {
            planner.add_endpoint(Endpoint {
                url: endpoint.url.clone(),
                secrets: vec![endpoint.secret.clone()],
                event_types: endpoint.event_types.clone(),
            })?;
        }
        let faults = faults.map(|f| {
            let rng = fastrand::Rng::with_seed(f.seed);
            (f, rng)
        });
        Ok(Some(Self {
            state: Mutex::new(State {
                planner,
                transitions: BTreeMap::new(),
                seq: 0,
                next_event: 1,
                log: VecDeque::new(),
                faults,
            }),
            endpoints,
            wake: Notify::new(),
            generation: AtomicU64::new(0),
            caught_up: watch::Sender::new((0, 0)),
        }))
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The banner's lines: each endpoint, and the generated secrets.
    pub fn banner_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for endpoint in &self.endpoints {
            let types = if endpoint.event_types.is_empty() {
                "every run event".to_owned()
            } else {
                endpoint.event_types.join(", ")
            };
            lines.push(format!("Webhooks: {} ({types})", endpoint.url));
            if endpoint.generated {
                lines.push(format!("  signing secret: {}", endpoint.secret.to_whsec()));
            }
        }
        lines.push(
            "  deliveries: GET /_sandbox/webhooks/deliveries (with the admin routes)".to_owned(),
        );
        lines
    }

    /// Wakes the dispatcher (something changed).
    pub fn wake(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        self.wake.notify_one();
    }

    /// Records a new run: one transition per status of its lifecycle with
    /// an event type; `steps` are (offset from creation ms, status).
    pub fn run_created(&self, run: &Value, created_ms: u64, steps: &[(u64, String)]) {
        {
            let mut state = self.state();
            for (offset, status) in steps {
                let Some(kind) = RunEventType::for_status(status) else {
                    continue;
                };
                let at = created_ms.saturating_add(*offset);
                let mut snapshot = run.clone();
                if let Some(object) = snapshot.as_object_mut() {
                    object.insert("status".into(), json!(status));
                    object.insert("updated_at_ms".into(), json!(at));
                }
                state.seq = state.seq.saturating_add(1);
                let seq = state.seq;
                if state.transitions.len() >= MAX_TRANSITIONS {
                    state.transitions.pop_first();
                }
                state.transitions.insert(
                    (at, seq),
                    Transition {
                        kind,
                        run: snapshot,
                    },
                );
            }
        }
        self.wake();
    }

    /// The next step at `now`: events due become deliveries, attempts due
    /// are returned (planned at `at`, the earliest due time with a manual
    /// clock, else `now`).
    pub(crate) fn step(&self, now: u64, manual: bool) -> Step {
        let mut state = self.state();
        let next_transition = state.transitions.keys().next().map(|(at, _)| *at);
        let next_attempt = state.planner.poll_timeout().map(UnixMillis::as_millis);
        let next = match (next_transition, next_attempt) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let Some(due) = next.filter(|due| *due <= now) else {
            return Step::Wait(next);
        };
        let at = if manual { due } else { now };
        while let Some(entry) = state.transitions.first_entry() {
            if entry.key().0 > at {
                break;
            }
            let ((happened, _), transition) = entry.remove_entry();
            let id = format!("msg_{}", state.next_event);
            state.next_event = state.next_event.saturating_add(1);
            let body = run_event_body(transition.kind, &transition.run, UnixMillis::new(happened));
            state.planner.enqueue(
                OutgoingEvent {
                    id,
                    event_type: transition.kind.as_str().to_owned(),
                    body: Arc::from(body),
                },
                UnixMillis::new(at),
            );
        }
        let mut sends = Vec::new();
        while let Some(transmit) = state.planner.poll_transmit(UnixMillis::new(at)) {
            sends.push(transmit);
        }
        drain(&mut state, None);
        Step::Send(at, sends)
    }

    /// The fault this attempt gets, if any (drawn from the seeded generator).
    pub(crate) fn draw_fault(&self) -> Option<(Fault, u64)> {
        let mut state = self.state();
        let (faults, rng) = state.faults.as_mut()?;
        for (fault, p) in [
            (Fault::WrongSignature, faults.wrong_signature),
            (Fault::Duplicate, faults.duplicate),
            (Fault::OutOfOrder, faults.out_of_order),
            (Fault::Delayed, faults.delayed),
        ] {
            if rng.f64() < p {
                return Some((fault, faults.delay_ms));
            }
        }
        None
    }

    /// Reports an attempt's outcome at `now`.
    pub(crate) fn finish(
        &self,
        attempt: u64,
        outcome: acd_core::webhooks::AttemptOutcome,
        now: u64,
        fault: Option<Fault>,
    ) {
        {
            let mut state = self.state();
            state.planner.handle(attempt, outcome, UnixMillis::new(now));
            state.planner.handle_timeout(UnixMillis::new(now));
            drain(&mut state, fault.map(Fault::name));
        }
        self.wake();
    }

    /// Publishes that the dispatcher has nothing due at `now` (seen at
    /// `generation`).
    pub(crate) fn publish_caught_up(&self, now: u64, generation: u64) {
        self.caught_up.send_replace((now, generation));
    }

    /// The current generation (bumped by every wake).
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    /// Waits (at most 30 s) until the dispatcher has sent everything due at
    /// `now` and seen every change so far; used with a manual clock.
    pub async fn catch_up(&self, now: u64) {
        let generation = self
            .generation
            .fetch_add(1, Ordering::SeqCst)
            .saturating_add(1);
        self.wake.notify_one();
        let mut seen = self.caught_up.subscribe();
        let _ = tokio::time::timeout(
            std::time::Duration::from_secs(30),
            seen.wait_for(|(at, gen)| *at >= now && *gen >= generation),
        )
        .await;
    }

    pub(crate) async fn woken(&self) {
        self.wake.notified().await;
    }

    /// Every attempt entry, oldest first.
    pub fn deliveries(&self) -> Value {
        let state = self.state();
        json!({"data": state.log.iter().cloned().collect::<Vec<_>>()})
    }

    /// Redelivers what `id` names: a delivery (`dlv_N`), an attempt's
    /// delivery (`att_N`) or every delivery of an event (`msg_N`). Returns
    /// the deliveries asked for again.
    pub fn redeliver(&self, id: &str, now: u64) -> Result<Vec<String>, String> {
        let mut state = self.state();
        let deliveries: Vec<u64> = if let Some(n) = id.strip_prefix("dlv_") {
            n.parse().ok().into_iter().collect()
        } else if id.starts_with("att_") {
            state
                .log
                .iter()
                .filter(|e| e["id"] == id)
                .filter_map(|e| {
                    e["delivery_id"]
                        .as_str()?
                        .strip_prefix("dlv_")?
                        .parse()
                        .ok()
                })
                .take(1)
                .collect()
        } else {
            state
                .planner
                .deliveries()
                .iter()
                .filter(|d| d.event_id == id)
                .map(|d| d.id)
                .collect()
        };
        if deliveries.is_empty() {
            return Err(format!(
                "No webhook delivery, attempt or event {id:?} is known; ids are dlv_N, att_N or \
                 msg_N from GET /_sandbox/webhooks/deliveries."
            ));
        }
        let mut done = Vec::new();
        for delivery in deliveries {
            state
                .planner
                .redeliver(delivery, UnixMillis::new(now))
                .map_err(|error| capitalised(&error.to_string()))?;
            done.push(format!("dlv_{delivery}"));
        }
        drop(state);
        self.wake();
        Ok(done)
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => format!("{}{}.", first.to_uppercase(), chars.as_str()),
        None => String::new(),
    }
}

fn drain(state: &mut State, fault: Option<&str>) {
    while let Some(record) = state.planner.poll_event() {
        if state.log.len() >= MAX_LOG {
            state.log.pop_front();
        }
        let fault = if record.attempt.is_some() {
            fault
        } else {
            None
        };
        state.log.push_back(entry(&record, fault));
    }
}
