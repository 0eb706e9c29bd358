//! The admin routes of webhooks (with the other admin routes, under the
//! same guard, [`crate::admin::admit`]):
//!
//! * `GET /_sandbox/webhooks/deliveries` → `{"data": [attempt, ...]}`, every
//!   attempt oldest first (at most [`super::MAX_LOG`]): `id` (`att_N`),
//!   `delivery_id` (`dlv_N`), `event_id` (the `webhook-id`), `type`,
//!   `endpoint` (URL), `attempt` (1-based), `status` (the HTTP status, or
//!   null without an answer), `outcome` (`succeeded`, `failed`,
//!   `timed_out`, `error`, `dropped`), `error`, `time_ms` (sent),
//!   `finished_ms`, `next_attempt_ms` (null when none), `state` (the
//!   delivery's: `pending`, `succeeded`, `gave_up`, `dropped`) and `fault`
//!   (the injected delivery fault, or null);
//! * `POST /_sandbox/webhooks/deliveries/{id}/redeliver` (`id`: `dlv_N`,
//!   `att_N` or an event's `msg_N`) → 202 `{"redelivered": ["dlv_N"],
//!   "at_ms": T}`; 404 for an unknown id, 409 while an attempt is in flight.
//!
//! Without webhook endpoints both answer 404 with a problem saying so.

use crate::admin::{admit, Admission};
use crate::handler::App;
use axum::extract::{Path, Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use std::sync::Arc;

fn answer(status: StatusCode, body: &Value) -> Response {
    (
        status,
        [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        body.to_string(),
    )
        .into_response()
}

fn problem(status: StatusCode, detail: impl Into<String>) -> Response {
    let body = acd_core::model::ErrorBody::new(status.as_u16(), detail).to_bytes();
    (
        status,
        [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        body,
    )
        .into_response()
}

const NO_ENDPOINTS: &str = "This sandbox sends no webhooks: start it with --webhook URL or \
     webhooks.endpoints in the configuration.";

/// `GET /_sandbox/webhooks/deliveries`.
pub async fn deliveries(State(app): State<Arc<App>>, request: Request) -> Response {
    match admit(&app, &request) {
        Admission::Admitted => {}
        Admission::Hidden => return crate::handler::api(State(app), request).await,
        Admission::Refused(response) => return response,
    }
    let Some(hooks) = app.webhooks() else {
        return problem(StatusCode::NOT_FOUND, NO_ENDPOINTS);
    };
    hooks.catch_up(app.clock().now_ms()).await;
    answer(StatusCode::OK, &hooks.deliveries())
}

/// `POST /_sandbox/webhooks/deliveries/{id}/redeliver`.
pub async fn redeliver(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    request: Request,
) -> Response {
    match admit(&app, &request) {
        Admission::Admitted => {}
        Admission::Hidden => return crate::handler::api(State(app), request).await,
        Admission::Refused(response) => return response,
    }
    let Some(hooks) = app.webhooks() else {
        return problem(StatusCode::NOT_FOUND, NO_ENDPOINTS);
    };
    let now = app.clock().now_ms();
    match hooks.redeliver(&id, now) {
        Ok(done) => {
            hooks.catch_up(now).await;
            answer(
                StatusCode::ACCEPTED,
                &json!({"redelivered": done, "at_ms": now}),
            )
        }
        Err(detail) if detail.contains("in flight") => problem(StatusCode::CONFLICT, detail),
        Err(detail) if detail.contains("full queue") => problem(StatusCode::CONFLICT, detail),
        Err(detail) => problem(StatusCode::NOT_FOUND, detail),
    }
}
