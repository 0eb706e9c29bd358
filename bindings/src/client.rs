//! The client role's objects: [`ClientConfig`], [`Client`] (the core's
//! driver), [`ClientRequest`], [`Throttle`] and [`RetryPlanner`], plus the
//! header parsers. Each wraps the core type (behind a mutex where the core
//! mutates) and forwards.

use crate::client_types::{
    pairs, to_json, ClientFailure, DeprecationWarning, HttpResponse, InterpretResult, Outcome,
    Plan, RateLimitHeaders, RequestSpec, RetryDecision,
};
use crate::gate_types::{CredentialKind, ResponseHeader};
use crate::{time, AcdError};
use acd_core::client as core_client;
use acd_core::model::{Catalogue, Secret};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl From<core_client::ClientError> for AcdError {
    /// `Config` for an error of the `config` category, else `Request`.
    fn from(error: core_client::ClientError) -> Self {
        match error.category() {
            core_client::ErrorCategory::Config => AcdError::Config(error.to_string()),
            _ => AcdError::Request(error.to_string()),
        }
    }
}

/// The client's configuration (`ClientConfig` of the core): defaults, or
/// the core's JSON (every member optional), plus credentials added by builder.
#[derive(uniffi::Object)]
#[uniffi::export(Debug)]
pub struct ClientConfig {
    inner: core_client::ClientConfig,
}

impl std::fmt::Debug for ClientConfig {
    /// Base URL and credential ids only.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids: Vec<&str> = self
            .inner
            .credentials
            .iter()
            .map(|c| c.id.as_str())
            .collect();
        write!(
            f,
            "ClientConfig({}, credentials={ids:?})",
            self.inner.base_url
        )
    }
}

#[uniffi::export]
impl ClientConfig {
    /// The default configuration (no credentials).
    #[uniffi::constructor]
    pub fn new() -> Arc<Self> {
        Arc::new(Self {
            inner: core_client::ClientConfig::default(),
        })
    }

    /// A configuration from JSON text; members left out take their defaults.
    #[uniffi::constructor]
    pub fn from_json(json: String) -> Result<Arc<Self>, AcdError> {
        serde_json::from_str(&json)
            .map(|inner| Arc::new(Self { inner }))
            .map_err(|error| AcdError::Config(format!("client configuration JSON: {error}")))
    }

    /// A copy with one more credential (requests use the first unless they
    /// name another by `id`).
    pub fn with_credential(
        &self,
        id: String,
        kind: CredentialKind,
        secret: String,
        user: String,
    ) -> Arc<Self> {
        let mut inner = self.inner.clone();
        inner.credentials.push(core_client::ClientCredential {
            id,
            kind: kind.into(),
            secret: Secret::new(secret),
            user,
        });
        Arc::new(Self { inner })
    }

    /// A copy whose catalogue also has `createAgentRun` (the core's
    /// definition: 30 runs per 60 s per agent).
    pub fn with_create_agent_run(&self) -> Result<Arc<Self>, AcdError> {
        let mut inner = self.inner.clone();
        inner
            .catalogue
            .add(Catalogue::create_agent_run())
            .map_err(|error| AcdError::Config(error.to_string()))?;
        Ok(Arc::new(Self { inner }))
    }

    /// A copy in which operation `operation_id` is marked as honouring
    /// `Idempotency-Key` (so, with `idempotency_keys` on, its POSTs carry a
    /// key and may be retried).
    pub fn with_idempotency_keys_honoured(
        &self,
        operation_id: String,
    ) -> Result<Arc<Self>, AcdError> {
        let mut inner = self.inner.clone();
        let operation = inner.catalogue.get_mut(&operation_id).ok_or_else(|| {
            AcdError::Config(format!(
                "operation {operation_id:?} is not in this configuration's catalogue"
            ))
        })?;
        operation.honours_idempotency_key = true;
        Ok(Arc::new(Self { inner }))
    }

    /// A copy whose catalogue has `getRun` (`GET /runs/{run_id}`, a single
    /// `data` object; the operation pollers use). The default catalogue
    /// already has it, so this only matters for a caller-built catalogue.
    pub fn with_get_run(&self) -> Result<Arc<Self>, AcdError> {
        let mut inner = self.inner.clone();
        let get_run = acd_core::model::Catalogue::get_run();
        if inner.catalogue.get(&get_run.id).is_none() {
            inner
                .catalogue
                .add(get_run)
                .map_err(|error| AcdError::Config(error.to_string()))?;
        }
        Ok(Arc::new(Self { inner }))
    }

    /// The base URL.
    pub fn base_url(&self) -> String {
        self.inner.base_url.clone()
    }
}

/// A request ready to send. Its `repr`/`toString` shows method and URL path
/// only; `headers()` holds the credential, as it must be sent.
#[derive(uniffi::Object)]
#[uniffi::export(Debug, Display)]
pub struct ClientRequest {
    pub(crate) inner: Mutex<core_client::ClientRequest>,
    /// Attempt state for [`RetryPlanner::on_outcome`] (the driver keeps its own).
    pub(crate) attempt: Mutex<core_client::AttemptState>,
}

impl ClientRequest {
    pub(crate) fn new(inner: core_client::ClientRequest) -> Arc<Self> {
        Arc::new(Self {
            inner: Mutex::new(inner),
            attempt: Mutex::new(core_client::AttemptState::default()),
        })
    }
}

impl std::fmt::Display for ClientRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let request = lock(&self.inner);
        let path = request.target().split('?').next().unwrap_or_default();
        write!(f, "{} {path}", request.method)
    }
}

impl std::fmt::Debug for ClientRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ClientRequest({self})")
    }
}

#[uniffi::export]
impl ClientRequest {
    /// The method.
    pub fn method(&self) -> String {
        lock(&self.inner).method.clone()
    }

    /// The absolute URL.
    pub fn url(&self) -> String {
        lock(&self.inner).url.clone()
    }

    /// Headers in order, credential values shown as `<redacted>` (safe to
    /// print or log); [`ClientRequest::wire_headers`] has the bytes to send.
    pub fn headers(&self) -> Vec<ResponseHeader> {
        let request = lock(&self.inner);
        core_client::redact_headers(&request.headers)
            .into_iter()
            .map(|(name, value)| ResponseHeader {
                name: name.to_owned(),
                value: value.to_owned(),
            })
            .collect()
    }

    /// Headers to send, in order, every byte kept (credentials included):
    /// for the transport only. Never log them.
    pub fn wire_headers(&self) -> Vec<ResponseHeader> {
        lock(&self.inner)
            .headers
            .iter()
            .map(|(name, value)| ResponseHeader {
                name: name.clone(),
                value: value.clone(),
            })
            .collect()
    }

    /// The body, if any.
    pub fn body(&self) -> Option<Vec<u8>> {
        lock(&self.inner).body.clone()
    }

    /// The operation id.
    pub fn operation_id(&self) -> String {
        lock(&self.inner).operation_id.clone()
    }

    /// Advice about the request (e.g. `direction` without `order_by`).
    pub fn warnings(&self) -> Vec<String> {
        lock(&self.inner).warnings.clone()
    }

    /// Attempts sent so far (as set for [`RetryPlanner::on_outcome`]).
    pub fn attempts(&self) -> u32 {
        lock(&self.attempt).attempts
    }

    /// Resumes a call: sets the attempts already sent and when the first was.
    pub fn set_attempts(
        &self,
        attempts: u32,
        first_sent_at_ms: Option<i64>,
    ) -> Result<(), AcdError> {
        let first = first_sent_at_ms
            .map(|at| time::to_core("first_sent_at_ms", at))
            .transpose()?;
        let mut state = lock(&self.attempt);
        state.attempts = attempts;
        state.first_sent_at = first;
        Ok(())
    }

    /// The request as JSON, credential values shown as `<redacted>`.
    pub fn to_json(&self) -> String {
        to_json(&*lock(&self.inner))
    }

    /// The request's wire form as JSON (every byte kept, credentials
    /// included): for a transport only. Never log it.
    pub fn to_wire_json(&self) -> String {
        lock(&self.inner).to_wire_json()
    }
}

/// One request to send now, and the call it belongs to.
#[derive(Debug, uniffi::Record)]
pub struct Transmit {
    /// The call's id; hand the outcome to `handle` with it.
    pub id: u64,
    /// The request.
    pub request: Arc<ClientRequest>,
}

/// One client: the core's driver (start calls, `poll_transmit`, `handle`,
/// `poll_event`, `poll_timeout`), plus building and interpreting on their
/// own. Shared across threads; its state is behind a mutex.
#[derive(uniffi::Object)]
#[uniffi::export(Debug)]
pub struct Client {
    pub(crate) inner: Mutex<core_client::Client>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Client({})", lock(&self.inner).config().base_url)
    }
}

fn call_id(id: u64) -> core_client::CallId {
    core_client::CallId(id)
}

#[uniffi::export]
impl Client {
    /// A client for `config` (checked). Without `seed` in the configuration,
    /// jitter and idempotency keys are seeded from OS entropy.
    #[uniffi::constructor]
    pub fn new(config: Arc<ClientConfig>) -> Result<Arc<Self>, AcdError> {
        let entropy = match config.inner.seed {
            Some(seed) => core_client::Entropy::from_seed(seed),
            None => core_client::Entropy::from_os()
                .map_err(|error| AcdError::Config(format!("no OS entropy: {error}")))?,
        };
        let inner = core_client::Client::new(config.inner.clone(), entropy)
            .map_err(|error| AcdError::Config(error.to_string()))?;
        Ok(Arc::new(Self {
            inner: Mutex::new(inner),
        }))
    }

    /// Builds `spec` into a request, validated with the gate's validators.
    /// An automatic idempotency key comes from the client's one key stream,
    /// so it never repeats a key of a call the client started.
    pub fn build(&self, spec: RequestSpec) -> Result<Arc<ClientRequest>, AcdError> {
        let request = lock(&self.inner).build(&spec.into())?;
        Ok(ClientRequest::new(request))
    }

    /// The largest response body the client accepts, in bytes (the core's
    /// `ClientConfig::max_body_bytes`): a transport stops reading a body
    /// as soon as it passes this, and reads none of a body whose
    /// `Content-Length` is above it.
    pub fn max_body_bytes(&self) -> u64 {
        lock(&self.inner).config().max_body_bytes
    }

    /// Like `build`, but a refusal comes back as a value with its kind.
    pub fn try_build(&self, spec: RequestSpec) -> BuildResult {
        match lock(&self.inner).build(&spec.into()) {
            Ok(request) => BuildResult::Ok {
                request: ClientRequest::new(request),
            },
            Err(error) => BuildResult::Err {
                failure: error.into(),
            },
        }
    }

    /// Starts one call of `spec`; its id.
    pub fn start(&self, spec: RequestSpec) -> Result<u64, AcdError> {
        Ok(lock(&self.inner)
            .start(core_client::RequestSpec::from(spec))?
            .0)
    }

    /// Starts a table pager; `options_json` is the core's
    /// `TablePagerOptions` (every member optional).
    pub fn start_table_pager(&self, table: String, options_json: String) -> Result<u64, AcdError> {
        let options = serde_json::from_str(&options_json)
            .map_err(|error| AcdError::Config(format!("table pager options JSON: {error}")))?;
        Ok(lock(&self.inner).start_table_pager(&table, options)?.0)
    }

    /// Starts a connection pager; `options_json` is the core's
    /// `ConnectionPagerOptions` (every member optional).
    pub fn start_connection_pager(
        &self,
        connection: String,
        entity: String,
        options_json: String,
    ) -> Result<u64, AcdError> {
        let options = serde_json::from_str(&options_json)
            .map_err(|error| AcdError::Config(format!("connection pager options JSON: {error}")))?;
        Ok(lock(&self.inner)
            .start_connection_pager(&connection, &entity, options)?
            .0)
    }

    /// Starts a run poller; `options_json` is the core's `PollOptions`.
    pub fn start_run_poller(&self, run_id: String, options_json: String) -> Result<u64, AcdError> {
        let options = serde_json::from_str(&options_json)
            .map_err(|error| AcdError::Config(format!("poll options JSON: {error}")))?;
        Ok(lock(&self.inner).start_run_poller(&run_id, options)?.0)
    }

    /// Drops call `id`; nothing more is emitted for it.
    pub fn cancel(&self, id: u64) {
        lock(&self.inner).cancel(call_id(id));
    }

    /// The next request to send now, if any (the send is recorded).
    pub fn poll_transmit(&self, now_ms: i64) -> Result<Option<Transmit>, AcdError> {
        let now = time::to_core("now_ms", now_ms)?;
        Ok(lock(&self.inner)
            .poll_transmit(now)
            .map(|transmit| Transmit {
                id: transmit.id.0,
                request: ClientRequest::new(transmit.request),
            }))
    }

    /// When `poll_transmit` may next have something (Unix ms), if anything waits.
    pub fn poll_timeout(&self) -> Option<i64> {
        lock(&self.inner).poll_timeout().map(time::from_core)
    }

    /// How the attempt sent for call `id` ended.
    pub fn handle(&self, id: u64, outcome: Outcome, now_ms: i64) -> Result<(), AcdError> {
        let now = time::to_core("now_ms", now_ms)?;
        Ok(lock(&self.inner).handle(call_id(id), outcome.into(), now)?)
    }

    /// The next event as `{"call": id, "event": <the core's Event JSON>}`.
    pub fn poll_event_json(&self) -> Option<String> {
        lock(&self.inner)
            .poll_event()
            .map(|(id, event)| serde_json::json!({"call": id.0, "event": event}).to_string())
    }

    /// Every pending event, drained in order, as one JSON array of
    /// `{"call": id, "event": <the core's Event JSON>}`; a `failed` event's
    /// entry also has `"message"`, the error's sentence, and `"category"`,
    /// its category. One crossing per
    /// drain: records arrive inside it as raw JSON, parsed once by the caller.
    pub fn poll_events_json(&self) -> String {
        let mut client = lock(&self.inner);
        let mut entries = Vec::new();
        while let Some((id, event)) = client.poll_event() {
            let mut entry = serde_json::json!({"call": id.0, "event": event});
            if let core_client::Event::Failed(error) = &event {
                entry["message"] = error.to_string().into();
                entry["category"] = error.category().as_str().into();
            }
            entries.push(entry);
        }
        serde_json::Value::Array(entries).to_string()
    }

    /// The throttle's view of each limit, as one JSON array of the core's
    /// `LimitModel` (times in Unix ms).
    pub fn limits_json(&self) -> String {
        let client = lock(&self.inner);
        let models: Vec<_> = client.throttle().models().collect();
        to_json(&models)
    }

    /// Whether no call is live.
    pub fn is_idle(&self) -> bool {
        lock(&self.inner).is_idle()
    }

    /// Interprets a response to `request` without touching any state.
    pub fn interpret(
        &self,
        request: Arc<ClientRequest>,
        response: HttpResponse,
    ) -> InterpretResult {
        let operation_id = lock(&request.inner).operation_id.clone();
        self.interpret_operation(operation_id, response)
    }

    /// Interprets a response to operation `operation_id` of this client's
    /// catalogue, without a request.
    pub fn interpret_operation(
        &self,
        operation_id: String,
        response: HttpResponse,
    ) -> InterpretResult {
        let client = lock(&self.inner);
        let response = response.into();
        if let Err(error) = core_client::check_body_size(&response, client.config().max_body_bytes)
        {
            return Err(error).into();
        }
        match client.config().catalogue.get(&operation_id) {
            Some(operation) => core_client::interpret(operation, &response).into(),
            None => Err(core_client::ClientError::UnknownOperation {
                operation: operation_id,
            })
            .into(),
        }
    }
}

/// A built request, or why it was refused.
#[derive(Debug, uniffi::Enum)]
pub enum BuildResult {
    /// Ready to send.
    Ok {
        /// The request.
        request: Arc<ClientRequest>,
    },
    /// Refused before any I/O.
    Err {
        /// Why.
        failure: crate::client_types::ClientFailure,
    },
}

/// The client's model of every rate limit, on its own (a `Client` has one).
#[derive(Debug, Default, uniffi::Object)]
pub struct Throttle {
    inner: Mutex<core_client::Throttle>,
}

#[uniffi::export]
impl Throttle {
    /// An empty throttle.
    #[uniffi::constructor]
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// "Send now" or "wait until T" for `request`.
    pub fn plan(&self, request: Arc<ClientRequest>, now_ms: i64) -> Result<Plan, AcdError> {
        let now = time::to_core("now_ms", now_ms)?;
        let request = lock(&request.inner);
        Ok(lock(&self.inner).plan(&request, now).into())
    }

    /// Counts a send of `request` at `now_ms`.
    pub fn on_sent(&self, request: Arc<ClientRequest>, now_ms: i64) -> Result<(), AcdError> {
        let now = time::to_core("now_ms", now_ms)?;
        let limits = lock(&request.inner).limits.clone();
        lock(&self.inner).on_sent(&limits, now);
        Ok(())
    }

    /// Learns from a response to `request` (status and rate-limit headers).
    pub fn on_response(
        &self,
        request: Arc<ClientRequest>,
        status: u16,
        headers: Vec<ResponseHeader>,
        now_ms: i64,
    ) -> Result<(), AcdError> {
        let now = time::to_core("now_ms", now_ms)?;
        let limits = lock(&request.inner).limits.clone();
        let parsed = core_client::parse_rate_limit_headers(&pairs(&headers), now);
        lock(&self.inner).on_response(&limits, status, &parsed, now);
        Ok(())
    }
}

/// Retry planning on its own: the default policy and budget, and a seeded
/// SplitMix64 random source (deterministic jitter).
#[derive(Debug, uniffi::Object)]
pub struct RetryPlanner {
    inner: Mutex<core_client::RetryPlanner>,
}

#[uniffi::export]
impl RetryPlanner {
    /// A planner with the default policy; its budget starts full, or with
    /// `budget_available` tokens.
    #[uniffi::constructor]
    pub fn new(seed: u64, budget_available: Option<u32>) -> Arc<Self> {
        let mut budget = core_client::RetryBudget::new(core_client::BudgetPolicy::default());
        if let Some(available) = budget_available {
            let spend = budget.available().saturating_sub(available);
            budget.try_spend(spend);
        }
        Arc::new(Self {
            inner: Mutex::new(core_client::RetryPlanner::with_budget(
                core_client::RetryPolicy::default(),
                budget,
                Box::new(core_client::SplitMix64::new(seed)),
            )),
        })
    }

    /// Decides about one outcome of `request`: done, retry at T, or give up.
    pub fn on_outcome(
        &self,
        request: Arc<ClientRequest>,
        outcome: Outcome,
        now_ms: i64,
    ) -> Result<RetryDecision, AcdError> {
        let now = time::to_core("now_ms", now_ms)?;
        let wire = lock(&request.inner);
        let mut state = lock(&request.attempt);
        let outcome = outcome.into();
        Ok(lock(&self.inner)
            .on_outcome(&wire, &mut state, &outcome, now)
            .into())
    }
}

/// Reads the rate-limit headers of a response received at `now_ms`.
#[uniffi::export]
pub fn parse_rate_limit_headers(
    headers: Vec<ResponseHeader>,
    now_ms: i64,
) -> Result<RateLimitHeaders, AcdError> {
    let now = time::to_core("now_ms", now_ms)?;
    let parsed = core_client::parse_rate_limit_headers(&pairs(&headers), now);
    Ok(RateLimitHeaders {
        retry_at_ms: parsed.retry_at.map(time::from_core),
        json: to_json(&parsed),
    })
}

/// A client error in the core's JSON form (as the vectors and `json`
/// members hold it) as a [`ClientFailure`]: its category and sentence.
#[uniffi::export]
pub fn client_failure_from_json(json: String) -> Result<ClientFailure, AcdError> {
    serde_json::from_str::<core_client::ClientError>(&json)
        .map(Into::into)
        .map_err(|error| AcdError::Request(format!("client error JSON: {error}")))
}

/// Reads the deprecation headers of a response to `operation_id`.
#[uniffi::export]
pub fn parse_deprecation(
    operation_id: String,
    headers: Vec<ResponseHeader>,
) -> Option<DeprecationWarning> {
    core_client::parse_deprecation(&operation_id, &pairs(&headers)).map(Into::into)
}
