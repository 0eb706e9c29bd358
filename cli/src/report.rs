//! Everything on stderr except the final error: waits (a countdown bar on a
//! terminal, one `waiting ...` line otherwise), the core's retry sentences,
//! paging progress, run status
//! changes, deprecation warnings and, with `--verbose`, one line per HTTP
//! exchange. Nothing here decides anything; it shows what the core decided.
//! No secret ever reaches this module: it sees URLs, statuses and headers
//! of responses only.

use crate::engine::Millis;
use acd_core::client::{
    ClientRequest, DeprecationWarning, LimitInfo, LimitOrigin, Outcome, WaitReason,
};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::time::{Duration, UNIX_EPOCH};

/// How chatty stderr is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verbosity {
    /// No progress or wait lines (warnings and errors still show).
    Quiet,
    /// Waits, progress, status changes, warnings.
    Normal,
    /// Also one line per HTTP exchange.
    Verbose,
}

/// The stderr reporter of one command.
pub struct Reporter {
    verbosity: Verbosity,
    terminal: bool,
    bars: MultiProgress,
    progress: Option<ProgressBar>,
    wait: Option<(ProgressBar, Millis)>,
    warned: BTreeSet<String>,
}

impl Reporter {
    /// A reporter; bars only when stderr is a terminal.
    pub fn new(verbosity: Verbosity) -> Self {
        Self {
            verbosity,
            terminal: std::io::stderr().is_terminal(),
            bars: MultiProgress::with_draw_target(ProgressDrawTarget::stderr()),
            progress: None,
            wait: None,
            warned: BTreeSet::new(),
        }
    }

    fn line(&self, text: &str) {
        self.bars.suspend(|| eprintln!("{text}"));
    }

    /// Runs `write` (a write to stdout) with the bars out of the way, so
    /// that data and bars sharing one terminal do not overwrite each other.
    pub fn suspend<R>(&self, write: impl FnOnce() -> R) -> R {
        self.bars.suspend(write)
    }

    /// One HTTP exchange (shown with `--verbose`).
    pub fn exchange(&self, request: &ClientRequest, outcome: &Outcome) {
        if self.verbosity != Verbosity::Verbose {
            return;
        }
        let shown = match outcome {
            Outcome::Response(response) => {
                let remaining = response
                    .header("RateLimit-Remaining")
                    .or_else(|| response.header("x-ratelimit-remaining"))
                    .unwrap_or("?");
                format!("{} (remaining {remaining})", response.status)
            }
            Outcome::Transport(failure) => format!("failed: {failure}"),
        };
        self.line(&format!(
            "{} {} -> {shown}",
            request.method,
            request.target()
        ));
    }

    /// The call waits until `until` (`now` is the current instant);
    /// `last` names what the previous attempt got, when it is a retry.
    pub fn waiting(
        &mut self,
        until: Millis,
        now: Millis,
        limit: Option<&LimitInfo>,
        reason: WaitReason,
        last: Option<&str>,
    ) {
        if self.verbosity == Verbosity::Quiet || reason == WaitReason::PollInterval {
            return;
        }
        let seconds = until.saturating_sub(now) as f64 / 1000.0;
        let why = match (reason, limit) {
            (WaitReason::Quota, Some(limit)) => format!("for {}", describe_announced(limit)),
            (WaitReason::Quota, None) => "for a rate limit to reset".to_owned(),
            (WaitReason::RetryAfter, _) => format!(
                "as the server's Retry-After asks{}",
                last.map(|last| format!(" (last: {last})"))
                    .unwrap_or_default()
            ),
            (WaitReason::Backoff { attempt }, _) => format!(
                "before retrying{}{}",
                if attempt > 0 {
                    format!(" (attempt {attempt})")
                } else {
                    String::new()
                },
                last.map(|last| format!("; last: {last}"))
                    .unwrap_or_default()
            ),
            _ => String::new(),
        };
        let text = format!("waiting {seconds:.1} s {why}");
        if !self.terminal {
            self.line(&text);
            return;
        }
        let length = until.saturating_sub(now).max(1);
        let bar = self.bars.add(ProgressBar::new(length));
        bar.set_style(
            ProgressStyle::with_template("{msg} [{bar:20}] {prefix}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar.set_message(text);
        bar.set_prefix(format!("{seconds:.1} s left"));
        self.wait = Some((bar, until));
    }

    /// A retry the core planned, in the core's own sentence (which attempt
    /// of how many failed and how, and when the next goes), on one line.
    pub fn retrying(&self, message: &str) {
        if self.verbosity != Verbosity::Quiet {
            self.line(message);
        }
    }

    /// Moves the countdown bar to `now`.
    pub fn tick(&self, now: Millis) {
        if let Some((bar, until)) = &self.wait {
            let left = until.saturating_sub(now);
            bar.set_position(bar.length().unwrap_or(0).saturating_sub(left));
            bar.set_prefix(format!("{:.1} s left", left as f64 / 1000.0));
        }
    }

    /// The wait is over.
    pub fn waited(&mut self) {
        if let Some((bar, _)) = self.wait.take() {
            bar.finish_and_clear();
            self.bars.remove(&bar);
        }
    }

    /// Paging progress (on a terminal only).
    pub fn progress(&mut self, records: u64, pages: u64) {
        if !self.terminal || self.verbosity == Verbosity::Quiet {
            return;
        }
        let bars = &self.bars;
        let bar = self.progress.get_or_insert_with(|| {
            let bar = bars.add(ProgressBar::no_length());
            bar.set_style(
                ProgressStyle::with_template("{spinner} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        bar.set_message(format!(
            "{records} record{} in {pages} page{}",
            plural(records),
            plural(pages)
        ));
    }

    /// A run's status changed.
    pub fn run_status(&self, status: &str) {
        if self.verbosity != Verbosity::Quiet {
            self.line(&format!("run status: {status}"));
        }
    }

    /// The core's advice about a request (e.g. `--desc` without
    /// `--order-by`), once per command.
    pub fn advice(&mut self, warnings: &[String]) {
        for warning in warnings {
            if self.warned.insert(format!("advice:{warning}")) {
                self.line(&format!("warning: {warning}"));
            }
        }
    }

    /// A Deprecation/Sunset notice: one line per operation per command.
    pub fn deprecation(&mut self, warning: &DeprecationWarning) {
        if !self
            .warned
            .insert(format!("deprecation:{}", warning.operation_id))
        {
            return;
        }
        let sunset = match warning.sunset_at {
            Some(seconds) => format!(
                "; it will be removed on {} (Sunset)",
                httpdate::fmt_http_date(UNIX_EPOCH + Duration::from_secs(seconds))
            ),
            None => "; no sunset date is announced".to_owned(),
        };
        let link = warning
            .deprecation_link
            .as_ref()
            .or(warning.sunset_link.as_ref())
            .map(|link| format!(" (see {link})"))
            .unwrap_or_default();
        self.line(&format!(
            "warning: operation {} is deprecated{sunset}{link}",
            warning.operation_id
        ));
    }

    /// Clears every bar (before the final line, or on exit).
    pub fn finish(&mut self) {
        self.waited();
        if let Some(bar) = self.progress.take() {
            bar.finish_and_clear();
        }
    }

    /// A plain line (errors, interruption).
    pub fn say(&mut self, text: &str) {
        self.finish();
        eprintln!("{text}");
    }
}

fn plural(count: u64) -> &'static str {
    if count == 1 {
        ""
    } else {
        "s"
    }
}

/// "the table-read limit (5 per 60 s)".
pub fn describe_limit(limit: &LimitInfo) -> String {
    format!(
        "the {} ({} per {} s)",
        limit_name(&limit.name),
        limit.requests,
        limit.window_seconds
    )
}

/// The limit with the window the server announced when it did:
/// "the table-read limit (5 per 5 s, as the server announced)", "the
/// table-read limit (5 per window, as the server announced)", else the
/// catalogue's "the table-read limit (5 per 60 s)".
pub fn describe_announced(limit: &LimitInfo) -> String {
    let name = limit_name(&limit.name);
    let requests = limit.requests;
    match limit.origin {
        LimitOrigin::ServerWindow => format!(
            "the {name} ({requests} per {} s, as the server announced)",
            limit.window_seconds
        ),
        LimitOrigin::ServerCount => {
            format!("the {name} ({requests} per window, as the server announced)")
        }
        LimitOrigin::Assumed => describe_limit(limit),
    }
}

/// A limit's name as people say it.
fn limit_name(name: &str) -> String {
    match name {
        "user_table_reads" => "table-read limit".to_owned(),
        "credential" => "per-credential limit".to_owned(),
        "client_ip" => "per-IP limit".to_owned(),
        other => format!("{} limit", other.replace('_', " ")),
    }
}
