//! One request from arrival to the log line: the fault chosen for it (with
//! `--faults`), the router, and the request log.

use crate::cors;
use crate::faults::{self, Action, Plan};
use crate::handler::{self, App};
use crate::recorder::Recorder;
use crate::reqlog::Entry;
use axum::body::Body;
use axum::extract::State;
use axum::http::header::CONTENT_LENGTH;
use axum::http::HeaderValue;
use axum::response::Response;
use axum::Router;
use bytes::Bytes;
use http_body::{Body as HttpBody, Frame, SizeHint};
use hyper::body::Incoming;
use hyper::Request;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tower::ServiceExt;

/// The connection is closed without an answer (an injected fault).
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("connection dropped by an injected fault")]
pub struct Dropped;

/// How long a truncated body waits after its half, so that the half is
/// flushed to the client before the connection is closed.
const TRUNCATE_PAUSE: Duration = Duration::from_millis(20);

/// A body that sends its first half, then fails: the connection is closed
/// before `Content-Length` bytes arrived.
struct Truncated {
    half: Option<Bytes>,
    /// Started once the half is handed over.
    pause: Option<Pin<Box<tokio::time::Sleep>>>,
    full_len: u64,
}

impl HttpBody for Truncated {
    type Data = Bytes;
    type Error = Dropped;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Dropped>>> {
        let this = self.get_mut();
        if let Some(half) = this.half.take() {
            this.pause = Some(Box::pin(tokio::time::sleep(TRUNCATE_PAUSE)));
            return Poll::Ready(Some(Ok(Frame::data(half))));
        }
        match this.pause.as_mut().map(|pause| pause.as_mut().poll(cx)) {
            Some(Poll::Pending) => Poll::Pending,
            _ => Poll::Ready(Some(Err(Dropped))),
        }
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.full_len)
    }
}

async fn truncate(response: Response) -> Response {
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return Response::from_parts(parts, Body::empty());
    };
    let full_len = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    parts
        .headers
        .insert(CONTENT_LENGTH, HeaderValue::from(full_len));
    let half = bytes.slice(..bytes.len() / 2);
    Response::from_parts(
        parts,
        Body::new(Truncated {
            half: Some(half),
            pause: None,
            full_len,
        }),
    )
}

fn with_cors(mut response: Response) -> Response {
    cors::decorate(response.headers_mut());
    response
}

/// Preflights are answered here; API requests go straight to the gate (the
/// hot path: no router); `/openapi.json`, `/demo/` and the admin routes go
/// through the router. Every answer but the admin routes' gets the CORS
/// headers; the admin routes grant a web page nothing, preflights included.
async fn route(app: &Arc<App>, router: Router, request: Request<Incoming>) -> Response {
    let admin = app.is_admin_path(request.uri().path());
    if cors::is_preflight(&request) {
        return if admin {
            cors::preflight_refused()
        } else {
            cors::preflight(app)
        };
    }
    if admin {
        return match router.oneshot(request).await {
            Ok(response) => response,
            Err(never) => match never {},
        };
    }
    let response = if app.is_api_path(request.uri().path()) {
        handler::api(State(app.clone()), request.map(Body::new)).await
    } else {
        match router.oneshot(request).await {
            Ok(response) => response,
            Err(never) => match never {},
        }
    };
    with_cors(response)
}

/// Carries out a fault plan (`--faults`).
async fn perform(
    app: &Arc<App>,
    router: Router,
    request: Request<Incoming>,
    plan: Plan,
) -> Result<Response, Dropped> {
    if let Some(ms) = plan.latency_ms {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    let response = match plan.action {
        Action::Drop => return Err(Dropped),
        Action::Route => route(app, router, request).await,
        Action::Status {
            status,
            retry_after,
        } => with_cors(faults::status_response(
            status,
            retry_after,
            "as asked by the Prefer header or a fault rule",
        )),
        Action::Example { status, body } => with_cors(faults::json_response(status, &body)),
        Action::Declared { status, example } => {
            let routed = route(app, router, request).await;
            if routed.status().as_u16() == status {
                routed
            } else {
                with_cors(faults::json_response(status, &example))
            }
        }
    };
    Ok(if plan.truncate {
        truncate(response).await
    } else {
        response
    })
}

/// Serves one request.
pub async fn handle(
    app: Arc<App>,
    router: Router,
    request: Request<Incoming>,
) -> Result<Response, Dropped> {
    let started = Instant::now();
    let arrival =
        (app.recorder().enabled() && !app.is_admin_path(request.uri().path())).then(|| {
            Recorder::arrival(
                app.log(),
                app.credential_prefixes(),
                request.method().as_str(),
                request.uri(),
                request.headers(),
                app.clock().now_ms(),
            )
        });
    let logged = app
        .log()
        .enabled()
        .then(|| (request.method().clone(), request.uri().clone()));
    let plan = match app.faults() {
        None => Ok(None),
        Some(faults) => faults.choose(
            request.method().as_str(),
            request.uri().path(),
            request
                .headers()
                .get_all("prefer")
                .iter()
                .map(HeaderValue::as_bytes),
        ),
    };
    let outcome = match plan {
        Ok(None) => Ok(route(&app, router, request).await),
        Err(problem) => Ok(with_cors(faults::status_response(
            400,
            None,
            &format!("the Prefer header cannot be honoured: {problem}"),
        ))),
        Ok(Some(plan)) => perform(&app, router, request, plan).await,
    };
    if let Some(arrival) = arrival {
        let status = outcome
            .as_ref()
            .ok()
            .map(|response| response.status().as_u16());
        app.recorder().record(arrival, status);
    }
    if let Some((method, uri)) = logged {
        let response = outcome.as_ref().ok();
        app.log().write(&Entry {
            method: method.as_str(),
            path: uri.path(),
            query: uri.query(),
            status: response.map(|response| response.status().as_u16()),
            remaining: response
                .and_then(|response| response.headers().get("ratelimit-remaining"))
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.parse().ok()),
            latency: started.elapsed(),
        });
    }
    outcome
}
