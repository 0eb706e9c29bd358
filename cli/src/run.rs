//! The drive loop of `docs/driver-protocol.md`, once: poll the engine,
//! send every transmit at once (one thread each), deliver each event, and
//! when a poll gives no event wake at its timeout or at the next outcome,
//! whichever is first, through the injected clock. It moves bytes and
//! waits; every decision is the core's.

use crate::clock::{Clock, Millis, Woken};
use crate::engine::{Engine, Job};
use crate::interrupt::{Interrupt, Interrupted};
use crate::output::{write_document, Layout, RecordSink};
use crate::report::Reporter;
use crate::setup::{Plan, Printing};
use crate::transport::Transport;
use acd_core::client::{ApiResponse, CallId, ClientError, ClientRequest, Event, Outcome};
use serde_json::value::RawValue;
use std::io::{self, Write};
use std::sync::mpsc;
use std::time::Duration;

/// How a command ended, when not successfully.
#[derive(Debug)]
pub enum Failure {
    /// The client's error (the API's, the transport's, or giving up).
    Client(ClientError),
    /// Ctrl-C.
    Interrupted,
    /// Writing stdout failed.
    Output(io::Error),
    /// A created run that was waited for ended in a status other than
    /// `succeeded`.
    RunEnded(String),
    /// `--jq` could not filter the response.
    Jq(crate::jq::JqError),
    /// The client has nothing to send and nothing to wait for, yet the
    /// call is not over (the core guarantees this cannot happen).
    Stalled,
}

impl From<Interrupted> for Failure {
    fn from(_: Interrupted) -> Self {
        Failure::Interrupted
    }
}

impl From<io::Error> for Failure {
    fn from(error: io::Error) -> Self {
        Failure::Output(error)
    }
}

/// One exchange's end, as its thread hands it back.
struct Arrival {
    call: CallId,
    request: ClientRequest,
    outcome: Outcome,
}

/// Sends `request` on its own thread; its outcome comes back on `arrivals`.
fn send(
    transport: &Transport,
    call: CallId,
    request: ClientRequest,
    within: Duration,
    arrivals: &mpsc::Sender<Arrival>,
) {
    let transport = transport.clone();
    let arrivals_for_failure = arrivals.clone();
    let failed_request = request.clone();
    let arrivals = arrivals.clone();
    let spawned = std::thread::Builder::new()
        .name("exchange".into())
        .spawn(move || {
            let outcome = transport.send(&request, within);
            let _ = arrivals.send(Arrival {
                call,
                request,
                outcome,
            });
        });
    if spawned.is_err() {
        // No thread could be made: the request never left this machine.
        let _ = arrivals_for_failure.send(Arrival {
            call,
            request: failed_request,
            outcome: Outcome::Transport(acd_core::client::TransportFailure::Connect),
        });
    }
}

/// Runs `plan` to its end.
pub fn execute(plan: Plan, reporter: &mut Reporter, interrupt: &Interrupt) -> Result<(), Failure> {
    let mut clock: Clock = plan.clock;
    let transport = Transport::new(plan.proxy, plan.config.max_body_bytes);
    let waits_for_created_run = matches!(&plan.job, Job::CreateRun { wait: Some(_), .. });
    let mut engine =
        Engine::new(plan.config, plan.job, plan.learn_limits).map_err(Failure::Client)?;
    let stdout = io::stdout();
    let layout = Layout::of_stdout();
    let printing = plan.printing;
    let mut sink = match printing {
        Printing::Records(format) => Some(RecordSink::new(stdout.lock(), format)),
        _ => None,
    };
    let raw = plan.raw;
    let (sender, arrivals) = mpsc::channel::<Arrival>();
    let mut in_flight = 0usize;
    let mut body: Vec<u8> = Vec::new();
    let mut head: Option<String> = None;
    let mut heads: std::collections::VecDeque<String> = std::collections::VecDeque::new();
    let result = loop {
        interrupt.check()?;
        let step = engine.poll(clock.now());
        for transmit in step.transmits {
            reporter.advice(&transmit.request.warnings);
            let now = clock.now();
            let mut within = transmit.timeout_at.map_or(Duration::MAX, |at| {
                Duration::from_millis(u64::from(at).saturating_sub(now))
            });
            if let Some(timeout) = plan.timeout {
                within = within.min(timeout);
            }
            in_flight += 1;
            send(&transport, transmit.id, transmit.request, within, &sender);
        }
        let delivered = !step.events.is_empty();
        let mut ended = None;
        for (event, level) in step.events {
            match event {
                Event::Response { response, .. } => match (printing, response) {
                    // `acd runs create`: the run itself, as `runs wait` prints it.
                    (Printing::Run, ApiResponse::Object { value, .. }) => {
                        reporter.suspend(|| print_document(&value, layout))?;
                    }
                    (_, response) => match (&mut sink, response.into_records()) {
                        (Some(sink), Some(records)) => sink.page(&records)?,
                        _ => print_raw(head.as_deref(), &body, raw.jq.as_deref(), layout)?,
                    },
                },
                Event::Page { records, page, .. } => {
                    if let Some(shown) = heads.pop_front() {
                        reporter.suspend(|| print_head(&shown))?;
                    }
                    match (&raw.jq, &mut sink) {
                        (Some(expression), _) => {
                            for record in &records {
                                let out = crate::jq::apply(expression, record.get().as_bytes())
                                    .map_err(Failure::Jq)?;
                                reporter.suspend(|| write_out(&out))?;
                            }
                        }
                        (None, Some(sink)) => {
                            reporter.suspend(|| sink.page(&records))?;
                            reporter.progress(sink.count(), page);
                        }
                        (None, None) => {}
                    }
                }
                Event::RunStatus {
                    status,
                    terminal,
                    run,
                } => {
                    reporter.run_status(&status);
                    if terminal {
                        reporter.suspend(|| print_document(&run, layout))?;
                        if waits_for_created_run && status != "succeeded" {
                            ended = Some(Err(Failure::RunEnded(status.clone())));
                        }
                    }
                }
                Event::Waiting {
                    until,
                    reason,
                    ref message,
                    ..
                } => {
                    reporter.waiting(message, level, reason, u64::from(until), clock.now());
                }
                Event::Retrying { ref message, .. } => reporter.notice(message, level),
                Event::Deprecation(_) => {
                    if let Some(message) = event.message() {
                        reporter.deprecation(&message);
                    }
                }
                Event::Done => {
                    ended.get_or_insert(Ok(()));
                }
                Event::Failed(ClientError::Protocol { status, .. })
                    if raw.any_body && (200..300).contains(&status) =>
                {
                    // `acd api` prints any successful body as received.
                    print_raw(head.as_deref(), &body, raw.jq.as_deref(), layout)?;
                    ended = Some(Ok(()));
                }
                Event::Failed(error) => {
                    if let (Some(shown), Some(_)) = (&head, error.api_body()) {
                        print_raw(Some(shown), &body, None, layout)?;
                    }
                    ended = Some(Err(Failure::Client(error)));
                }
                _ => {}
            }
        }
        if let Some(result) = ended {
            break result;
        }
        if delivered {
            continue;
        }
        if in_flight == 0 && step.timeout.is_none() {
            // The core guarantees a timeout while a call is open.
            break Err(Failure::Stalled);
        }
        let mut tick = |now: Millis| reporter.tick(now);
        match clock.wait(&arrivals, step.timeout, in_flight > 0, interrupt, &mut tick)? {
            Woken::Arrived(arrival) => {
                in_flight = in_flight.saturating_sub(1);
                reporter.waited();
                reporter.exchange(&arrival.request, &arrival.outcome);
                if let Outcome::Response(response) = &arrival.outcome {
                    body.clone_from(&response.body);
                    if raw.include {
                        let shown = crate::output::head(response);
                        if (200..300).contains(&response.status) {
                            heads.push_back(shown.clone());
                        }
                        head = Some(shown);
                    }
                }
                engine.handle(arrival.call, arrival.outcome, clock.now());
            }
            Woken::Due => reporter.waited(),
        }
    };
    if let Some(sink) = sink {
        reporter.suspend(|| sink.finish())?;
    }
    result
}

fn write_out(bytes: &[u8]) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()
}

fn print_head(head: &str) -> io::Result<()> {
    write_out(head.as_bytes())
}

/// One JSON document on stdout, in `layout`.
fn print_document(value: &RawValue, layout: Layout) -> io::Result<()> {
    let mut out = io::stdout().lock();
    write_document(&mut out, value, layout)?;
    out.flush()
}

/// The body of `acd api` (after its head with `-i`), through `--jq` if
/// given; a JSON body is indented on a terminal (`layout`), any other
/// body is written as received.
fn print_raw(
    head: Option<&str>,
    body: &[u8],
    jq: Option<&str>,
    layout: Layout,
) -> Result<(), Failure> {
    if let Some(head) = head {
        print_head(head)?;
    }
    let filtered;
    let body = match jq {
        Some(expression) => {
            filtered = crate::jq::apply(expression, body).map_err(Failure::Jq)?;
            filtered.as_slice()
        }
        None => {
            let document = std::str::from_utf8(body)
                .ok()
                .and_then(|text| serde_json::from_str::<&RawValue>(text).ok());
            if let (Layout::Pretty, Some(document)) = (layout, document) {
                print_document(document, layout)?;
                return Ok(());
            }
            body
        }
    };
    let mut out = io::stdout().lock();
    out.write_all(body)?;
    if !body.is_empty() && !body.ends_with(b"\n") {
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}
