//! The client role's objects: [`ClientConfig`], [`Client`], [`ClientRequest`],
//! [`Throttle`] and [`RetryPlanner`], plus the header parsers. Each wraps the
//! core type (behind a mutex where the core mutates) and forwards.

use crate::client_types::{
    pairs, to_json, DeprecationWarning, Handled, HttpResponse, InterpretResult, Outcome, Plan,
    RateLimitHeaders, RequestSpec, RetryDecision,
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
    fn from(error: core_client::ClientError) -> Self {
        AcdError::Request(error.to_string())
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

    /// A copy whose catalogue also has `getRun` (`GET /runs/{run_id}`, a
    /// single `data` object; the operation the simulation and pollers use).
    pub fn with_get_run(&self) -> Result<Arc<Self>, AcdError> {
        let mut inner = self.inner.clone();
        inner
            .catalogue
            .add(acd_core::sim::run_operation())
            .map_err(|error| AcdError::Config(error.to_string()))?;
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
}

impl ClientRequest {
    pub(crate) fn new(inner: core_client::ClientRequest) -> Arc<Self> {
        Arc::new(Self {
            inner: Mutex::new(inner),
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

    /// Headers to send, in order (credential headers included).
    pub fn headers(&self) -> Vec<ResponseHeader> {
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

    /// Attempts sent so far.
    pub fn attempts(&self) -> u32 {
        lock(&self.inner).attempts
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
        let mut request = lock(&self.inner);
        request.attempts = attempts;
        request.first_sent_at = first;
        Ok(())
    }

    /// The request as the core serialises it (credential headers included).
    pub fn to_json(&self) -> String {
        to_json(&*lock(&self.inner))
    }
}

/// One client: builds requests, plans sends, interprets outcomes. Shared
/// across threads; its state (throttle, budget, notices) is behind a mutex.
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

#[uniffi::export]
impl Client {
    /// A client for `config` (checked).
    #[uniffi::constructor]
    pub fn new(config: Arc<ClientConfig>) -> Result<Arc<Self>, AcdError> {
        let inner = core_client::Client::new(config.inner.clone())
            .map_err(|error| AcdError::Config(error.to_string()))?;
        Ok(Arc::new(Self {
            inner: Mutex::new(inner),
        }))
    }

    /// Builds `spec` into a request, validated with the gate's validators.
    pub fn build(&self, spec: RequestSpec) -> Result<Arc<ClientRequest>, AcdError> {
        let request = lock(&self.inner).build(&spec.into())?;
        Ok(ClientRequest::new(request))
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

    /// "Send now" or "wait until T".
    pub fn plan(&self, request: Arc<ClientRequest>, now_ms: i64) -> Result<Plan, AcdError> {
        let now = time::to_core("now_ms", now_ms)?;
        let request = lock(&request.inner);
        Ok(lock(&self.inner).plan(&request, now).into())
    }

    /// Records that `request` is sent at `now_ms` (call right before sending).
    pub fn on_sent(&self, request: Arc<ClientRequest>, now_ms: i64) -> Result<(), AcdError> {
        let now = time::to_core("now_ms", now_ms)?;
        let mut request = lock(&request.inner);
        lock(&self.inner).on_sent(&mut request, now);
        Ok(())
    }

    /// Hands over how an attempt ended: retry at T, or the result.
    pub fn on_outcome(
        &self,
        request: Arc<ClientRequest>,
        outcome: Outcome,
        now_ms: i64,
    ) -> Result<Handled, AcdError> {
        let now = time::to_core("now_ms", now_ms)?;
        let mut request = lock(&request.inner);
        let outcome = outcome.into();
        Ok(lock(&self.inner)
            .on_outcome(&mut request, &outcome, now)
            .into())
    }

    /// Interprets a response to `request` without touching any state.
    pub fn interpret(
        &self,
        request: Arc<ClientRequest>,
        response: HttpResponse,
    ) -> InterpretResult {
        let request = lock(&request.inner);
        lock(&self.inner)
            .interpret(&request, &response.into())
            .into()
    }

    /// Interprets a response to operation `operation_id` of this client's
    /// catalogue, without a request.
    pub fn interpret_operation(
        &self,
        operation_id: String,
        response: HttpResponse,
    ) -> InterpretResult {
        let client = lock(&self.inner);
        match client.config().catalogue.get(&operation_id) {
            Some(operation) => core_client::interpret(operation, &response.into()).into(),
            None => Err(core_client::ClientError::UnknownOperation {
                operation: operation_id,
            })
            .into(),
        }
    }

    /// Takes the deprecation notices gathered so far.
    pub fn drain_notices(&self) -> Vec<DeprecationWarning> {
        lock(&self.inner)
            .drain_notices()
            .into_iter()
            .map(Into::into)
            .collect()
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
        let mut request = lock(&request.inner);
        let outcome = outcome.into();
        Ok(lock(&self.inner)
            .on_outcome(&mut request, &outcome, now)
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

/// Reads the deprecation headers of a response to `operation_id`.
#[uniffi::export]
pub fn parse_deprecation(
    operation_id: String,
    headers: Vec<ResponseHeader>,
) -> Option<DeprecationWarning> {
    core_client::deprecation::parse_deprecation(&operation_id, &pairs(&headers)).map(Into::into)
}
