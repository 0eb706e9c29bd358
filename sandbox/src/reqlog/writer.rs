//! The log's only way to stderr: a bounded channel to one writer thread.
//!
//! The async workers never write to stderr themselves: a line is handed to
//! the channel with `try_send`, and when the channel is full (stderr is read
//! slowly, or not at all: a pipe nobody drains) the line is dropped and
//! counted. The next line that gets through is preceded by a line saying
//! how many were dropped, and [`LogWriter::finish`] reports the total at
//! shutdown. A stalled stderr therefore costs log lines, never requests.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Lines waiting for the writer thread at most; more are dropped.
pub const CAPACITY: usize = 1_024;

/// How often [`LogWriter::finish`] looks again while it waits.
const POLL: Duration = Duration::from_millis(5);

enum Message {
    Text(String),
    Stop,
}

/// A bounded, non-blocking writer of whole lines (see the module doc).
pub struct LogWriter {
    sender: SyncSender<Message>,
    /// Dropped since the last report line went through.
    unreported: AtomicU64,
    /// Dropped since the start.
    total: AtomicU64,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl std::fmt::Debug for LogWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogWriter")
            .field("dropped", &self.dropped())
            .finish_non_exhaustive()
    }
}

/// The line that reports `count` lines dropped since the last report.
pub fn dropped_line(count: u64) -> String {
    format!("acd-sandbox: {count} log lines dropped: stderr is not read fast enough\n")
}

/// The line that reports `count` lines dropped in all, at shutdown.
pub fn dropped_total_line(count: u64) -> String {
    format!("acd-sandbox: {count} log lines were dropped in all: stderr was not read fast enough\n")
}

fn run(receiver: &Receiver<Message>, mut sink: Box<dyn Write + Send>) {
    while let Ok(Message::Text(text)) = receiver.recv() {
        // A closed or failing stderr must not stop the server.
        let _ = sink.write_all(text.as_bytes());
        let _ = sink.flush();
    }
}

impl LogWriter {
    /// A writer to the process's stderr.
    pub fn stderr() -> Self {
        Self::to(Box::new(std::io::stderr()), CAPACITY)
    }

    /// A writer to `sink`, holding at most `capacity` lines in waiting.
    pub fn to(sink: Box<dyn Write + Send>, capacity: usize) -> Self {
        let (sender, receiver) = sync_channel(capacity);
        let thread = std::thread::Builder::new()
            .name("acd-sandbox-log".into())
            .spawn(move || run(&receiver, sink))
            .ok();
        Self {
            sender,
            unreported: AtomicU64::new(0),
            total: AtomicU64::new(0),
            thread: Mutex::new(thread),
        }
    }

    /// Lines dropped so far.
    pub fn dropped(&self) -> u64 {
        self.total.load(Ordering::SeqCst)
    }

    /// Queues `line` (which ends with a newline) without waiting; drops and
    /// counts it when the queue is full.
    pub fn write(&self, line: String) {
        let pending = self.unreported.swap(0, Ordering::SeqCst);
        let text = if pending == 0 {
            line
        } else {
            dropped_line(pending) + &line
        };
        if self.sender.try_send(Message::Text(text)).is_err() {
            self.unreported.fetch_add(pending + 1, Ordering::SeqCst);
            self.total.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// Sends `message`, retrying until `deadline` while the queue is full.
    fn send_by(&self, mut message: Message, deadline: Instant) -> bool {
        loop {
            match self.sender.try_send(message) {
                Ok(()) => return true,
                Err(TrySendError::Disconnected(_)) => return false,
                Err(TrySendError::Full(again)) if Instant::now() < deadline => {
                    message = again;
                    std::thread::sleep(POLL);
                }
                Err(TrySendError::Full(_)) => return false,
            }
        }
    }

    /// At shutdown: reports the total of dropped lines (if any), then waits
    /// at most `grace` for the queued lines to be written. Returns whether
    /// everything was written; a stderr that is still not read is left
    /// behind rather than holding up the exit.
    pub fn finish(&self, grace: Duration) -> bool {
        let deadline = Instant::now() + grace;
        let total = self.dropped();
        if total > 0 && !self.send_by(Message::Text(dropped_total_line(total)), deadline) {
            return false;
        }
        if !self.send_by(Message::Stop, deadline) {
            return false;
        }
        let Some(thread) = self
            .thread
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
        else {
            return true;
        };
        while !thread.is_finished() {
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(POLL);
        }
        thread.join().is_ok()
    }
}

#[cfg(test)]
mod tests;
