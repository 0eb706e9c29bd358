//! The connection's byte stream with the sandbox's timeouts.
//!
//! hyper closes a connection whose request head is late without a word; the
//! sandbox answers it with `408 Request Timeout` first. [`TimedIo`] wraps the
//! TCP stream and knows three read phases:
//! * fresh (a new connection that has not sent a byte yet): after the
//!   header timeout the stream reports end-of-file and hyper closes the
//!   connection quietly, so that connections opened and left silent cannot
//!   hold the server's connection slots for the idle timeout;
//! * idle (no byte of the next request yet, after a first request): after
//!   the idle timeout the stream reports end-of-file, and hyper closes the
//!   connection quietly;
//! * head (bytes of a request arrived, the service has not been called yet):
//!   after the header timeout it writes a 408 itself and reports
//!   end-of-file, and hyper drops the half-read request.
//!
//! The service tells the stream that a head is complete through
//! [`ConnState::request_started`]. Writes that stall longer than the write
//! timeout fail, so a client that never reads cannot hold a task forever.

use crate::bounds::Timeouts;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::{sleep, Instant, Sleep};

/// State shared between a connection's stream and its service.
#[derive(Debug, Default)]
pub struct ConnState {
    requests: AtomicU64,
}

impl ConnState {
    /// Called by the service when hyper hands it a request (head complete).
    pub fn request_started(&self) {
        self.requests.fetch_add(1, Ordering::Relaxed);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Fresh,
    Idle,
    Head,
    Expired,
}

/// A TCP stream with header, idle and write timeouts.
#[derive(Debug)]
pub struct TimedIo {
    stream: TcpStream,
    state: Arc<ConnState>,
    timeouts: Timeouts,
    phase: Phase,
    seen_requests: u64,
    /// When the current phase began (idle: since the last request started).
    phase_start: Instant,
    /// Armed lazily: it may fire before the phase's deadline, which then
    /// re-arms it, so that a request costs no timer update in the common case.
    read_timer: Pin<Box<Sleep>>,
    write_deadline: Option<Pin<Box<Sleep>>>,
}

/// The 408 written when a request head is late.
fn timeout_response(seconds: u64) -> Vec<u8> {
    let body = format!(
        "{{\"detail\":\"The request head was not received within {seconds} s; the connection is \
         closed.\",\"status\":408}}"
    );
    format!(
        "HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n\
         access-control-allow-origin: *\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

impl TimedIo {
    /// Wraps `stream`; `state` is shared with the connection's service.
    pub fn new(stream: TcpStream, state: Arc<ConnState>, timeouts: Timeouts) -> Self {
        Self {
            stream,
            state,
            timeouts,
            phase: Phase::Fresh,
            seen_requests: 0,
            phase_start: Instant::now(),
            read_timer: Box::pin(sleep(timeouts.header)),
            write_deadline: None,
        }
    }

    /// A request reached the service since the last read: back to idle.
    fn sync_phase(&mut self) {
        let started = self.state.requests.load(Ordering::Relaxed);
        if started != self.seen_requests {
            self.seen_requests = started;
            if self.phase == Phase::Head {
                self.phase = Phase::Idle;
                self.phase_start = Instant::now();
            }
        }
    }

    /// When the current read phase times out.
    fn read_deadline(&self) -> Instant {
        let timeout = match self.phase {
            Phase::Fresh | Phase::Head => self.timeouts.header,
            Phase::Idle | Phase::Expired => self.timeouts.idle,
        };
        self.phase_start + timeout
    }

    /// Waits for the read deadline; `Ready` once it has passed.
    fn poll_read_deadline(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        loop {
            let deadline = self.read_deadline();
            if self.read_timer.deadline() > deadline {
                self.read_timer.as_mut().reset(deadline);
            }
            match self.read_timer.as_mut().poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(()) if Instant::now() >= deadline => return Poll::Ready(()),
                // Fired for an earlier phase: re-arm for this one.
                Poll::Ready(()) => self.read_timer.as_mut().reset(deadline),
            }
        }
    }

    fn expire(&mut self) {
        if self.phase == Phase::Head {
            // Best effort: the socket buffer takes these few bytes at once
            // unless the client stopped reading, and then it does not matter.
            let _ = self
                .stream
                .try_write(&timeout_response(self.timeouts.header.as_secs()));
        }
        self.phase = Phase::Expired;
    }

    fn poll_write_stall<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        let timeout = self.timeouts.write;
        let deadline = self
            .write_deadline
            .get_or_insert_with(|| Box::pin(sleep(timeout)));
        match deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client stopped reading the response",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn wrote<T>(
        &mut self,
        result: Poll<io::Result<T>>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<T>> {
        match result {
            Poll::Ready(result) => {
                self.write_deadline = None;
                Poll::Ready(result)
            }
            Poll::Pending => self.poll_write_stall(cx),
        }
    }
}

impl AsyncRead for TimedIo {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.phase == Phase::Expired {
            return Poll::Ready(Ok(()));
        }
        this.sync_phase();
        let before = buf.filled().len();
        match Pin::new(&mut this.stream).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if buf.filled().len() > before && matches!(this.phase, Phase::Idle | Phase::Fresh) {
                    this.phase = Phase::Head;
                    this.phase_start = Instant::now();
                }
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(error)) => Poll::Ready(Err(error)),
            Poll::Pending => match this.poll_read_deadline(cx) {
                Poll::Ready(()) => {
                    this.expire();
                    Poll::Ready(Ok(()))
                }
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

impl AsyncWrite for TimedIo {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.stream).poll_write(cx, data);
        this.wrote(result, cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.stream).poll_write_vectored(cx, data);
        this.wrote(result, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.stream).poll_flush(cx);
        this.wrote(result, cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}
