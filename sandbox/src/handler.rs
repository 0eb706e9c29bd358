//! Requests in, responses out: the router (the API through the gate,
//! `/openapi.json`, `/demo/` static files, the admin routes) and the
//! translation between HTTP and the gate's plain values. No rule of the API
//! is decided here.

use crate::admin::{self, ResettableLimiter};
use crate::clock::Clock;
use crate::config::Built;
use crate::faults::Faults;
use crate::recorder::Recorder;
use crate::reqlog::RequestLog;
use crate::runs::Runs;
use crate::static_files::StaticRoots;
use crate::store::Store;
use crate::{cors, openapi_doc, static_files};
use acd_core::gate::{Admitted, Decision, Gate, GateRequest, GateResponse};
use acd_core::limit::{LimitCheck, LimitStatus, LimiterUnavailable, RateLimiter, StackDecision};
use acd_core::model::ids;
use acd_core::UnixMillis;
use acd_redis::AsyncRedisLimiter;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use std::net::SocketAddr;
use std::sync::Arc;

/// The client's address, put in each request's extensions by the server.
#[derive(Debug, Clone, Copy)]
pub struct ClientAddr(pub SocketAddr);

/// How the rate limits are kept.
pub enum Limits {
    /// In memory, fixed (no admin routes).
    InMemory,
    /// In memory, emptied by `POST /_sandbox/reset`.
    Resettable(Arc<ResettableLimiter>),
    /// In a shared store (Redis), not reset by the sandbox. The gate's
    /// limit step is taken apart: `Gate::prepare`, the store's answer
    /// awaited on the async workers, then `PendingLimits::resume`.
    Shared(Arc<AsyncRedisLimiter>),
}

/// The gate's limiter when the limits are [`Limits::Shared`]: never asked,
/// because the handler awaits the shared store itself; should a decision
/// ever reach it, it answers "unavailable" (503) rather than deciding alone.
#[derive(Debug)]
pub struct AwaitedElsewhere;

impl RateLimiter for AwaitedElsewhere {
    fn acquire(&self, checks: &[LimitCheck<'_>], now: UnixMillis) -> StackDecision {
        StackDecision::Refused {
            refusing: LimitStatus {
                index: 0,
                limit: checks.first().map_or(0, |check| check.quota.requests),
                remaining: 0,
                reset_at: now,
            },
            retry_at: now,
        }
    }

    fn try_acquire(
        &self,
        _checks: &[LimitCheck<'_>],
        now: UnixMillis,
    ) -> Result<StackDecision, LimiterUnavailable> {
        Err(LimiterUnavailable::store_down(now.saturating_add(1_000)))
    }
}

impl std::fmt::Debug for Limits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::InMemory => "InMemory",
            Self::Resettable(_) => "Resettable",
            Self::Shared(_) => "Shared",
        })
    }
}

/// What the command line adds to the configuration.
#[derive(Debug)]
pub struct Options {
    /// Files served under `/demo/`.
    pub static_roots: Option<StaticRoots>,
    /// The sandbox's time.
    pub clock: Clock,
    /// Whether the admin routes are on.
    pub admin: bool,
    /// `--admin-token`: lets peers other than loopback use the admin routes.
    pub admin_token: Option<acd_core::model::Secret>,
    /// The faults in force (`--faults`).
    pub faults: Option<Faults>,
    /// The request log.
    pub log: RequestLog,
    /// The recorded requests (capacity 0 without the admin routes).
    pub recorder: Recorder,
    /// How the limits are kept.
    pub limits: Limits,
    /// The webhook deliveries, when endpoints are configured.
    pub webhooks: Option<crate::webhooks::Webhooks>,
}

/// Everything a request may need, shared by all connections.
#[derive(Debug)]
pub struct App {
    gate: Gate,
    store: Store,
    runs: Runs,
    openapi: Bytes,
    allow_headers: HeaderValue,
    /// The credential prefixes and their kinds.
    prefixes: Vec<(String, acd_core::model::CredentialKind)>,
    options: Options,
}

impl App {
    /// The application over a checked configuration.
    pub fn new(built: Built, options: Options) -> Self {
        let document = openapi_doc::document(&built);
        let config = built.gate.config();
        let allow_headers = cors::allow_headers(&config.stable_egress_header);
        let prefixes = vec![
            (
                config.api_key_prefix.clone(),
                acd_core::model::CredentialKind::ApiKey,
            ),
            (
                config.oauth_token_prefix.clone(),
                acd_core::model::CredentialKind::OAuthToken,
            ),
        ];
        Self {
            prefixes,
            gate: built.gate,
            store: built.store,
            runs: Runs::new(built.runs),
            openapi: Bytes::from(document),
            allow_headers,
            options,
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

    /// The files served under `/demo/`, if any.
    pub fn static_roots(&self) -> Option<&StaticRoots> {
        self.options.static_roots.as_ref()
    }

    /// The sandbox's clock.
    pub fn clock(&self) -> &Clock {
        &self.options.clock
    }

    /// The faults in force, if `--faults`.
    pub fn faults(&self) -> Option<&Faults> {
        self.options.faults.as_ref()
    }

    /// The recorded requests.
    pub fn recorder(&self) -> &Recorder {
        &self.options.recorder
    }

    /// The credential prefixes and the kinds they mark.
    pub fn credential_prefixes(&self) -> &[(String, acd_core::model::CredentialKind)] {
        &self.prefixes
    }

    /// The admin token, if any.
    pub fn admin_token(&self) -> Option<&acd_core::model::Secret> {
        self.options.admin_token.as_ref()
    }

    /// Whether `path` is an admin route's (with the admin routes on): no
    /// fault, no CORS grant.
    pub fn is_admin_path(&self, path: &str) -> bool {
        self.options.admin && path.starts_with("/_sandbox/")
    }

    /// The webhook deliveries, if endpoints are configured.
    pub fn webhooks(&self) -> Option<&crate::webhooks::Webhooks> {
        self.options.webhooks.as_ref()
    }

    /// Announces a run just created (answer `created`) to the webhooks.
    fn announce_run(&self, created: &GateResponse, now_ms: u64) {
        let Some(hooks) = self.webhooks() else {
            return;
        };
        if created.status != 200 {
            return;
        }
        let Ok(body) = serde_json::from_slice::<serde_json::Value>(&created.body) else {
            return;
        };
        let run = &body["data"];
        let agent = run["agent_id"].as_str().unwrap_or_default();
        hooks.run_created(run, now_ms, &self.runs.config().timeline(agent));
    }

    /// The request log.
    pub fn log(&self) -> &RequestLog {
        &self.options.log
    }

    /// Whether a request to `path` goes to the gate without the router:
    /// anything but `/openapi.json`, `/demo...` (with static files) and
    /// `/_sandbox/...` (with the admin routes).
    pub fn is_api_path(&self, path: &str) -> bool {
        path != "/openapi.json"
            && !(self.options.static_roots.is_some() && path.starts_with("/demo"))
            && !self.is_admin_path(path)
    }

    /// Clears every rate-limit counter and every run.
    pub fn reset(&self) -> Result<(), String> {
        match &self.options.limits {
            Limits::Resettable(limiter) => limiter.reset(),
            Limits::InMemory => {
                return Err("The limits cannot be reset: the admin routes are off.".into())
            }
            Limits::Shared(_) => {
                return Err(
                    "The limits live in Redis, shared with other sandboxes; this sandbox does not \
                     clear them."
                        .into(),
                )
            }
        }
        self.runs.clear();
        Ok(())
    }

    /// The answer to an admitted request, from the data and the runs.
    fn resolve(&self, admitted: Admitted, now_ms: u64) -> GateResponse {
        match admitted.operation_id() {
            ids::CREATE_AGENT_RUN => {
                let created = self.runs.create(admitted, now_ms);
                self.announce_run(&created, now_ms);
                created
            }
            acd_core::model::ids::GET_RUN => self.runs.get(admitted, now_ms),
            _ => self.store.respond(admitted),
        }
    }

    fn decide(&self, request: &GateRequest) -> GateResponse {
        let now = self.clock().now_ms();
        self.finish(self.gate.decide(request, now), now)
    }

    fn finish(&self, decision: Decision, now_ms: u64) -> GateResponse {
        match decision {
            Decision::Reply(response) => response,
            Decision::FetchResource(admitted) => self.resolve(*admitted, now_ms),
        }
    }
}

/// The router of every request.
pub fn router(app: Arc<App>) -> Router {
    let mut router = Router::new().route("/openapi.json", get(openapi_document));
    if app.static_roots().is_some() {
        router = router
            .route("/demo", get(static_files::redirect))
            .route("/demo/", get(static_files::serve))
            .route("/demo/{*path}", get(static_files::serve));
    }
    if app.options.admin {
        router = router
            .route("/_sandbox/clock", get(admin::clock).post(admin::clock))
            .route("/_sandbox/reset", post(admin::reset))
            .route(
                "/_sandbox/requests",
                get(admin::requests).delete(admin::requests),
            )
            .route(
                "/_sandbox/webhooks/deliveries",
                get(crate::webhooks::routes::deliveries),
            )
            .route(
                "/_sandbox/webhooks/deliveries/{id}/redeliver",
                post(crate::webhooks::routes::redeliver),
            );
    }
    router.fallback(api).with_state(app)
}

async fn openapi_document(State(app): State<Arc<App>>) -> Response {
    ([(CONTENT_TYPE, "application/json")], app.openapi.clone()).into_response()
}

/// Every other request: through the gate, then the store or the runs.
pub async fn api(State(app): State<Arc<App>>, request: Request) -> Response {
    let client_ip = request
        .extensions()
        .get::<ClientAddr>()
        .map(|addr| addr.0.ip().to_canonical().to_string())
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
    let Limits::Shared(store) = &app.options.limits else {
        return into_http(app.decide(&request));
    };
    let now = app.clock().now_ms();
    let pending = app.gate.prepare(&request, now);
    let decision = store.resolve(pending, now).await;
    into_http(app.finish(decision, now))
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
