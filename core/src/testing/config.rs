//! What a test server serves and how: [`TestServerConfig`] (Rust) and its
//! JSON form, every member optional:
//!
//! ```json
//! {
//!   "tables": {"orders": [{"id": 1}, {"id": 2}], "big": 550},
//!   "connections": {"crm": {"contacts": [{"id": 1, "city": "Paris"}]}},
//!   "runs": {"run_a": {"queued_ms": 0, "finishes_after_ms": 3000, "final_state": "succeeded"}},
//!   "new_runs": {"queued_ms": 1000, "finishes_after_ms": 5000, "final_state": "succeeded"},
//!   "limits": {"user_table_reads": {"requests": 5, "window_ms": 60000}},
//!   "gate": {"version": "v1"},
//!   "credentials": [{"secret": "acd_live_x", "id": "key-x", "kind": "api_key", "user": "x", "scopes": []}],
//!   "client_ip": "192.0.2.10",
//!   "start_ms": 1700000000000,
//!   "latency_ms": 20,
//!   "timeout_ms": 30000,
//!   "date_header": true,
//!   "faults": [{"status": 503, "every": 3, "operation": "listTableRecords"}],
//!   "seed": 1,
//!   "log_limit": 10000
//! }
//! ```
//!
//! A table (or entity) is its records or a count of sample records. `limits`
//! replaces the quota of each named limit wherever the gate defines it
//! (`credential`, `client_ip`, or an operation's extra limit such as
//! `user_table_reads` or `agent_runs`); an unknown name is refused. `gate`
//! is the core's gate configuration; without a `catalogue` it serves the
//! clients' catalogue (the three operations plus `createAgentRun` and
//! `getRun`). `credentials` replaces the demo credentials. `start_ms` is
//! when the dataset's runs start (default: the first request's instant).

use super::dataset::{connections_from_json, tables_from_json, Connections, Dataset, RunScript};
use super::faults::FaultRule;
use super::TestServerError;
use crate::gate::GateConfig;
use crate::model::limits::{CLIENT_IP_LIMIT_NAME, CREDENTIAL_LIMIT_NAME};
use crate::model::{Catalogue, CredentialRecord, InMemoryCredentials, Quota, Secret};
use crate::UnixMillis;
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// How many requests a test server logs by default (later ones are counted, not kept).
pub const DEFAULT_LOG_LIMIT: usize = 10_000;

/// A test server's configuration (see the module documentation for JSON).
#[derive(Debug, Clone)]
pub struct TestServerConfig {
    /// The tables, connections and scripted runs.
    pub dataset: Dataset,
    /// The script of runs created through `createAgentRun`.
    pub new_runs: RunScript,
    /// Quota overrides by limit name.
    pub limits: BTreeMap<String, Quota>,
    /// The gate's configuration (before `limits` apply).
    pub gate: GateConfig,
    /// The gate's credentials.
    pub credentials: InMemoryCredentials,
    /// The address the gate sees for [`super::TestServer::exchange`].
    pub client_ip: String,
    /// When the dataset's runs start (`None`: the first request's instant).
    pub start_ms: Option<UnixMillis>,
    /// Added to each answer's delivery time.
    pub latency_ms: u64,
    /// When a `timeout` fault is noticed, after the request.
    pub timeout_ms: u64,
    /// Whether responses carry a `Date` header, as real servers add.
    pub date_header: bool,
    /// Declarative fault rules, the first that fires wins.
    pub faults: Vec<FaultRule>,
    /// Seed of the rules' `per_mille` draws.
    pub seed: u64,
    /// How many requests the log keeps.
    pub log_limit: usize,
}

impl Default for TestServerConfig {
    fn default() -> Self {
        Self {
            dataset: Dataset::default(),
            new_runs: RunScript::default(),
            limits: BTreeMap::new(),
            gate: GateConfig {
                catalogue: Catalogue::for_clients(),
                ..GateConfig::default()
            },
            credentials: crate::gate::demo::credentials(),
            client_ip: "192.0.2.10".into(),
            start_ms: None,
            latency_ms: 0,
            timeout_ms: 30_000,
            date_header: true,
            faults: Vec::new(),
            seed: 1,
            log_limit: DEFAULT_LOG_LIMIT,
        }
    }
}

/// One entry of a credential table in JSON: the secret and what the gate
/// knows about it.
#[derive(Debug, Clone, Deserialize)]
struct CredentialEntry {
    secret: Secret,
    #[serde(flatten)]
    record: CredentialRecord,
}

/// A credential table from JSON: a list of `{secret, id, kind, user,
/// scopes, expires_at}`.
pub(crate) fn credentials_from_json<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<InMemoryCredentials, D::Error> {
    let entries = Vec::<CredentialEntry>::deserialize(deserializer)?;
    Ok(entries
        .into_iter()
        .fold(InMemoryCredentials::new(), |table, entry| {
            table.with(entry.secret, entry.record)
        }))
}

fn some_credentials<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<InMemoryCredentials>, D::Error> {
    credentials_from_json(deserializer).map(Some)
}

/// The JSON form (see the module documentation).
#[derive(Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct ConfigJson {
    #[serde(deserialize_with = "tables_from_json")]
    tables: BTreeMap<String, Vec<Value>>,
    #[serde(deserialize_with = "connections_from_json")]
    connections: Connections,
    runs: BTreeMap<String, RunScript>,
    new_runs: Option<RunScript>,
    limits: BTreeMap<String, Quota>,
    gate: Option<Value>,
    #[serde(deserialize_with = "some_credentials")]
    credentials: Option<InMemoryCredentials>,
    client_ip: Option<String>,
    start_ms: Option<UnixMillis>,
    latency_ms: Option<u64>,
    timeout_ms: Option<u64>,
    date_header: Option<bool>,
    faults: Vec<FaultRule>,
    seed: Option<u64>,
    log_limit: Option<usize>,
}

impl TestServerConfig {
    /// The configuration in `json` (see the module documentation): unknown
    /// members and malformed values are refused with the member's path.
    pub fn from_json(json: &[u8]) -> Result<Self, TestServerError> {
        let refused = |problem: String| TestServerError::Config { problem };
        let mut deserializer = serde_json::Deserializer::from_slice(json);
        #[cfg(feature = "field-paths")]
        let parsed: ConfigJson = serde_path_to_error::deserialize(&mut deserializer)
            .map_err(|error| refused(error.to_string()))?;
        #[cfg(not(feature = "field-paths"))]
        let parsed: ConfigJson = ConfigJson::deserialize(&mut deserializer)
            .map_err(|error| refused(error.to_string()))?;
        deserializer
            .end()
            .map_err(|error| refused(error.to_string()))?;
        let defaults = Self::default();
        let gate = match parsed.gate {
            None => defaults.gate,
            Some(Value::Object(mut members)) => {
                members.entry("catalogue").or_insert_with(|| {
                    serde_json::to_value(Catalogue::for_clients()).unwrap_or(Value::Null)
                });
                serde_json::from_value(Value::Object(members))
                    .map_err(|error| refused(format!("gate: {error}")))?
            }
            Some(_) => {
                return Err(refused(
                    "gate: must be a JSON object (the gate configuration)".into(),
                ))
            }
        };
        Ok(Self {
            dataset: Dataset {
                tables: parsed.tables,
                connections: parsed.connections,
                runs: parsed.runs,
            },
            new_runs: parsed.new_runs.unwrap_or(defaults.new_runs),
            limits: parsed.limits,
            gate,
            credentials: parsed.credentials.unwrap_or(defaults.credentials),
            client_ip: parsed.client_ip.unwrap_or(defaults.client_ip),
            start_ms: parsed.start_ms,
            latency_ms: parsed.latency_ms.unwrap_or(defaults.latency_ms),
            timeout_ms: parsed.timeout_ms.unwrap_or(defaults.timeout_ms),
            date_header: parsed.date_header.unwrap_or(defaults.date_header),
            faults: parsed.faults,
            seed: parsed.seed.unwrap_or(defaults.seed),
            log_limit: parsed.log_limit.unwrap_or(defaults.log_limit),
        })
    }

    /// The gate configuration with [`Self::limits`] applied, or the names
    /// no limit of the gate has.
    pub(crate) fn gate_with_limits(&self) -> Result<GateConfig, TestServerError> {
        let mut gate = self.gate.clone();
        let mut known = BTreeSet::from([
            CREDENTIAL_LIMIT_NAME.to_owned(),
            CLIENT_IP_LIMIT_NAME.to_owned(),
        ]);
        if let Some(quota) = self.limits.get(CREDENTIAL_LIMIT_NAME) {
            gate.limits.credential = *quota;
        }
        if let Some(quota) = self.limits.get(CLIENT_IP_LIMIT_NAME) {
            gate.limits.client_ip = *quota;
        }
        let ids: Vec<String> = gate
            .catalogue
            .operations()
            .iter()
            .map(|operation| operation.id.clone())
            .collect();
        for id in ids {
            let Some(operation) = gate.catalogue.get_mut(&id) else {
                continue;
            };
            for extra in &mut operation.extra_limits {
                known.insert(extra.name.clone());
                if let Some(quota) = self.limits.get(&extra.name) {
                    extra.quota = *quota;
                }
            }
        }
        let unknown: Vec<&str> = self
            .limits
            .keys()
            .filter(|name| !known.contains(*name))
            .map(String::as_str)
            .collect();
        if !unknown.is_empty() {
            let known: Vec<&str> = known.iter().map(String::as_str).collect();
            return Err(TestServerError::Config {
                problem: format!(
                    "limits: the gate has no limit named {}; its limits are {}",
                    unknown.join(", "),
                    known.join(", ")
                ),
            });
        }
        Ok(gate)
    }
}
