//! The gate's objects: [`GateConfig`], [`Credentials`], [`GateRequest`],
//! [`Gate`] and [`Admitted`]. Each wraps the core type and forwards.
//!
//! Requests are objects rather than records because their headers hold
//! credentials: an object's `repr`/`toString` is the core's `Display`
//! (method and path only), while a generated record would print every field.

use crate::gate_types::{
    CredentialRecord, Decision, GateResponse, Header, Param, ParamValue, PathParam, Principal,
    ResourceAnswer,
};
use crate::{time, AcdError};
use acd_core::gate as core_gate;
use acd_core::limit::{LimitAlgorithm, LimiterConfig};
use acd_core::model::{InMemoryCredentials, Secret};
use std::sync::{Arc, Mutex, PoisonError};

/// The gate's configuration (`GateConfig` of the core). Built from defaults
/// or from the same JSON the core reads (every member optional).
#[derive(Debug, uniffi::Object)]
#[uniffi::export(Debug)]
pub struct GateConfig {
    inner: core_gate::GateConfig,
}

#[uniffi::export]
impl GateConfig {
    /// The default configuration.
    #[uniffi::constructor]
    pub fn new() -> Arc<Self> {
        Arc::new(Self {
            inner: core_gate::GateConfig::default(),
        })
    }

    /// A configuration from JSON text; members left out take their defaults.
    #[uniffi::constructor]
    pub fn from_json(json: String) -> Result<Arc<Self>, AcdError> {
        serde_json::from_str(&json)
            .map(|inner| Arc::new(Self { inner }))
            .map_err(|error| AcdError::Config(format!("gate configuration JSON: {error}")))
    }

    /// The whole configuration as JSON (every member, defaults included).
    pub fn to_json(&self) -> String {
        serde_json::to_string(&self.inner).unwrap_or_default()
    }

    /// The current major version, e.g. `v1`.
    pub fn version(&self) -> String {
        self.inner.version.clone()
    }

    /// The base URL every operation hangs off.
    pub fn base_url(&self) -> String {
        self.inner.base_url.clone()
    }
}

/// An in-memory credential table, keyed by secret. Its `repr`/`toString`
/// lists credential ids only, never secrets.
#[derive(Debug, Default, uniffi::Object)]
#[uniffi::export(Debug)]
pub struct Credentials {
    table: Mutex<InMemoryCredentials>,
}

impl Credentials {
    fn table(&self) -> std::sync::MutexGuard<'_, InMemoryCredentials> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[uniffi::export]
impl Credentials {
    /// An empty table.
    #[uniffi::constructor]
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// The published demo credentials (`acd_live_demo_ada`, ...).
    #[uniffi::constructor]
    pub fn demo() -> Arc<Self> {
        Arc::new(Self {
            table: Mutex::new(core_gate::demo::credentials()),
        })
    }

    /// Adds (or replaces) the credential `secret`.
    pub fn add(&self, secret: String, record: CredentialRecord) -> Result<(), AcdError> {
        let record = record.to_core()?;
        self.table().insert(Secret::new(secret), record);
        Ok(())
    }

    /// Number of credentials.
    pub fn len(&self) -> u64 {
        self.table().len() as u64
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.table().is_empty()
    }
}

/// One HTTP request as the gate sees it.
#[derive(uniffi::Object)]
#[uniffi::export(Debug, Display)]
pub struct GateRequest {
    inner: core_gate::GateRequest,
}

impl std::fmt::Debug for GateRequest {
    /// Method and path only: headers and query may hold secrets.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GateRequest({})", self.inner)
    }
}

impl std::fmt::Display for GateRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.inner.fmt(f)
    }
}

#[uniffi::export]
impl GateRequest {
    /// A request: `method`, the raw `target` bytes (path, then `?` and the
    /// raw query), headers in order, and the client's IP address.
    #[uniffi::constructor]
    pub fn new(
        method: String,
        target: Vec<u8>,
        headers: Vec<Header>,
        client_ip: String,
    ) -> Arc<Self> {
        Arc::new(Self {
            inner: core_gate::GateRequest {
                method,
                target,
                headers: headers.into_iter().map(|h| (h.name, h.value)).collect(),
                client_ip,
            },
        })
    }

    /// The method.
    pub fn method(&self) -> String {
        self.inner.method.clone()
    }

    /// The raw target bytes.
    pub fn target(&self) -> Vec<u8> {
        self.inner.target.clone()
    }

    /// The client's IP address.
    pub fn client_ip(&self) -> String {
        self.inner.client_ip.clone()
    }

    /// The header names, in order (values are not exposed: they may be secret).
    pub fn header_names(&self) -> Vec<String> {
        self.inner
            .headers
            .iter()
            .map(|(name, _)| name.clone())
            .collect()
    }
}

/// The gate: configuration, credentials and an in-memory limiter, shared by
/// every request and every thread.
#[derive(Debug, uniffi::Object)]
#[uniffi::export(Debug)]
pub struct Gate {
    inner: core_gate::Gate,
}

/// The hash seed of a gate's limiter: `explicit`, or one drawn from the
/// operating system's generator.
fn hash_seed(explicit: Option<u64>) -> Result<u64, AcdError> {
    match explicit {
        Some(seed) => Ok(seed),
        None => LimiterConfig::default()
            .with_os_seed()
            .map(|config| config.hash_seed)
            .map_err(|error| {
                AcdError::Config(format!(
                    "no OS entropy for the rate limiter's hash seed ({error}); \
                     pass one with Gate.with_hash_seed"
                ))
            }),
    }
}

/// A core gate over `credentials` with the in-memory limiter (the core's default algorithm),
/// its keys hashed with `explicit` or an OS-drawn seed; also the seed used.
fn seeded(
    config: &GateConfig,
    credentials: InMemoryCredentials,
    explicit: Option<u64>,
) -> Result<(core_gate::Gate, u64), AcdError> {
    let seed = hash_seed(explicit)?;
    let gate = core_gate::Gate::in_memory_seeded(
        config.inner.clone(),
        credentials,
        LimitAlgorithm::default(),
        seed,
    )?;
    Ok((gate, seed))
}

#[uniffi::export]
impl Gate {
    /// A gate over a copy of `credentials` with the in-memory limiter, its
    /// keys hashed with a seed drawn from the operating system (so nobody
    /// outside can predict where subjects land).
    #[uniffi::constructor]
    pub fn new(
        config: Arc<GateConfig>,
        credentials: Arc<Credentials>,
    ) -> Result<Arc<Self>, AcdError> {
        let (inner, _) = seeded(&config, credentials.table().clone(), None)?;
        Ok(Arc::new(Self { inner }))
    }

    /// Like `new`, with the limiter's hash seed given (tests and runs that
    /// must repeat exactly; a gate facing a network uses `new`).
    #[uniffi::constructor]
    pub fn with_hash_seed(
        config: Arc<GateConfig>,
        credentials: Arc<Credentials>,
        hash_seed: u64,
    ) -> Result<Arc<Self>, AcdError> {
        let (inner, _) = seeded(&config, credentials.table().clone(), Some(hash_seed))?;
        Ok(Arc::new(Self { inner }))
    }

    /// A gate with the demo credentials (hash seed from the operating
    /// system, as `new`).
    #[uniffi::constructor]
    pub fn demo(config: Arc<GateConfig>) -> Result<Arc<Self>, AcdError> {
        let (inner, _) = seeded(&config, core_gate::demo::credentials(), None)?;
        Ok(Arc::new(Self { inner }))
    }

    /// Decides what to do with `request` at `now_ms` (Unix ms).
    pub fn decide(&self, request: Arc<GateRequest>, now_ms: i64) -> Result<Decision, AcdError> {
        let now = time::to_core("now_ms", now_ms)?;
        Ok(decision(self.inner.decide(&request.inner, now)))
    }

    /// Step one of the two-step form, for credential stores the gate cannot
    /// call itself (remote, async): the secret to look up for `request`, or
    /// `None` when none is needed. Look it up, then call `decide_answered`.
    pub fn credential_to_look_up(&self, request: Arc<GateRequest>) -> Option<String> {
        self.inner
            .credential_to_look_up(&request.inner)
            .map(str::to_owned)
    }

    /// Step two: decides `request` at `now_ms` with the caller's answer for
    /// the secret named by `credential_to_look_up` (`None`: unknown).
    pub fn decide_answered(
        &self,
        request: Arc<GateRequest>,
        record: Option<CredentialRecord>,
        now_ms: i64,
    ) -> Result<Decision, AcdError> {
        let now = time::to_core("now_ms", now_ms)?;
        let record = record.map(|record| record.to_core()).transpose()?;
        Ok(decision(self.inner.decide_answered(
            &request.inner,
            record,
            now,
        )))
    }

    /// The configuration the gate runs with.
    pub fn config(&self) -> Arc<GateConfig> {
        Arc::new(GateConfig {
            inner: self.inner.config().clone(),
        })
    }

    /// The index document served at `/api/{version}`, as JSON bytes.
    pub fn index_json(&self) -> Vec<u8> {
        self.inner.index().to_bytes()
    }
}

fn decision(decision: core_gate::Decision) -> Decision {
    match decision {
        core_gate::Decision::Reply(response) => Decision::Respond {
            response: response.into(),
        },
        core_gate::Decision::FetchResource(admitted) => Decision::Resolve {
            admitted: Arc::new(Admitted { inner: *admitted }),
        },
    }
}

/// A request that passed every rule, waiting for the caller's answer.
#[derive(uniffi::Object)]
#[uniffi::export(Debug)]
pub struct Admitted {
    inner: core_gate::Admitted,
}

impl std::fmt::Debug for Admitted {
    /// The operation and path parameters; query values may be sensitive.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Admitted({}", self.inner.operation_id())?;
        for (name, value) in self.inner.path_params() {
            write!(f, ", {name}={value:?}")?;
        }
        f.write_str(")")
    }
}

#[uniffi::export]
impl Admitted {
    /// The operation's id, e.g. `listTableRecords`.
    pub fn operation_id(&self) -> String {
        self.inner.operation_id().to_owned()
    }

    /// The decoded path parameters, in template order.
    pub fn path_params(&self) -> Vec<PathParam> {
        self.inner
            .path_params()
            .iter()
            .map(|(name, value)| PathParam {
                name: name.clone(),
                value: value.clone(),
            })
            .collect()
    }

    /// The decoded value of path parameter `name`.
    pub fn path_param(&self, name: String) -> Option<String> {
        self.inner.path_param(&name).map(str::to_owned)
    }

    /// The validated query parameters (defaults applied), in name order.
    pub fn params(&self) -> Vec<Param> {
        self.inner
            .params()
            .iter()
            .map(|(name, value)| Param {
                name: name.to_owned(),
                value: value.into(),
            })
            .collect()
    }

    /// The value of query parameter `name`.
    pub fn param(&self, name: String) -> Option<ParamValue> {
        self.inner.params().get(&name).map(Into::into)
    }

    /// Records to skip.
    pub fn offset(&self) -> Option<u64> {
        self.inner.params().offset()
    }

    /// Page size.
    pub fn limit(&self) -> Option<u64> {
        self.inner.params().limit()
    }

    /// Order column.
    pub fn order_by(&self) -> Option<String> {
        self.inner.params().order_by().map(str::to_owned)
    }

    /// Whether the direction is `desc`.
    pub fn descending(&self) -> bool {
        self.inner.params().descending()
    }

    /// Lower bound of the order column.
    pub fn after(&self) -> Option<String> {
        self.inner.params().after().map(str::to_owned)
    }

    /// Connection entity.
    pub fn entity_id(&self) -> Option<String> {
        self.inner.params().entity_id().map(str::to_owned)
    }

    /// Filter JSON text.
    pub fn filter(&self) -> Option<String> {
        self.inner.params().filter().map(str::to_owned)
    }

    /// Who is asking.
    pub fn principal(&self) -> Principal {
        self.inner.principal().clone().into()
    }

    /// The user, when authenticated.
    pub fn user(&self) -> Option<String> {
        self.inner.principal().user().map(str::to_owned)
    }

    /// Whether stable egress was asked for (header or URL).
    pub fn stable_egress(&self) -> bool {
        self.inner.stable_egress()
    }

    /// The response for the caller's `answer`. Answering twice gives the
    /// same response again (the limits were charged once, at `decide`).
    pub fn respond(&self, answer: ResourceAnswer) -> GateResponse {
        self.inner.clone().respond(answer.into()).into()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn config() -> GateConfig {
        GateConfig {
            inner: core_gate::GateConfig::default(),
        }
    }

    #[test]
    fn default_gates_draw_their_hash_seeds_from_the_os_and_an_explicit_one_is_kept() {
        let (_, first) = seeded(&config(), core_gate::demo::credentials(), None).unwrap();
        let (_, second) = seeded(&config(), core_gate::demo::credentials(), None).unwrap();
        // Two draws of 64 random bits: equal (or 0) with probability 2^-64.
        assert_ne!(first, second);
        assert_ne!(first, 0);
        let (_, explicit) = seeded(&config(), core_gate::demo::credentials(), Some(7)).unwrap();
        assert_eq!(explicit, 7);
    }
}
