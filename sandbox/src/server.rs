//! The accept loop: HTTP/1.1 connections with explicit bounds, each served
//! on its own task, and a graceful shutdown on SIGTERM or Ctrl-C.

use crate::bounds::{Timeouts, MAX_CONNECTIONS, MAX_HEADERS, MAX_HEAD_BYTES, SHUTDOWN_GRACE};
use crate::conn_io::{ConnState, TimedIo};
use crate::handler::{App, ClientAddr};
use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::Request;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::signal::unix::{signal, Signal, SignalKind};
use tokio::sync::Semaphore;

/// SIGTERM and Ctrl-C (SIGINT), listened for from the moment it is made:
/// made before the listening line is printed, so that a signal sent as soon
/// as a tool has read that line already means a clean shutdown.
#[derive(Debug)]
pub struct ShutdownSignals {
    terminate: Signal,
    interrupt: Signal,
}

impl ShutdownSignals {
    /// Installs the handlers.
    pub fn install() -> std::io::Result<Self> {
        Ok(Self {
            terminate: signal(SignalKind::terminate())?,
            interrupt: signal(SignalKind::interrupt())?,
        })
    }

    /// Resolves on the first SIGTERM or SIGINT.
    async fn received(mut self) {
        tokio::select! {
            _ = self.terminate.recv() => {}
            _ = self.interrupt.recv() => {}
        }
    }
}

fn connection_builder() -> http1::Builder {
    let mut builder = http1::Builder::new();
    builder
        .max_buf_size(MAX_HEAD_BYTES)
        .max_header_size(MAX_HEAD_BYTES)
        .max_headers(MAX_HEADERS)
        .keep_alive(true)
        .half_close(false);
    builder
}

fn serve_connection(
    stream: TcpStream,
    app: &Arc<App>,
    router: &Router,
    builder: &http1::Builder,
    graceful: &GracefulShutdown,
    timeouts: Timeouts,
) -> impl std::future::Future<Output = ()> + Send + 'static {
    let peer = stream.peer_addr().ok();
    // Small responses go out at once instead of waiting for Nagle.
    let _ = stream.set_nodelay(true);
    let state = Arc::new(ConnState::default());
    let io = TokioIo::new(TimedIo::new(stream, state.clone(), timeouts));
    let router = router.clone();
    let app = app.clone();
    let service = service_fn(move |mut request: Request<Incoming>| {
        state.request_started();
        if let Some(peer) = peer {
            request.extensions_mut().insert(ClientAddr(peer));
        }
        crate::exchange::handle(app.clone(), router.clone(), request)
    });
    let connection = graceful.watch(builder.serve_connection(io, service));
    async move {
        // Errors here are the client's (reset, malformed, timed out): the
        // connection is simply over.
        let _ = connection.await;
    }
}

/// Serves `listener` until SIGTERM or Ctrl-C, then lets in-flight requests
/// finish (at most [`SHUTDOWN_GRACE`]).
pub async fn serve(
    listener: TcpListener,
    app: Arc<App>,
    router: Router,
    timeouts: Timeouts,
    signals: ShutdownSignals,
) {
    let builder = connection_builder();
    let graceful = GracefulShutdown::new();
    let permits = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let shutdown = signals.received();
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            () = &mut shutdown => break,
            permit = permits.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
        };
        let accepted = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => accepted,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(error) => {
                // Out of file descriptors and the like: wait, then go on.
                app.log().notice(&format!("accept failed: {error}"));
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let connection = serve_connection(stream, &app, &router, &builder, &graceful, timeouts);
        tokio::spawn(async move {
            connection.await;
            drop(permit);
        });
    }
    drop(listener);
    app.log()
        .notice("shutting down; letting in-flight requests finish");
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(SHUTDOWN_GRACE) => {
            app.log().notice(&format!(
                "some connections were still busy after {} s",
                SHUTDOWN_GRACE.as_secs()
            ));
        }
    }
}
