//! The `--config FILE` JSON document: parsing with JSON paths in every error,
//! and its translation into the gate's configuration, credentials and data.
//!
//! One dialect: every member of core's `GateConfig` is a top-level member
//! with the same name, shape and units (`limits.credential.window_ms`,
//! `index.name`, `catalogue`, ...), so a `GateConfig` JSON document, as the
//! bindings read and write it, is a valid configuration as it is. The
//! sandbox's own members come next to them: `credentials`, `tables`,
//! `connections` (each falls back to the built-in demo data when absent),
//! `extra_limits` (an operation limit's quota by limit name), `runs`,
//! `faults` and `webhooks`. `sandbox/config.schema.json` is the JSON Schema of the whole.

mod data;
mod strict;

use crate::demo;
use crate::faults::FaultsConfig;
use crate::runs::RunsConfig;
use crate::store::Store;
use crate::webhooks::config::WebhooksConfig;
use acd_core::gate::{Gate, GateConfig, GateConfigError};
use acd_core::limit::{Quota, RateLimiter};
use acd_core::model::{stable_egress_url_for, Catalogue};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

/// The sandbox's own top-level members; every other member must be a
/// `GateConfig` member.
pub const SANDBOX_MEMBERS: [&str; 7] = [
    "credentials",
    "tables",
    "connections",
    "extra_limits",
    "runs",
    "faults",
    "webhooks",
];

/// Longest window of any limit: 366 days.
const MAX_WINDOW_MS: u64 = 366 * 86_400 * 1_000;

/// The sandbox's own members, as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Own {
    credentials: Option<Vec<data::CredentialEntry>>,
    tables: Option<Vec<data::TableEntry>>,
    connections: Option<Vec<data::ConnectionEntry>>,
    extra_limits: Option<BTreeMap<String, Quota>>,
    runs: Option<RunsConfig>,
    faults: Option<FaultsConfig>,
    webhooks: Option<WebhooksConfig>,
}

/// The configuration file as written.
#[derive(Debug, Default)]
pub struct FileConfig {
    own: Own,
    /// The `GateConfig` members given (the rest take core's defaults).
    gate: GateConfig,
    has_base_url: bool,
    has_stable_egress_url: bool,
}

/// A configuration problem: the JSON path it is at, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// JSON path such as `credentials[0].kind`, or `(file)`/`(document)`.
    pub path: String,
    /// What is wrong and, where possible, what would be right.
    pub problem: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "at `{}`: {}", self.path, self.problem)
    }
}

/// An error at `path`.
pub fn fail<T>(path: impl Into<String>, problem: impl Into<String>) -> Result<T, ConfigError> {
    Err(ConfigError {
        path: shown_path(path.into()),
        problem: problem.into(),
    })
}

/// `path`, or what stands for it when it is empty (a top-level member
/// whose name is the empty string).
fn shown_path(path: String) -> String {
    if path.is_empty() {
        "(member \"\")".to_owned()
    } else {
        path
    }
}

/// Largest configuration file, in bytes (16 MiB); a larger one (or an
/// endless one such as `/dev/zero`) is refused before it is parsed.
pub const MAX_CONFIG_BYTES: u64 = 16 * 1024 * 1024;

/// Reads and parses `file` (at most [`MAX_CONFIG_BYTES`]).
pub fn read(file: &Path) -> Result<FileConfig, ConfigError> {
    use std::io::Read;
    let cannot = |error: std::io::Error| ConfigError {
        path: "(file)".into(),
        problem: format!("cannot read {}: {error}", file.display()),
    };
    let mut bytes = Vec::new();
    std::fs::File::open(file)
        .map_err(cannot)?
        .take(MAX_CONFIG_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > MAX_CONFIG_BYTES {
        return fail(
            "(file)",
            format!(
                "{} is larger than {MAX_CONFIG_BYTES} bytes (16 MiB), the largest configuration \
                 file the sandbox reads",
                file.display()
            ),
        );
    }
    parse(&bytes)
}

/// The names of the `GateConfig` members, as written in JSON.
pub fn gate_members() -> Vec<String> {
    match serde_json::to_value(GateConfig::default()) {
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
            shown_path(path)
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
    let strict::StrictValue(document) =
        serde_path_to_error::deserialize(&mut deserializer).map_err(path_error)?;
    deserializer.end().map_err(|error| ConfigError {
        path: "(document)".into(),
        problem: error.to_string(),
    })?;
    let Value::Object(members) = document else {
        return fail(
            "(document)",
            "the configuration must be a JSON object, e.g. \
             {\"limits\": {\"credential\": {\"requests\": 1000, \"window_ms\": 60000}}}",
        );
    };
    let gate_members = gate_members();
    let (mut own, mut gate) = (Map::new(), Map::new());
    for (name, value) in members {
        if SANDBOX_MEMBERS.contains(&name.as_str()) {
            own.insert(name, value);
        } else if gate_members.contains(&name) {
            gate.insert(name, value);
        } else {
            let mut known: Vec<&str> = gate_members.iter().map(String::as_str).collect();
            known.extend(SANDBOX_MEMBERS);
            return fail(
                name,
                format!(
                    "is not a configuration member; the members are: {}",
                    known.join(", ")
                ),
            );
        }
    }
    let has_base_url = gate.contains_key("base_url");
    let has_stable_egress_url = gate.contains_key("stable_egress_url");
    Ok(FileConfig {
        own: from_members(own)?,
        gate: from_members(gate)?,
        has_base_url,
        has_stable_egress_url,
    })
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
    /// The run lifecycles.
    pub runs: RunsConfig,
    /// The fault rules (applied only with `--faults`).
    pub faults: FaultsConfig,
    /// The webhook endpoints and delivery faults (`webhooks`).
    pub webhooks: WebhooksConfig,
}

impl FileConfig {
    /// Checks everything and builds the server's configuration; `local` is
    /// the address actually listened on (the default base URL).
    #[cfg(test)]
    pub fn build(self, local: SocketAddr) -> Result<Built, ConfigError> {
        let limiter = acd_core::limit::in_memory(
            Default::default(),
            acd_core::limit::LimiterConfig::default(),
        );
        self.build_with(local, limiter)
    }

    /// The gate's configuration: the file's `GateConfig` members, the
    /// defaults that depend on `local`, the run operations and `extra_limits`.
    fn gate_config(&mut self, local: SocketAddr) -> Result<GateConfig, ConfigError> {
        let mut gate = std::mem::take(&mut self.gate);
        if !self.has_base_url {
            gate.base_url = format!("http://{local}");
        }
        if !self.has_stable_egress_url {
            // The egress URL moves with the base URL unless it is set too.
            gate.stable_egress_url = Some(stable_egress_url_for(&gate.base_url));
        }
        check_quota("limits.credential", gate.limits.credential)?;
        check_quota("limits.client_ip", gate.limits.client_ip)?;
        for operation in [Catalogue::create_agent_run(), Catalogue::get_run()] {
            if gate.catalogue.get(&operation.id).is_none() {
                gate.catalogue.add(operation).map_err(|error| ConfigError {
                    path: "catalogue".into(),
                    problem: format!("cannot add the sandbox's run operations: {error}"),
                })?;
            }
        }
        if let Some(limits) = &self.own.extra_limits {
            apply_extra_limits(&mut gate, limits)?;
        }
        Ok(gate)
    }

    /// As [`FileConfig::build`], with the gate's rate limits kept by `limiter`.
    pub fn build_with(
        mut self,
        local: SocketAddr,
        limiter: Arc<dyn RateLimiter>,
    ) -> Result<Built, ConfigError> {
        let gate = self.gate_config(local)?;
        let own = self.own;
        let demo = DemoParts {
            credentials: own.credentials.is_none(),
            tables: own.tables.is_none(),
            connections: own.connections.is_none(),
        };
        let credentials = match &own.credentials {
            Some(entries) => data::credentials(entries, &gate)?,
            None => {
                data::check_demo_prefixes(&gate)?;
                acd_core::gate::demo::credentials()
            }
        };
        let tables = match own.tables {
            Some(entries) => data::tables(entries)?,
            None => demo::tables(),
        };
        let connections = match own.connections {
            Some(entries) => data::connections(entries)?,
            None => demo::connections(),
        };
        let runs = own.runs.unwrap_or_default();
        runs.check()?;
        let faults = own.faults.unwrap_or_default();
        faults.check()?;
        let webhooks = own.webhooks.unwrap_or_default();
        webhooks.endpoints(&[], None)?;
        // The gate checks what it relies on; report it at the member it came from.
        let gate = Gate::new(gate, Arc::new(credentials), limiter).map_err(gate_error)?;
        Ok(Built {
            gate,
            store: Store::new(tables, connections),
            demo,
            runs,
            faults,
            webhooks,
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
            path: format!("index.{}", member_of_index_field(&error.path)),
            problem: format!("{} (index field `{}`)", error.problem, error.path),
        },
        other => ConfigError {
            path: "(document)".into(),
            problem: other.to_string(),
        },
    }
}

/// The `index` member an index field comes from.
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

fn check_quota(path: &str, quota: Quota) -> Result<(), ConfigError> {
    if quota.requests == 0 {
        return fail(
            format!("{path}.requests"),
            "must be at least 1 (0 would refuse every request)",
        );
    }
    if quota.window_ms == 0 {
        return fail(format!("{path}.window_ms"), "must be at least 1");
    }
    if quota.window_ms > MAX_WINDOW_MS {
        return fail(
            format!("{path}.window_ms"),
            format!("must be at most {MAX_WINDOW_MS} (366 days)"),
        );
    }
    Ok(())
}

fn apply_extra_limits(
    gate: &mut GateConfig,
    limits: &BTreeMap<String, Quota>,
) -> Result<(), ConfigError> {
    let mut known: Vec<String> = Vec::new();
    for operation in gate.catalogue.operations() {
        for limit in &operation.extra_limits {
            if !known.contains(&limit.name) {
                known.push(limit.name.clone());
            }
        }
    }
    let mut operations: Vec<acd_core::model::Operation> = gate.catalogue.clone().into();
    for (name, quota) in limits {
        let path = format!("extra_limits.{name}");
        if !known.contains(name) {
            return fail(
                path,
                format!(
                    "names no limit of the catalogue; its operation limits are: {}",
                    known.join(", ")
                ),
            );
        }
        check_quota(&path, *quota)?;
        for operation in &mut operations {
            for limit in &mut operation.extra_limits {
                if &limit.name == name {
                    limit.quota = *quota;
                }
            }
        }
    }
    gate.catalogue = Catalogue::new(operations).map_err(|error| ConfigError {
        path: "catalogue".into(),
        problem: error.to_string(),
    })?;
    Ok(())
}

#[cfg(test)]
mod tests;
