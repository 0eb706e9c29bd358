//! The drive loop: send what the engine says to send, hand back each
//! outcome, show its events, and sleep (interruptibly) until the instant it
//! names. It moves bytes and waits; every decision is the core's.

use crate::engine::{Engine, Millis};
use crate::interrupt::{Interrupt, Interrupted};
use crate::output::{write_compact, RecordSink};
use crate::report::Reporter;
use crate::setup::{Plan, Printing};
use crate::transport::Transport;
use acd_core::client::{ClientError, Event, Outcome};
use std::io::{self, Write};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The longest uninterrupted sleep (so Ctrl-C and the countdown stay live).
const SLICE: Duration = Duration::from_millis(100);

/// How a command ended, when not successfully.
#[derive(Debug)]
pub enum Failure {
    /// The client's error (the API's, the transport's, or giving up).
    Client(ClientError),
    /// Ctrl-C.
    Interrupted,
    /// Writing stdout failed.
    Output(io::Error),
    /// The client has nothing to send, nothing to say and no instant to
    /// wait for, yet the call is not over.
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

/// The local clock as the core's instant.
pub fn now() -> Millis {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
        })
}

/// Runs `plan` to its end.
pub fn execute(plan: Plan, reporter: &mut Reporter, interrupt: &Interrupt) -> Result<(), Failure> {
    let mut engine = Engine::new(
        plan.config,
        plan.job,
        plan.deadline_ms,
        plan.learn_limits,
        now(),
    )
    .map_err(Failure::Client)?;
    let transport = Transport::new();
    let stdout = io::stdout();
    let mut sink = match plan.printing {
        Printing::Records(format) => Some(RecordSink::new(stdout.lock(), format)),
        _ => None,
    };
    let mut body: Vec<u8> = Vec::new();
    let mut last: Option<String> = None;
    let result = loop {
        interrupt.check()?;
        let mut active = false;
        while let Some(request) = engine.poll_transmit(now()) {
            active = true;
            reporter.advice(&request.warnings);
            let outcome = transport.send(&request);
            interrupt.check()?;
            reporter.exchange(&request, &outcome);
            last = Some(match &outcome {
                Outcome::Response(response) => {
                    body.clone_from(&response.body);
                    response.status.to_string()
                }
                Outcome::Transport(failure) => failure.to_string(),
            });
            engine.handle(outcome, now());
        }
        let mut ended = None;
        while let Some(event) = engine.poll_event(now()) {
            active = true;
            match event {
                Event::Response(response) => match (&mut sink, response.into_records()) {
                    (Some(sink), Some(records)) => sink.page(&records)?,
                    _ => print_body(&body)?,
                },
                Event::Page { records, page, .. } => {
                    if let Some(sink) = &mut sink {
                        reporter.suspend(|| sink.page(&records))?;
                        reporter.progress(sink.count(), page);
                    }
                }
                Event::RunStatus {
                    status,
                    terminal,
                    run,
                } => {
                    reporter.run_status(&status);
                    if terminal {
                        let mut out = io::stdout().lock();
                        write_compact(&mut out, &run)?;
                        out.write_all(b"\n")?;
                        out.flush()?;
                    }
                }
                Event::Waiting {
                    until,
                    limit,
                    reason,
                } => reporter.waiting(
                    until.as_millis(),
                    now(),
                    limit.as_ref(),
                    reason,
                    last.as_deref(),
                ),
                Event::Deprecation(warning) => reporter.deprecation(&warning),
                Event::Done => ended = Some(Ok(())),
                Event::Failed(error) => ended = Some(Err(Failure::Client(error))),
                _ => {}
            }
        }
        if let Some(result) = ended {
            break result;
        }
        match engine.poll_timeout() {
            Some(until) => {
                sleep_until(until, reporter, interrupt)?;
                reporter.waited();
            }
            None if active => {}
            None => break Err(Failure::Stalled),
        }
    };
    if let Some(sink) = sink {
        reporter.suspend(|| sink.finish())?;
    }
    result
}

fn print_body(body: &[u8]) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(body)?;
    if !body.ends_with(b"\n") {
        out.write_all(b"\n")?;
    }
    out.flush()
}

fn sleep_until(until: Millis, reporter: &Reporter, interrupt: &Interrupt) -> Result<(), Failure> {
    loop {
        let now = now();
        if now >= until {
            return Ok(());
        }
        reporter.tick(now);
        let left = Duration::from_millis(until - now);
        interrupt.sleep(left.min(SLICE))?;
    }
}
