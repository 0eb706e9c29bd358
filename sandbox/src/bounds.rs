//! The server's explicit bounds: sizes, counts and timeouts. Each one is
//! listed in `--help` and in sandbox/README.md.

use std::time::Duration;

/// Largest request head (request line + headers), in bytes; more is a 431.
pub const MAX_HEAD_BYTES: usize = 32 * 1024;
/// Most header fields in one request; more is a 431.
pub const MAX_HEADERS: usize = 100;
/// Most connections served at once; further clients wait in the accept queue.
pub const MAX_CONNECTIONS: usize = 1_024;
/// Longest a response write may stall (client not reading) before the
/// connection is dropped.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// Longest a shutdown waits for in-flight requests.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);
/// Longest the exit waits for stderr to take the request log's last lines.
pub const LOG_GRACE: Duration = Duration::from_secs(2);
/// Request log lines waiting for stderr at most; more are dropped (and
/// counted) rather than holding up a request.
pub const LOG_QUEUE_LINES: usize = crate::reqlog::writer::CAPACITY;
/// Default seconds to receive a whole request head once it has started.
pub const DEFAULT_HEADER_TIMEOUT_SECS: u64 = 10;
/// Default seconds an idle keep-alive connection is kept.
pub const DEFAULT_IDLE_TIMEOUT_SECS: u64 = 60;

/// The per-connection timeouts in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// From the first byte of a request head to its end; then 408 and close.
    pub header: Duration,
    /// Between requests on a keep-alive connection; then a quiet close.
    pub idle: Duration,
    /// A stalled response write; then the connection is dropped.
    pub write: Duration,
}

/// The text of `--help`'s bounds section (kept next to the values).
pub fn help_text() -> String {
    format!(
        "Bounds (explicit; see sandbox/README.md):\n  \
         request head (request line + headers)  at most {} KiB, else 431\n  \
         header fields per request              at most {}, else 431\n  \
         malformed request line or header       400\n  \
         bad parameters (percent-encoding too)  the gate's 400, listing every problem\n  \
         request bodies                         never read (no operation takes one)\n  \
         whole request head                     within --header-timeout once started, else 408\n  \
         a new connection that sends no byte    closed after --header-timeout\n  \
         idle keep-alive connection             closed after --idle-timeout\n  \
         configuration file                     at most {} MiB, else exit 2\n  \
         recorded requests (admin routes)       at most {} MiB; the oldest are forgotten\n  \
         static files                           at most {} MiB each, streamed {} KiB at a time\n  \
         agent ids / runs kept                  at most {} bytes (else 400) / {} (oldest forgotten)\n  \
         stalled response write                 connection dropped after {} s\n  \
         concurrent connections                 at most {}; more wait to be accepted\n  \
         shutdown (SIGTERM, Ctrl-C)             in-flight requests finish (at most {} s)\n  \
         request log lines waiting for stderr   at most {}; more are dropped and counted\n\n\
         Exit status: 0 after a clean shutdown, 1 when the address cannot be listened on,\n\
         2 for a bad command line or configuration file.",
        MAX_HEAD_BYTES / 1024,
        MAX_HEADERS,
        crate::config::MAX_CONFIG_BYTES / (1024 * 1024),
        crate::recorder::MAX_RING_BYTES / (1024 * 1024),
        crate::static_files::MAX_FILE_BYTES / (1024 * 1024),
        crate::static_files::STREAM_CHUNK_BYTES / 1024,
        crate::runs::MAX_AGENT_ID_BYTES,
        crate::runs::MAX_RUNS,
        WRITE_TIMEOUT.as_secs(),
        MAX_CONNECTIONS,
        SHUTDOWN_GRACE.as_secs(),
        LOG_QUEUE_LINES
    )
}
