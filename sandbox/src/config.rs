//! The `--config FILE` JSON document: parsing with JSON paths in every error,
//! and its translation into the gate's configuration, credentials and data.
//!
//! Every top-level member is optional; `credentials`, `tables` and
//! `connections` each fall back to the built-in demo data when absent. The
//! index fields that are the operator's to choose (`name`, `trial`, the URLs:
//! [`IndexSettings`]) are top-level members too.

use crate::demo;
use crate::store::{Connection, Store, Table};
use acd_core::gate::{Gate, GateConfig, GateConfigError, IndexSettings};
use acd_core::limit::{Quota, RateLimiter};
use acd_core::model::catalogue::ids;
use acd_core::model::limits::USER_TABLE_READS_NAME;
use acd_core::model::{CredentialKind, CredentialRecord, InMemoryCredentials, Secret};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashSet};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

/// The configuration file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    base_url: Option<String>,
    stable_egress_url: Option<String>,
    api_key_prefix: Option<String>,
    oauth_token_prefix: Option<String>,
    credentials: Option<Vec<CredentialEntry>>,
    tables: Option<Vec<TableEntry>>,
    connections: Option<Vec<ConnectionEntry>>,
    limits: Option<LimitOverrides>,
    /// The top-level members that are index settings, parsed on their own.
    #[serde(skip)]
    index: Option<IndexSettings>,
}

/// The sandbox's own top-level members; every other member must be an
/// [`IndexSettings`] field.
const SANDBOX_MEMBERS: [&str; 8] = [
    "base_url",
    "stable_egress_url",
    "api_key_prefix",
    "oauth_token_prefix",
    "credentials",
    "tables",
    "connections",
    "limits",
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CredentialEntry {
    secret: String,
    #[serde(rename = "type")]
    kind: CredentialKind,
    user: String,
    #[serde(default)]
    scopes: Vec<String>,
    /// Unix seconds.
    #[serde(default)]
    expires_at: Option<u64>,
    /// A public handle (limit keys); defaults to `credential-<n>`.
    #[serde(default)]
    id: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TableEntry {
    id: String,
    owner: String,
    #[serde(default)]
    records: Vec<Map<String, Value>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConnectionEntry {
    id: String,
    owner: String,
    #[serde(default)]
    entities: BTreeMap<String, Vec<Map<String, Value>>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct LimitOverrides {
    credential: Option<LimitOverride>,
    client_ip: Option<LimitOverride>,
    user_table_reads: Option<LimitOverride>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
struct LimitOverride {
    requests: Option<u32>,
    window_seconds: Option<u64>,
}

/// A configuration problem: the JSON path it is at, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// JSON path such as `credentials[0].type`, or `(file)`/`(document)`.
    pub path: String,
    /// What is wrong and, where possible, what would be right.
    pub problem: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "at `{}`: {}", self.path, self.problem)
    }
}

fn fail<T>(path: impl Into<String>, problem: impl Into<String>) -> Result<T, ConfigError> {
    Err(ConfigError {
        path: path.into(),
        problem: problem.into(),
    })
}

/// Reads and parses `file`.
pub fn read(file: &Path) -> Result<FileConfig, ConfigError> {
    let bytes = std::fs::read(file).map_err(|error| ConfigError {
        path: "(file)".into(),
        problem: format!("cannot read {}: {error}", file.display()),
    })?;
    parse(&bytes)
}

/// The names of the [`IndexSettings`] fields, as written in JSON.
fn index_members() -> Vec<String> {
    match serde_json::to_value(IndexSettings::default()) {
        Ok(Value::Object(fields)) => fields.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

fn path_error<E: std::fmt::Display>(error: serde_path_to_error::Error<E>) -> ConfigError {
    let path = error.path().to_string();
    ConfigError {
        path: if path == "." {
            "(document)".into()
        } else {
            path
        },
        problem: error.into_inner().to_string(),
    }
}

fn from_members<T: serde::de::DeserializeOwned>(
    members: Map<String, Value>,
) -> Result<T, ConfigError> {
    serde_path_to_error::deserialize(Value::Object(members)).map_err(path_error)
}

/// Parses a configuration document.
pub fn parse(bytes: &[u8]) -> Result<FileConfig, ConfigError> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let document: Value =
        serde_path_to_error::deserialize(&mut deserializer).map_err(path_error)?;
    deserializer.end().map_err(|error| ConfigError {
        path: "(document)".into(),
        problem: error.to_string(),
    })?;
    let Value::Object(members) = document else {
        return fail(
            "(document)",
            "the configuration must be a JSON object, e.g. {\"limits\": {\"credential\": {\"requests\": 1000}}}",
        );
    };
    let index_members = index_members();
    let (mut own, mut index) = (Map::new(), Map::new());
    for (name, value) in members {
        if SANDBOX_MEMBERS.contains(&name.as_str()) {
            own.insert(name, value);
        } else if index_members.contains(&name) {
            index.insert(name, value);
        } else {
            let mut known: Vec<&str> = SANDBOX_MEMBERS.to_vec();
            known.extend(index_members.iter().map(String::as_str));
            return fail(
                name,
                format!(
                    "is not a configuration member; the members are: {}",
                    known.join(", ")
                ),
            );
        }
    }
    let mut file: FileConfig = from_members(own)?;
    if !index.is_empty() {
        file.index = Some(from_members(index)?);
    }
    Ok(file)
}

/// Which parts of the data are the built-in demo data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DemoParts {
    /// The demo credentials are in use.
    pub credentials: bool,
    /// The demo tables are in use.
    pub tables: bool,
    /// The demo connections are in use.
    pub connections: bool,
}

impl DemoParts {
    /// Everything is demo data.
    pub fn all(&self) -> bool {
        self.credentials && self.tables && self.connections
    }
}

/// Everything the server needs, checked.
#[derive(Debug)]
pub struct Built {
    /// The gate, over the configured credentials.
    pub gate: Gate,
    /// The tables and connections.
    pub store: Store,
    /// What came from the demo data.
    pub demo: DemoParts,
    /// Whether the gate's limiter does blocking I/O (a shared Redis store):
    /// then requests are decided off the async worker threads.
    pub blocking_limiter: bool,
}

impl FileConfig {
    /// Checks everything and builds the server's configuration; `local` is
    /// the address actually listened on (the default base URL).
    #[cfg(test)]
    pub fn build(self, local: SocketAddr) -> Result<Built, ConfigError> {
        self.build_with(local, None)
    }

    /// As [`FileConfig::build`], with the gate's rate limits kept by
    /// `limiter` (e.g. shared through Redis) instead of in memory.
    pub fn build_with(
        self,
        local: SocketAddr,
        limiter: Option<Arc<dyn RateLimiter>>,
    ) -> Result<Built, ConfigError> {
        let mut gate = GateConfig::default();
        gate.base_url = self
            .base_url
            .clone()
            .unwrap_or_else(|| format!("http://{local}"));
        gate.stable_egress_url = Some(
            self.stable_egress_url
                .clone()
                .unwrap_or_else(|| format!("{}/egress", gate.base_url)),
        );
        if let Some(prefix) = &self.api_key_prefix {
            gate.api_key_prefix = prefix.clone();
        }
        if let Some(prefix) = &self.oauth_token_prefix {
            gate.oauth_token_prefix = prefix.clone();
        }
        if let Some(index) = &self.index {
            gate.index = index.clone();
        }
        if let Some(limits) = &self.limits {
            apply_limits(&mut gate, limits)?;
        }
        let demo = DemoParts {
            credentials: self.credentials.is_none(),
            tables: self.tables.is_none(),
            connections: self.connections.is_none(),
        };
        let credentials = match &self.credentials {
            Some(entries) => credentials(entries, &gate)?,
            None => {
                check_demo_prefixes(&gate)?;
                acd_core::gate::demo::credentials()
            }
        };
        let tables = match self.tables {
            Some(entries) => tables(entries)?,
            None => demo::tables(),
        };
        let connections = match self.connections {
            Some(entries) => connections(entries)?,
            None => demo::connections(),
        };
        // The gate checks what it relies on; report it at the member it came from.
        let blocking_limiter = limiter.is_some();
        let gate = match limiter {
            Some(limiter) => Gate::new(gate, Arc::new(credentials), limiter),
            None => Gate::in_memory(gate, credentials),
        }
        .map_err(gate_error)?;
        Ok(Built {
            gate,
            store: Store::new(tables, connections),
            demo,
            blocking_limiter,
        })
    }
}

fn gate_error(error: GateConfigError) -> ConfigError {
    match error {
        GateConfigError::Field { field, problem } => ConfigError {
            path: field.into(),
            problem,
        },
        GateConfigError::Index(error) => ConfigError {
            path: member_of_index_field(&error.path),
            problem: format!("{} (index field `{}`)", error.problem, error.path),
        },
        other => ConfigError {
            path: "gate".into(),
            problem: other.to_string(),
        },
    }
}

/// The configuration member an index field comes from.
fn member_of_index_field(field: &str) -> String {
    let last = field.rsplit('.').next().unwrap_or(field);
    if let Some(rest) = field.strip_prefix("onboarding.") {
        rest.to_owned()
    } else if field.starts_with("authentication.") && last == "metadata_url" {
        "oauth_metadata_url".to_owned()
    } else if field.starts_with("authentication.") || field.starts_with("versioning.") {
        last.to_owned()
    } else {
        field.to_owned()
    }
}

fn quota(path: &str, current: Quota, change: LimitOverride) -> Result<Quota, ConfigError> {
    let requests = change.requests.unwrap_or(current.requests);
    if requests == 0 {
        return fail(
            format!("{path}.requests"),
            "must be at least 1 (0 would refuse every request)",
        );
    }
    let window_ms = match change.window_seconds {
        Some(0) => return fail(format!("{path}.window_seconds"), "must be at least 1"),
        Some(seconds) if seconds > 366 * 86_400 => {
            return fail(
                format!("{path}.window_seconds"),
                "must be at most 31622400 (366 days)",
            )
        }
        Some(seconds) => seconds * 1_000,
        None => current.window_ms,
    };
    Ok(Quota {
        requests,
        window_ms,
    })
}

fn apply_limits(gate: &mut GateConfig, limits: &LimitOverrides) -> Result<(), ConfigError> {
    if let Some(change) = limits.credential {
        gate.limits.credential = quota("limits.credential", gate.limits.credential, change)?;
    }
    if let Some(change) = limits.client_ip {
        gate.limits.client_ip = quota("limits.client_ip", gate.limits.client_ip, change)?;
    }
    if let Some(change) = limits.user_table_reads {
        let extra = gate
            .catalogue
            .get_mut(ids::LIST_TABLE_RECORDS)
            .and_then(|operation| {
                operation
                    .extra_limits
                    .iter_mut()
                    .find(|limit| limit.name == USER_TABLE_READS_NAME)
            });
        if let Some(extra) = extra {
            extra.quota = quota("limits.user_table_reads", extra.quota, change)?;
        }
    }
    Ok(())
}

fn prefix_of(kind: CredentialKind, gate: &GateConfig) -> (&str, &'static str) {
    match kind {
        CredentialKind::ApiKey => (&gate.api_key_prefix, "api_key_prefix"),
        CredentialKind::OAuthToken => (&gate.oauth_token_prefix, "oauth_token_prefix"),
    }
}

fn check_demo_prefixes(gate: &GateConfig) -> Result<(), ConfigError> {
    use acd_core::gate::demo::{ADA_KEY, ADA_TOKEN};
    for (secret, kind) in [
        (ADA_KEY, CredentialKind::ApiKey),
        (ADA_TOKEN, CredentialKind::OAuthToken),
    ] {
        let (prefix, member) = prefix_of(kind, gate);
        if !secret.starts_with(prefix) {
            return fail(
                member,
                format!(
                    "the built-in demo credentials need the prefixes acd_live_ and acd_oat_; \
                     with {member} {prefix:?}, give `credentials` too"
                ),
            );
        }
    }
    Ok(())
}

/// What a credential must look like to be usable in a header at all.
fn usable_secret(secret: &str) -> bool {
    !secret.is_empty()
        && secret.len() <= 4_096
        && secret
            .bytes()
            .all(|b| b.is_ascii_graphic() && !matches!(b, b'"' | b',' | b'\\'))
}

fn credentials(
    entries: &[CredentialEntry],
    gate: &GateConfig,
) -> Result<InMemoryCredentials, ConfigError> {
    let mut table = InMemoryCredentials::new();
    let mut secrets = HashSet::new();
    let mut ids = HashSet::new();
    for (n, entry) in entries.iter().enumerate() {
        let at = |member: &str| format!("credentials[{n}].{member}");
        if !usable_secret(&entry.secret) {
            return fail(
                at("secret"),
                "must be 1 to 4096 visible ASCII characters without quotes, commas or backslashes",
            );
        }
        let (prefix, member) = prefix_of(entry.kind, gate);
        if !entry.secret.starts_with(prefix) {
            return fail(
                at("secret"),
                format!(
                    "a credential of type {} must start with {member} {prefix:?}",
                    entry.kind.as_str()
                ),
            );
        }
        if !secrets.insert(entry.secret.as_str()) {
            return fail(at("secret"), "is given twice; every secret must be unique");
        }
        if entry.user.is_empty() {
            return fail(at("user"), "must not be empty");
        }
        let id = entry
            .id
            .clone()
            .unwrap_or_else(|| format!("credential-{n}"));
        if !ids.insert(id.clone()) {
            return fail(
                at("id"),
                format!("{id:?} is given twice; ids must be unique"),
            );
        }
        table.insert(
            Secret::new(entry.secret.clone()),
            CredentialRecord {
                id,
                kind: entry.kind,
                user: entry.user.clone(),
                scopes: entry.scopes.clone(),
                expires_at: entry
                    .expires_at
                    .map(|seconds| seconds.saturating_mul(1_000)),
            },
        );
    }
    Ok(table)
}

fn tables(entries: Vec<TableEntry>) -> Result<Vec<Table>, ConfigError> {
    let mut seen = HashSet::new();
    let mut tables = Vec::with_capacity(entries.len());
    for (n, entry) in entries.into_iter().enumerate() {
        if entry.id.is_empty() {
            return fail(format!("tables[{n}].id"), "must not be empty");
        }
        if !seen.insert(entry.id.clone()) {
            return fail(
                format!("tables[{n}].id"),
                format!("{:?} is given twice; table ids must be unique", entry.id),
            );
        }
        if entry.owner.is_empty() {
            return fail(format!("tables[{n}].owner"), "must not be empty");
        }
        tables.push(Table::new(entry.id, entry.owner, entry.records));
    }
    Ok(tables)
}

fn connections(entries: Vec<ConnectionEntry>) -> Result<Vec<Connection>, ConfigError> {
    let mut seen = HashSet::new();
    let mut connections = Vec::with_capacity(entries.len());
    for (n, entry) in entries.into_iter().enumerate() {
        if entry.id.is_empty() {
            return fail(format!("connections[{n}].id"), "must not be empty");
        }
        if !seen.insert(entry.id.clone()) {
            return fail(
                format!("connections[{n}].id"),
                format!(
                    "{:?} is given twice; connection ids must be unique",
                    entry.id
                ),
            );
        }
        if entry.owner.is_empty() {
            return fail(format!("connections[{n}].owner"), "must not be empty");
        }
        if entry.entities.contains_key("") {
            return fail(
                format!("connections[{n}].entities"),
                "an entity id must not be empty",
            );
        }
        connections.push(Connection::new(entry.id, entry.owner, entry.entities));
    }
    Ok(connections)
}

#[cfg(test)]
mod tests;
