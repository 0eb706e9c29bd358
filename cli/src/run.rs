//! The drive loop: send what the engine says to send, hand back each
//! outcome, show its events, and sleep (interruptibly) until the instant it
//! names. It moves bytes and waits; every decision is the core's.

use crate::engine::{Engine, Millis};
use crate::interrupt::{Interrupt, Interrupted};
use crate::output::{write_document, Layout, RecordSink};
use crate::report::Reporter;
use crate::setup::{Plan, Printing};
use crate::transport::Transport;
use acd_core::client::{ApiResponse, ClientError, Event, Outcome};
use serde_json::value::RawValue;
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
    /// A created run that was waited for ended in a status other than
    /// `succeeded`.
    RunEnded(String),
    /// `--jq` could not filter the response.
    Jq(crate::jq::JqError),
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
    let transport = Transport::new(plan.proxy, plan.timeout, plan.config.max_body_bytes);
    let mut engine = Engine::new(
        plan.config,
        plan.job,
        plan.deadline_ms,
        plan.learn_limits,
        now(),
    )
    .map_err(Failure::Client)?;
    let stdout = io::stdout();
    let layout = Layout::of_stdout();
    let printing = plan.printing;
    let mut sink = match printing {
        Printing::Records(format) => Some(RecordSink::new(stdout.lock(), format)),
        _ => None,
    };
    let raw = plan.raw;
    let waits_for_created_run = matches!(plan.job_kind, JobKind::CreateRunAndWait);
    let mut body: Vec<u8> = Vec::new();
    let mut head: Option<String> = None;
    let mut heads: std::collections::VecDeque<String> = std::collections::VecDeque::new();
    let mut last: Option<String> = None;
    let result = loop {
        interrupt.check()?;
        let mut active = false;
        while let Some(request) = engine.poll_transmit(now()) {
            active = true;
            reporter.advice(&request.warnings);
            let sent = adjust(request, &raw);
            let outcome = transport.send(&sent);
            interrupt.check()?;
            reporter.exchange(&sent, &outcome);
            last = Some(match &outcome {
                Outcome::Response(response) => {
                    body.clone_from(&response.body);
                    if raw.include {
                        let shown = crate::output::head(response);
                        if (200..300).contains(&response.status) {
                            heads.push_back(shown.clone());
                        }
                        head = Some(shown);
                    }
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
                    limit,
                    reason,
                    ..
                } => {
                    reporter.waiting(
                        until.as_millis(),
                        now(),
                        limit.as_ref(),
                        reason,
                        last.as_deref(),
                    );
                }
                Event::Retrying { message, .. } => reporter.retrying(&message),
                Event::Deprecation(warning) => reporter.deprecation(&warning),
                Event::Done => {
                    ended.get_or_insert(Ok(()));
                }
                Event::Failed(acd_core::client::ClientError::Protocol { status, .. })
                    if raw.any_body && (200..300).contains(&status) =>
                {
                    // `acd api` prints any successful body as received.
                    print_raw(head.as_deref(), &body, raw.jq.as_deref(), layout)?;
                    ended = Some(Ok(()));
                }
                Event::Failed(error) => {
                    if let (Some(shown), acd_core::client::ClientError::Api { .. }) =
                        (&head, &error)
                    {
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

/// What kind of job the plan runs, as far as printing and exit go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    /// `acd runs create --wait`: exit 1 unless the run succeeded.
    CreateRunAndWait,
    /// Anything else.
    Other,
}

/// The request as sent: `-H` headers set (replacing a header of the same
/// name), and a path outside the version root moved back under the base URL.
fn adjust(
    mut request: acd_core::client::ClientRequest,
    raw: &crate::api::Raw,
) -> acd_core::client::ClientRequest {
    for (name, value) in &raw.headers {
        request
            .headers
            .retain(|(existing, _)| !existing.eq_ignore_ascii_case(name));
        request.headers.push((name.clone(), value.clone()));
    }
    if let Some((from, to)) = &raw.reroot {
        if let Some(rest) = request.url.strip_prefix(from.as_str()) {
            request.url = format!("{to}{rest}");
        }
    }
    request
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
