//! Everything on stderr except the final error: the core's wait sentences
//! (a countdown bar on a terminal, one line otherwise), its retry sentences,
//! paging progress, run status
//! changes, deprecation warnings and, with `--verbose`, one line per HTTP
//! exchange. Nothing here decides anything; it shows what the core decided.
//! No secret ever reaches this module: it sees URLs, statuses and headers
//! of responses only.

use crate::clock::Millis;
use acd_core::client::{ClientRequest, NoticeLevel, Outcome, WaitReason};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::time::Duration;

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

/// Which notices `ACD_LOG` asks for (`warning`, `info`, `debug`; the
/// command's default is `info`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogLevel {
    /// Long waits only.
    Warning,
    /// Every wait and retry, once each.
    Info,
    /// Also a retry's own wait.
    Debug,
}

impl LogLevel {
    /// `ACD_LOG`'s level; unset, empty or another value is `info`.
    pub fn from_env() -> Self {
        match std::env::var("ACD_LOG")
            .as_deref()
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Ok("debug") => LogLevel::Debug,
            Ok("warning" | "warn") => LogLevel::Warning,
            _ => LogLevel::Info,
        }
    }
}

/// The stderr reporter of one command.
pub struct Reporter {
    verbosity: Verbosity,
    log: LogLevel,
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
            log: LogLevel::from_env(),
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

    /// Whether a notice of `level` is shown: never with `--quiet`;
    /// `warning` and `info` by default (the waits and retries the command
    /// has always shown); `debug` (a retry's own wait, already said by its
    /// retry line) with `ACD_LOG=debug`; `ACD_LOG=warning` keeps only the
    /// long waits.
    fn shows(&self, level: Option<NoticeLevel>) -> bool {
        if self.verbosity == Verbosity::Quiet {
            return false;
        }
        let level = level.unwrap_or(NoticeLevel::Info);
        match self.log {
            LogLevel::Warning => level == NoticeLevel::Warning,
            LogLevel::Info => level != NoticeLevel::Debug,
            LogLevel::Debug => true,
        }
    }

    /// A wait the core planned until `until` (`now` is the current
    /// instant), said in the core's sentence: a countdown bar on a
    /// terminal, one line otherwise. A run poll's interval is said at
    /// debug only (the status lines already show the wait's progress).
    pub fn waiting(
        &mut self,
        message: &str,
        level: Option<NoticeLevel>,
        reason: WaitReason,
        until: Millis,
        now: Millis,
    ) {
        let level = if reason == WaitReason::PollInterval {
            Some(NoticeLevel::Debug)
        } else {
            level
        };
        if !self.shows(level) {
            return;
        }
        if !self.terminal {
            self.line(message);
            return;
        }
        let seconds = until.saturating_sub(now) as f64 / 1000.0;
        let length = until.saturating_sub(now).max(1);
        let bar = self.bars.add(ProgressBar::new(length));
        bar.set_style(
            ProgressStyle::with_template("{msg} [{bar:20}] {prefix}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar.set_message(message.to_owned());
        bar.set_prefix(format!("{seconds:.1} s left"));
        self.wait = Some((bar, until));
    }

    /// A retry the core planned, in the core's own sentence (which attempt
    /// of how many failed and how, and when the next goes), on one line.
    pub fn notice(&self, message: &str, level: Option<NoticeLevel>) {
        if self.shows(level) {
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

    /// A Deprecation/Sunset notice in the core's sentence: one line per
    /// notice per command (not one per page).
    pub fn deprecation(&mut self, message: &str) {
        if self.warned.insert(format!("deprecation:{message}")) {
            self.line(&format!("warning: {message}"));
        }
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
