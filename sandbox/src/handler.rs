//! Requests in, responses out: the router (the API through the gate,
//! `/openapi.json`, `/demo/` static files) and the translation between
//! HTTP and the gate's plain values. No rule of the API is decided here.

use crate::config::Built;
use crate::store::Store;
use crate::{cors, static_files};
use acd_core::gate::{Decision, Gate, GateRequest, GateResponse};
use acd_core::openapi::{self, OpenApiOptions};
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{middleware, Router};
use serde_json::json;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// The client's address, put in each request's extensions by the server.
#[derive(Debug, Clone, Copy)]
pub struct ClientAddr(pub SocketAddr);

/// Everything a request may need, shared by all connections.
#[derive(Debug)]
pub struct App {
    gate: Gate,
    store: Store,
    openapi: Bytes,
    static_dir: Option<PathBuf>,
    allow_headers: HeaderValue,
    blocking_limiter: bool,
}

impl App {
    /// The application over a checked configuration.
    pub fn new(built: Built, static_dir: Option<PathBuf>) -> Self {
        let mut options = OpenApiOptions::default();
        options
            .json_param_schemas
            .insert("filter".into(), json!({"type": "object"}));
        if built.demo.tables {
            options
                .examples
                .insert("id".into(), json!(crate::demo::ORDERS));
            options.examples.insert("order_by".into(), json!("total"));
            options.examples.insert("after".into(), json!("100"));
        }
        if built.demo.connections {
            options
                .examples
                .insert("connection_id".into(), json!(crate::demo::CRM));
            options
                .examples
                .insert("entity_id".into(), json!(crate::demo::CONTACTS));
            options
                .examples
                .insert("filter".into(), json!({"city": "Paris"}));
        }
        let document = openapi::document_bytes(built.gate.config(), &options);
        let allow_headers = cors::allow_headers(&built.gate.config().stable_egress_header);
        Self {
            gate: built.gate,
            store: built.store,
            openapi: Bytes::from(document),
            static_dir,
            allow_headers,
            blocking_limiter: built.blocking_limiter,
        }
    }

    /// The gate.
    pub fn gate(&self) -> &Gate {
        &self.gate
    }

    /// The value of `Access-Control-Allow-Headers` in preflight answers.
    pub fn allow_headers(&self) -> &HeaderValue {
        &self.allow_headers
    }

    /// The directory served under `/demo/`, if any.
    pub fn static_dir(&self) -> Option<&PathBuf> {
        self.static_dir.as_ref()
    }
}

/// The router of every request.
pub fn router(app: Arc<App>) -> Router {
    let mut router = Router::new().route("/openapi.json", get(openapi_document));
    if app.static_dir.is_some() {
        router = router
            .route("/demo", get(static_files::redirect))
            .route("/demo/", get(static_files::serve))
            .route("/demo/{*path}", get(static_files::serve));
    }
    router
        .fallback(api)
        .layer(middleware::from_fn_with_state(app.clone(), cors::layer))
        .with_state(app)
}

async fn openapi_document(State(app): State<Arc<App>>) -> Response {
    ([(CONTENT_TYPE, "application/json")], app.openapi.clone()).into_response()
}

/// Unix milliseconds now (0 if the clock is before 1970).
fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
        })
}

/// Every other request: through the gate, then the store.
async fn api(State(app): State<Arc<App>>, request: Request) -> Response {
    let client_ip = request
        .extensions()
        .get::<ClientAddr>()
        .map(|addr| addr.0.ip().to_string())
        .unwrap_or_default();
    let (parts, _unread_body) = request.into_parts();
    let target = parts
        .uri
        .path_and_query()
        .map_or("/", |target| target.as_str())
        .as_bytes()
        .to_vec();
    let headers = parts
        .headers
        .iter()
        .map(|(name, value)| (name.as_str().to_owned(), value.as_bytes().to_vec()))
        .collect();
    let request = GateRequest {
        method: parts.method.as_str().to_owned(),
        target,
        headers,
        client_ip,
    };
    let decide = move |app: &App| match app.gate.decide(&request, now_ms()) {
        Decision::Reply(response) => response,
        Decision::FetchResource(admitted) => app.store.respond(*admitted),
    };
    if !app.blocking_limiter {
        return into_http(decide(&app));
    }
    // A shared store (Redis) means a network round trip inside `decide`:
    // keep it off the async workers.
    let worker = app.clone();
    match tokio::task::spawn_blocking(move || decide(&worker)).await {
        Ok(response) => into_http(response),
        Err(_) => {
            let mut response = Response::new(Body::from(
                r#"{"detail":"The request could not be decided; please retry.","status":500}"#,
            ));
            *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
            response
                .headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            response
        }
    }
}

fn into_http(response: GateResponse) -> Response {
    let mut http = Response::new(Body::from(response.body));
    *http.status_mut() =
        StatusCode::from_u16(response.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = http.headers_mut();
    for (name, value) in response.headers {
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&value),
        ) {
            headers.append(name, value);
        }
    }
    http
}
