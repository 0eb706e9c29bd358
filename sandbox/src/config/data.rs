//! The data members of the configuration: `credentials`, `tables` and
//! `connections`, checked and turned into the gate's credential table and
//! the store's tables and connections.
//!
//! A credential entry is core's `CredentialRecord` plus its `secret`: the
//! same names and units (`kind`, `expires_at` in Unix milliseconds); its `id`
//! defaults to `credential-<n>`.

use super::{fail, ConfigError};
use crate::store::{Connection, Table};
use acd_core::gate::GateConfig;
use acd_core::model::{is_well_formed_secret, SECRET_SHAPE};
use acd_core::model::{CredentialKind, CredentialRecord, InMemoryCredentials, Secret};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashSet};

/// One credential: core's `CredentialRecord` members and the secret.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CredentialEntry {
    secret: String,
    kind: CredentialKind,
    user: String,
    #[serde(default)]
    scopes: Vec<String>,
    /// Unix milliseconds, as in `CredentialRecord`.
    #[serde(default)]
    expires_at: Option<u64>,
    /// A public handle (limit keys); defaults to `credential-<n>`.
    #[serde(default)]
    id: Option<String>,
}

/// One table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableEntry {
    id: String,
    owner: String,
    #[serde(default)]
    records: Vec<Map<String, Value>>,
}

/// One connection.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConnectionEntry {
    id: String,
    owner: String,
    #[serde(default)]
    entities: BTreeMap<String, Vec<Map<String, Value>>>,
}

fn prefix_of(kind: CredentialKind, gate: &GateConfig) -> (&str, &'static str) {
    match kind {
        CredentialKind::ApiKey => (&gate.api_key_prefix, "api_key_prefix"),
        CredentialKind::OAuthToken => (&gate.oauth_token_prefix, "oauth_token_prefix"),
    }
}

/// Checks that the built-in demo credentials fit the configured prefixes.
pub fn check_demo_prefixes(gate: &GateConfig) -> Result<(), ConfigError> {
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

/// The credential table of `entries`.
pub fn credentials(
    entries: &[CredentialEntry],
    gate: &GateConfig,
) -> Result<InMemoryCredentials, ConfigError> {
    let mut table = InMemoryCredentials::new();
    let mut secrets = HashSet::new();
    let mut ids = HashSet::new();
    for (n, entry) in entries.iter().enumerate() {
        let at = |member: &str| format!("credentials[{n}].{member}");
        if !is_well_formed_secret(&entry.secret) {
            return fail(at("secret"), SECRET_SHAPE);
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
                expires_at: entry.expires_at.map(acd_core::UnixMillis::new),
            },
        );
    }
    Ok(table)
}

/// The tables of `entries`.
pub fn tables(entries: Vec<TableEntry>) -> Result<Vec<Table>, ConfigError> {
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

/// The connections of `entries`.
pub fn connections(entries: Vec<ConnectionEntry>) -> Result<Vec<Connection>, ConfigError> {
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
