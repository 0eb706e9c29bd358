//! The event loop: a virtual clock, a [`TestServer`] (a real gate serving
//! the dataset), and client instances
//! whose calls (pagers, pollers, bursts) run through each client's driver
//! (`poll_transmit` / `handle` / `poll_event` / `poll_timeout`) until every
//! call is over. Events at the same instant run in the order they were
//! scheduled, so the same seed always gives the same trace.

use super::config::SimConfig;
use super::report::{ClientSummary, SimReport, TraceEvent, TraceKind};
use super::setup::build_clients;
use super::SimError;
use crate::client::{CallId, Client, Event as ClientEvent, Outcome, SplitMix64, WaitReason};
use crate::testing::{TestServer, TestServerConfig};
use crate::UnixMillis;
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum JobState {
    Running,
    Done,
    Failed,
}

/// One job: one call of a client's driver.
pub(super) struct Job {
    pub(super) call: Option<CallId>,
    pub(super) state: JobState,
    /// Record ids a pager must deliver, in order (`None`: not a pager).
    pub(super) expected: Option<Vec<Value>>,
    pub(super) delivered: Vec<Value>,
    /// No send of this job before this instant (client clock).
    pub(super) planned_at: UnixMillis,
    /// Attempts sent of the current request.
    pub(super) attempt: u32,
}

pub(super) struct SimClient {
    pub(super) client: Client,
    pub(super) jobs: Vec<Job>,
    pub(super) by_call: BTreeMap<CallId, usize>,
    pub(super) skew: i64,
    pub(super) ip: String,
    pub(super) credential_ids: Vec<String>,
    pub(super) users: Vec<String>,
    pub(super) summary: ClientSummary,
    pub(super) generation: u64,
}

pub(super) enum Event {
    Wake {
        client: usize,
        generation: u64,
    },
    Deliver {
        client: usize,
        call: CallId,
        outcome: Outcome,
        injected: bool,
    },
}

pub(super) struct Engine {
    pub(super) config: SimConfig,
    pub(super) server: TestServer,
    pub(super) random: SplitMix64,
    queue: BTreeMap<(UnixMillis, u64), Event>,
    sequence: u64,
    pub(super) clients: Vec<SimClient>,
    trace: Vec<TraceEvent>,
    pub(super) violations: Vec<String>,
    pub(super) faults_injected: u64,
    last_event: UnixMillis,
}

fn record_id(record: &serde_json::value::RawValue) -> Value {
    serde_json::from_str::<Value>(record.get())
        .map(|value| value.get("id").cloned().unwrap_or(Value::Null))
        .unwrap_or(Value::Null)
}

/// Runs `config` once, as configured (no baseline).
pub(super) fn run_once(config: SimConfig) -> Result<SimReport, SimError> {
    let (clients, failed_at_start) = build_clients(&config)?;
    let mut config = config;
    let server = TestServer::new(TestServerConfig {
        // The pagers' expectations are built; the server keeps the only copy.
        dataset: std::mem::take(&mut config.dataset),
        gate: config.gate.clone(),
        credentials: config.credentials.clone(),
        start_ms: Some(config.start_ms),
        latency_ms: config.latency_ms,
        timeout_ms: config.timeout_ms,
        date_header: config.date_header,
        // The engine keeps its own trace; faults are chosen per client.
        log_limit: 0,
        ..TestServerConfig::default()
    })
    .map_err(|error| SimError::Config {
        field: "gate".into(),
        problem: error.to_string(),
    })?;
    let mut engine = Engine {
        random: SplitMix64::new(config.seed),
        server,
        queue: BTreeMap::new(),
        sequence: 0,
        clients,
        trace: Vec::new(),
        violations: Vec::new(),
        faults_injected: 0,
        last_event: config.start_ms,
        config,
    };
    for (client, job, error) in failed_at_start {
        let start = engine.config.start_ms;
        engine.finish_job(start, client, job, Some(error));
    }
    for client in 0..engine.clients.len() {
        let offset = engine
            .config
            .clients
            .get(client)
            .map_or(0, |spec| spec.start_offset_ms);
        let start = engine.config.start_ms.saturating_add(offset);
        engine.schedule_wake(client, start);
    }
    engine.run_loop();
    Ok(engine.finish())
}

#[allow(
    clippy::indexing_slicing,
    reason = "client indices are positions in `clients` (one per `config.clients`, never removed); job indices come from setup or `by_call`, positions in that client's `jobs`, which never shrinks"
)]
impl Engine {
    pub(super) fn schedule(&mut self, at: UnixMillis, event: Event) {
        self.sequence = self.sequence.saturating_add(1);
        self.queue.insert((at, self.sequence), event);
    }

    fn schedule_wake(&mut self, client: usize, at: UnixMillis) {
        let entry = &mut self.clients[client];
        entry.generation = entry.generation.saturating_add(1);
        let generation = entry.generation;
        self.schedule(at, Event::Wake { client, generation });
    }

    pub(super) fn offset(&self, at: UnixMillis) -> u64 {
        at.saturating_since(self.config.start_ms)
    }

    fn note(&mut self, now: UnixMillis, client: usize, job: usize, what: TraceKind) {
        let at_ms = self.offset(now);
        self.trace.push(TraceEvent {
            at_ms,
            client,
            job,
            what,
        });
    }

    fn client_clock(&self, client: usize, now: UnixMillis) -> UnixMillis {
        now.saturating_add_signed(self.clients[client].skew)
    }

    fn server_clock(&self, client: usize, at: UnixMillis) -> UnixMillis {
        at.saturating_add_signed(self.clients[client].skew.saturating_neg())
    }

    fn run_loop(&mut self) {
        let stop_at = self
            .config
            .start_ms
            .saturating_add(self.config.max_virtual_ms);
        while let Some(((now, _), event)) = self.queue.pop_first() {
            // At the end of the clock (`u64::MAX`, reached by saturation)
            // time cannot advance, so a wake there would repeat forever.
            if now > stop_at || now == UnixMillis::MAX {
                self.violations.push(format!(
                    "the simulation stopped at its limit of {} virtual ms with work left",
                    self.config.max_virtual_ms
                ));
                break;
            }
            match event {
                Event::Wake { client, generation } => {
                    if self.clients[client].generation == generation {
                        self.last_event = now;
                        self.drive(client, now);
                    }
                }
                Event::Deliver {
                    client,
                    call,
                    outcome,
                    injected,
                } => {
                    self.last_event = now;
                    self.deliver(client, call, outcome, injected, now);
                }
            }
        }
    }

    pub(super) fn finish_job(
        &mut self,
        now: UnixMillis,
        client: usize,
        job: usize,
        error: Option<String>,
    ) {
        let state = if error.is_some() {
            JobState::Failed
        } else {
            JobState::Done
        };
        self.clients[client].jobs[job].state = state;
        let what = match error {
            Some(error) => TraceKind::Failed { error },
            None => TraceKind::Done,
        };
        self.note(now, client, job, what);
    }

    /// Sends everything the client has to send now, records its events and
    /// schedules its next wake.
    fn drive(&mut self, client: usize, now: UnixMillis) {
        let client_now = self.client_clock(client, now);
        while let Some(transmit) = self.clients[client].client.poll_transmit(client_now) {
            let Some(&job) = self.clients[client].by_call.get(&transmit.id) else {
                continue;
            };
            let entry = &mut self.clients[client].jobs[job];
            if client_now < entry.planned_at {
                let planned = entry.planned_at;
                self.violations.push(format!(
                    "client {client} job {job} sent at {client_now} before its planned time {planned}"
                ));
            }
            entry.attempt = entry.attempt.saturating_add(1);
            let attempt = entry.attempt;
            let summary = &mut self.clients[client].summary;
            summary.requests_sent = summary.requests_sent.saturating_add(1);
            let target = transmit.request.target().to_owned();
            self.note(
                now,
                client,
                job,
                TraceKind::Send {
                    method: transmit.request.method.clone(),
                    target: target.clone(),
                    attempt,
                },
            );
            self.transmit(client, transmit.id, &transmit.request, target, now);
        }
        self.drain(client, now, None);
        if let Some(at) = self.clients[client].client.poll_timeout() {
            let at = self.server_clock(client, at).max(now.saturating_add(1));
            self.schedule_wake(client, at);
        }
    }

    /// Records the client's events. After an outcome, `spent` is the budget
    /// it cost (attributed to the retry it planned).
    fn drain(&mut self, client: usize, now: UnixMillis, spent: Option<u64>) {
        while let Some((call, event)) = self.clients[client].client.poll_event() {
            let Some(&job) = self.clients[client].by_call.get(&call) else {
                continue;
            };
            match event {
                ClientEvent::Waiting { until, reason, .. } => {
                    self.clients[client].jobs[job].planned_at = until;
                    let at_ms = self.offset(self.server_clock(client, until));
                    let retry =
                        matches!(reason, WaitReason::Backoff { .. } | WaitReason::RetryAfter);
                    let what = if let (true, Some(spent)) = (retry, spent) {
                        let summary = &mut self.clients[client].summary;
                        summary.retries = summary.retries.saturating_add(1);
                        summary.budget_spent = summary.budget_spent.saturating_add(spent);
                        TraceKind::Retry {
                            at_ms,
                            reason,
                            cost: u32::try_from(spent).unwrap_or(u32::MAX),
                        }
                    } else {
                        TraceKind::Wait { until_ms: at_ms }
                    };
                    self.note(now, client, job, what);
                }
                ClientEvent::Page { records, last, .. } => {
                    let entry = &mut self.clients[client].jobs[job];
                    entry.attempt = 0;
                    entry
                        .delivered
                        .extend(records.iter().map(|record| record_id(record)));
                    self.note(
                        now,
                        client,
                        job,
                        TraceKind::Page {
                            records: records.len(),
                            last,
                        },
                    );
                }
                ClientEvent::RunStatus { status, .. } => {
                    self.note(now, client, job, TraceKind::Poll { state: status });
                }
                ClientEvent::Done => {
                    let entry = &self.clients[client].jobs[job];
                    let error = entry.expected.as_ref().and_then(|expected| {
                        (&entry.delivered != expected).then(|| {
                            format!(
                                "the pager delivered {} records, not exactly the {} expected in order",
                                entry.delivered.len(),
                                expected.len()
                            )
                        })
                    });
                    self.finish_job(now, client, job, error);
                }
                ClientEvent::Failed(error) => {
                    self.finish_job(now, client, job, Some(error.to_string()));
                }
                _ => {}
            }
        }
    }

    fn deliver(
        &mut self,
        client: usize,
        call: CallId,
        outcome: Outcome,
        injected: bool,
        now: UnixMillis,
    ) {
        let job = self.clients[client]
            .by_call
            .get(&call)
            .copied()
            .unwrap_or(0);
        match &outcome {
            Outcome::Response(response) => {
                self.note(
                    now,
                    client,
                    job,
                    TraceKind::Response {
                        status: response.status,
                        injected,
                    },
                );
                if response.status == 429 {
                    self.check_429(client, job, response);
                }
                if (200..300).contains(&response.status) {
                    self.clients[client].jobs[job].attempt = 0;
                }
            }
            Outcome::Transport(failure) => {
                self.note(now, client, job, TraceKind::Transport { failure: *failure })
            }
        }
        let client_now = self.client_clock(client, now);
        let sim_client = &mut self.clients[client];
        let spent_before = sim_client.client.budget().spent_total();
        if let Err(error) = sim_client.client.handle(call, outcome, client_now) {
            self.violations.push(format!(
                "client {client} job {job}: the driver refused an outcome: {error}"
            ));
        }
        let spent = self.clients[client]
            .client
            .budget()
            .spent_total()
            .saturating_sub(spent_before);
        self.drain(client, now, Some(spent));
        self.drive(client, now);
    }

    fn finish(mut self) -> SimReport {
        let mut summaries = Vec::new();
        let mut completed = true;
        for (index, sim_client) in self.clients.iter_mut().enumerate() {
            let budget = sim_client.client.budget();
            sim_client.summary.budget_refunded = budget.refunded_total();
            let capacity = u64::from(budget.policy().capacity);
            if sim_client.summary.budget_spent != budget.spent_total()
                || sim_client.summary.budget_spent
                    > capacity.saturating_add(budget.refunded_total())
            {
                self.violations.push(format!(
                    "client {index} spent {} budget tokens on retries, more than its capacity {capacity} plus refunds {}",
                    sim_client.summary.budget_spent,
                    budget.refunded_total()
                ));
            }
            for (job, entry) in sim_client.jobs.iter().enumerate() {
                match entry.state {
                    JobState::Done => {
                        sim_client.summary.jobs_done =
                            sim_client.summary.jobs_done.saturating_add(1)
                    }
                    JobState::Failed => {
                        sim_client.summary.jobs_failed =
                            sim_client.summary.jobs_failed.saturating_add(1);
                        completed = false;
                    }
                    JobState::Running => {
                        completed = false;
                        self.violations
                            .push(format!("client {index} job {job} never finished"));
                    }
                }
            }
            summaries.push(sim_client.summary.clone());
        }
        SimReport {
            requests_sent: summaries
                .iter()
                .map(|s| s.requests_sent)
                .fold(0, u64::saturating_add),
            responses_429: summaries
                .iter()
                .map(|s| s.responses_429)
                .fold(0, u64::saturating_add),
            avoidable_429: summaries
                .iter()
                .map(|s| s.avoidable_429)
                .fold(0, u64::saturating_add),
            retries: summaries
                .iter()
                .map(|s| s.retries)
                .fold(0, u64::saturating_add),
            faults_injected: self.faults_injected,
            elapsed_ms: self.offset(self.last_event),
            completed,
            violations: self.violations,
            clients: summaries,
            trace: self.trace,
            baseline: None,
        }
    }
}
