//! The event loop: a virtual clock, a real [`Gate`], and client instances
//! whose jobs (pagers, pollers, bursts) are driven through their sans-IO
//! `poll`/`handle` until every job is over. Events at the same instant run in
//! the order they were scheduled, so the same seed always gives the same trace.

use super::config::SimConfig;
use super::report::{ClientSummary, SimReport, TraceEvent, TraceKind};
use super::setup::build_clients;
use crate::client::{
    Call, CallEvent, Client, ClientError, Outcome, Pager, PagerEvent, PollEvent, RunPoller,
    SplitMix64, Step,
};
use crate::gate::Gate;
use crate::UnixMillis;
use serde_json::Value;
use std::collections::BTreeMap;

pub(super) enum JobKind {
    Pager {
        pager: Pager,
        expected: Vec<Value>,
        delivered: Vec<Value>,
    },
    Poller(RunPoller),
    Single(Call),
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum JobState {
    Running,
    Done,
    Failed,
}

pub(super) struct Job {
    pub(super) kind: JobKind,
    pub(super) state: JobState,
    pub(super) generation: u64,
    pub(super) planned_at: UnixMillis,
}

pub(super) struct SimClient {
    pub(super) client: Client,
    pub(super) jobs: Vec<Job>,
    pub(super) skew: i64,
    pub(super) ip: String,
    pub(super) credential_ids: Vec<String>,
    pub(super) users: Vec<String>,
    pub(super) summary: ClientSummary,
}

pub(super) enum Event {
    Wake {
        client: usize,
        job: usize,
        generation: u64,
    },
    Deliver {
        client: usize,
        job: usize,
        outcome: Outcome,
        injected: bool,
    },
}

pub(super) struct Engine {
    pub(super) config: SimConfig,
    pub(super) gate: Gate,
    pub(super) random: SplitMix64,
    queue: BTreeMap<(UnixMillis, u64), Event>,
    sequence: u64,
    pub(super) clients: Vec<SimClient>,
    trace: Vec<TraceEvent>,
    pub(super) violations: Vec<String>,
    pub(super) faults_injected: u64,
    last_event: UnixMillis,
}

fn invalid(field: &str, problem: impl std::fmt::Display) -> ClientError {
    ClientError::InvalidConfig {
        field: field.to_owned(),
        problem: problem.to_string(),
    }
}

fn record_id(record: &serde_json::value::RawValue) -> Value {
    serde_json::from_str::<Value>(record.get())
        .map(|value| value["id"].clone())
        .unwrap_or(Value::Null)
}

/// Runs `config` to completion (or to `max_virtual_ms`) and reports.
pub fn run(config: SimConfig) -> Result<SimReport, ClientError> {
    let gate = Gate::in_memory(config.gate.clone(), config.credentials.clone())
        .map_err(|error| invalid("gate", error))?;
    let clients = build_clients(&config)?;
    let mut engine = Engine {
        random: SplitMix64::new(config.seed),
        gate,
        queue: BTreeMap::new(),
        sequence: 0,
        clients,
        trace: Vec::new(),
        violations: Vec::new(),
        faults_injected: 0,
        last_event: config.start_ms,
        config,
    };
    for client in 0..engine.clients.len() {
        let start = engine.config.start_ms + engine.config.clients[client].start_offset_ms;
        for job in 0..engine.clients[client].jobs.len() {
            engine.schedule_wake(client, job, start);
        }
    }
    engine.run_loop();
    Ok(engine.finish())
}

impl Engine {
    pub(super) fn schedule(&mut self, at: UnixMillis, event: Event) {
        self.sequence += 1;
        self.queue.insert((at, self.sequence), event);
    }

    fn schedule_wake(&mut self, client: usize, job: usize, at: UnixMillis) {
        let entry = &mut self.clients[client].jobs[job];
        entry.generation += 1;
        let generation = entry.generation;
        self.schedule(
            at,
            Event::Wake {
                client,
                job,
                generation,
            },
        );
    }

    pub(super) fn offset(&self, at: UnixMillis) -> u64 {
        at.saturating_sub(self.config.start_ms)
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
            if now > stop_at {
                self.violations.push(format!(
                    "the simulation stopped at its limit of {} virtual ms with work left",
                    self.config.max_virtual_ms
                ));
                break;
            }
            match event {
                Event::Wake {
                    client,
                    job,
                    generation,
                } => {
                    if self.clients[client].jobs[job].generation == generation {
                        self.last_event = now;
                        self.wake(client, job, now);
                    }
                }
                Event::Deliver {
                    client,
                    job,
                    outcome,
                    injected,
                } => {
                    self.last_event = now;
                    self.deliver(client, job, outcome, injected, now)
                }
            }
        }
    }

    fn finish_job(&mut self, client: usize, job: usize, now: UnixMillis, error: Option<String>) {
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

    fn wake(&mut self, client: usize, job: usize, now: UnixMillis) {
        let client_now = self.client_clock(client, now);
        let sim_client = &mut self.clients[client];
        let entry = &mut sim_client.jobs[job];
        if entry.state != JobState::Running {
            return;
        }
        let step = match &mut entry.kind {
            JobKind::Pager { pager, .. } => pager.poll(&mut sim_client.client, client_now),
            JobKind::Poller(poller) => poller.poll(&mut sim_client.client, client_now),
            JobKind::Single(call) => Ok(call.poll(&mut sim_client.client, client_now)),
        };
        let planned_at = entry.planned_at;
        match step {
            Err(error) => self.finish_job(client, job, now, Some(error.to_string())),
            Ok(Step::Done) => self.finish_job(client, job, now, None),
            Ok(Step::AwaitingResponse) => {}
            Ok(Step::WaitUntil(until)) => {
                self.clients[client].jobs[job].planned_at = until;
                let at = self.server_clock(client, until).max(now + 1);
                if until != planned_at {
                    let until_ms = self.offset(at);
                    self.note(now, client, job, TraceKind::Wait { until_ms });
                }
                self.schedule_wake(client, job, at);
            }
            Ok(Step::Send(request)) => {
                if client_now < planned_at {
                    self.violations.push(format!(
                        "client {client} job {job} sent at {client_now} before its planned time {planned_at}"
                    ));
                }
                self.clients[client].summary.requests_sent += 1;
                let target = request.target().to_owned();
                self.note(
                    now,
                    client,
                    job,
                    TraceKind::Send {
                        method: request.method.clone(),
                        target: target.clone(),
                        attempt: request.attempts,
                    },
                );
                self.transmit(client, job, &request, target, now);
            }
        }
    }

    fn deliver(
        &mut self,
        client: usize,
        job: usize,
        outcome: Outcome,
        injected: bool,
        now: UnixMillis,
    ) {
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
            }
            Outcome::Transport(failure) => {
                self.note(now, client, job, TraceKind::Transport { failure: *failure })
            }
        }
        let client_now = self.client_clock(client, now);
        let sim_client = &mut self.clients[client];
        let spent_before = sim_client.client.budget().spent_total();
        let entry = &mut sim_client.jobs[job];
        let mut finished: Option<Option<String>> = None;
        let mut notes: Vec<TraceKind> = Vec::new();
        let mut retry_at: Option<UnixMillis> = None;
        match &mut entry.kind {
            JobKind::Pager {
                pager,
                expected,
                delivered,
            } => match pager.handle(&mut sim_client.client, &outcome, client_now) {
                Some(PagerEvent::Page { records, last }) => {
                    delivered.extend(records.iter().map(|record| record_id(record)));
                    notes.push(TraceKind::Page {
                        records: records.len(),
                        last,
                    });
                    if last {
                        finished = Some((delivered != expected).then(|| {
                                format!("the pager delivered {} records, not exactly the {} expected in order", delivered.len(), expected.len())
                            }));
                    }
                }
                Some(PagerEvent::Retrying { at, cause }) => {
                    retry_at = Some(at);
                    notes.push(TraceKind::Retry {
                        at_ms: 0,
                        cause,
                        cost: 0,
                    });
                }
                Some(PagerEvent::Failed(error)) => finished = Some(Some(error.to_string())),
                None => finished = Some(Some("an outcome arrived with nothing in flight".into())),
            },
            JobKind::Poller(poller) => {
                match poller.handle(&mut sim_client.client, &outcome, client_now) {
                    Some(PollEvent::Status {
                        state, terminal, ..
                    }) => {
                        notes.push(TraceKind::Poll { state });
                        if terminal {
                            finished = Some(None);
                        }
                    }
                    Some(PollEvent::Retrying { at, cause }) => {
                        retry_at = Some(at);
                        notes.push(TraceKind::Retry {
                            at_ms: 0,
                            cause,
                            cost: 0,
                        });
                    }
                    Some(PollEvent::Failed(error)) => finished = Some(Some(error.to_string())),
                    Some(PollEvent::DeadlineReached { deadline_at, .. }) => {
                        finished = Some(Some(format!("the poll deadline {deadline_at} passed")))
                    }
                    None => {
                        finished = Some(Some("an outcome arrived with nothing in flight".into()))
                    }
                }
            }
            JobKind::Single(call) => {
                match call.handle(&mut sim_client.client, &outcome, client_now) {
                    Some(CallEvent::Retrying { at, cause, .. }) => {
                        retry_at = Some(at);
                        notes.push(TraceKind::Retry {
                            at_ms: 0,
                            cause,
                            cost: 0,
                        });
                    }
                    Some(CallEvent::Finished(Ok(_))) => finished = Some(None),
                    Some(CallEvent::Finished(Err(error))) => {
                        finished = Some(Some(error.to_string()))
                    }
                    None => {
                        finished = Some(Some("an outcome arrived with nothing in flight".into()))
                    }
                }
            }
        }
        let spent = sim_client
            .client
            .budget()
            .spent_total()
            .saturating_sub(spent_before);
        if let Some(at) = retry_at {
            entry.planned_at = at;
            sim_client.summary.retries += 1;
            sim_client.summary.budget_spent += spent;
        }
        for mut what in notes {
            if let (TraceKind::Retry { at_ms, cost, .. }, Some(at)) = (&mut what, retry_at) {
                *at_ms = self.offset(self.server_clock(client, at));
                *cost = u32::try_from(spent).unwrap_or(u32::MAX);
            }
            self.note(now, client, job, what);
        }
        match finished {
            Some(error) => self.finish_job(client, job, now, error),
            None => self.schedule_wake(client, job, now),
        }
        // The outcome may have moved this client's limits (a window learned
        // from headers ends earlier than assumed): every waiting job re-plans.
        for other in 0..self.clients[client].jobs.len() {
            if other != job && self.clients[client].jobs[other].state == JobState::Running {
                self.schedule_wake(client, other, now);
            }
        }
    }

    fn finish(mut self) -> SimReport {
        let mut summaries = Vec::new();
        let mut completed = true;
        for (index, sim_client) in self.clients.iter_mut().enumerate() {
            let budget = sim_client.client.budget();
            sim_client.summary.budget_refunded = budget.refunded_total();
            let capacity = u64::from(budget.policy().capacity);
            if sim_client.summary.budget_spent != budget.spent_total()
                || sim_client.summary.budget_spent > capacity + budget.refunded_total()
            {
                self.violations.push(format!(
                    "client {index} spent {} budget tokens on retries, more than its capacity {capacity} plus refunds {}",
                    sim_client.summary.budget_spent,
                    budget.refunded_total()
                ));
            }
            for (job, entry) in sim_client.jobs.iter().enumerate() {
                match entry.state {
                    JobState::Done => sim_client.summary.jobs_done += 1,
                    JobState::Failed => {
                        sim_client.summary.jobs_failed += 1;
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
            requests_sent: summaries.iter().map(|s| s.requests_sent).sum(),
            responses_429: summaries.iter().map(|s| s.responses_429).sum(),
            avoidable_429: summaries.iter().map(|s| s.avoidable_429).sum(),
            retries: summaries.iter().map(|s| s.retries).sum(),
            faults_injected: self.faults_injected,
            elapsed_ms: self.offset(self.last_event),
            completed,
            violations: self.violations,
            clients: summaries,
            trace: self.trace,
        }
    }
}
