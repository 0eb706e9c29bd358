//! The typed call kinds of [`CallSpec`], one per SDK method: `index`,
//! `table_read`, `connection_read`, `run_create`, `run_get` (single
//! requests) and their JSON members, which are the caller's arguments. The
//! core turns each into the request of its catalogue operation here: the
//! operation id, the path and query parameter names, the direction encoding
//! (`descending` sends `desc`; ascending leaves the parameter out, the
//! spec's default) and the body of a run creation (`{"input": …}` when an
//! input is given, `{}` otherwise) live in this file and nowhere else.

use super::options::CallOptions;
use super::spec::{CallSpec, RequestCall};
use crate::client::request::{EgressMode, RequestSpec};
use crate::model::ParamRole;
use serde::de::{Deserializer, IgnoredAny};
use serde::Deserialize;

/// The arguments of one page read of a table (`table_read`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TableRead {
    /// Records in the page (the API's default when `None`).
    pub page_size: Option<u64>,
    /// Records to skip.
    pub offset: Option<u64>,
    /// Column to order by.
    pub order_by: Option<String>,
    /// Descending order (sent as `desc`; ascending is the API's default and
    /// sends nothing).
    pub descending: bool,
    /// Only records whose order value is greater (keyset paging).
    pub after: Option<String>,
    /// Credential id; the client's first when `None`.
    pub credential: Option<String>,
}

/// The arguments of one page read of a connection's records
/// (`connection_read`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ConnectionRead {
    /// Records in the page (the API's default when `None`).
    pub page_size: Option<u64>,
    /// Records to skip.
    pub offset: Option<u64>,
    /// The filter, as JSON text (the JSON member takes a JSON value or text).
    #[serde(deserialize_with = "filter_text")]
    pub filter: Option<String>,
    /// Stable egress.
    pub egress: EgressMode,
    /// Credential id; the client's first when `None`.
    pub credential: Option<String>,
}

/// Reads a `filter` member: a string is the filter's JSON text as it is;
/// any other JSON value is written as its JSON text; `null` is no filter.
pub(crate) fn filter_text<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<String>, D::Error> {
    Ok(
        match Option::<serde_json::Value>::deserialize(deserializer)? {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(text)) => Some(text),
            Some(value) => Some(value.to_string()),
        },
    )
}

impl TableRead {
    /// The `listTableRecords` request of these arguments.
    pub fn spec(self, table: impl Into<String>) -> RequestSpec {
        let mut spec = RequestSpec::list_table_records(table);
        spec.credential = self.credential;
        let roles = [
            (ParamRole::Limit, self.page_size.map(|n| n.to_string())),
            (ParamRole::Offset, self.offset.map(|n| n.to_string())),
            (ParamRole::OrderBy, self.order_by),
            (ParamRole::Direction, self.descending.then(|| "desc".into())),
            (ParamRole::After, self.after),
        ];
        for (role, value) in roles {
            if let Some(value) = value {
                spec = spec.param(role, value);
            }
        }
        spec
    }
}

impl ConnectionRead {
    /// The `listConnectionRecords` request of these arguments.
    pub fn spec(self, connection: impl Into<String>, entity: impl Into<String>) -> RequestSpec {
        let mut spec = RequestSpec::list_connection_records(connection, entity).egress(self.egress);
        spec.credential = self.credential;
        let roles = [
            (ParamRole::Limit, self.page_size.map(|n| n.to_string())),
            (ParamRole::Offset, self.offset.map(|n| n.to_string())),
            (ParamRole::Filter, self.filter),
        ];
        for (role, value) in roles {
            if let Some(value) = value {
                spec = spec.param(role, value);
            }
        }
        spec
    }
}

/// The body of a run creation: `{"input": input}`, or `{}` without one.
pub fn run_body(input: Option<&serde_json::Value>) -> Vec<u8> {
    match input {
        Some(input) => serde_json::json!({ "input": input })
            .to_string()
            .into_bytes(),
        None => b"{}".to_vec(),
    }
}

impl CallSpec {
    /// The API index (`GET /api/v1`).
    pub fn index() -> Self {
        CallSpec::request(RequestSpec::get_api_index())
    }

    /// One page of `table`'s records.
    pub fn table_read(table: impl Into<String>, read: TableRead) -> Self {
        CallSpec::request(read.spec(table))
    }

    /// One page of `connection`'s records of `entity`.
    pub fn connection_read(
        connection: impl Into<String>,
        entity: impl Into<String>,
        read: ConnectionRead,
    ) -> Self {
        CallSpec::request(read.spec(connection, entity))
    }

    /// A new run of agent `agent_id` with `input` (the body `{"input": …}`,
    /// or `{}` without an input).
    pub fn run_create(agent_id: impl Into<String>, input: Option<&serde_json::Value>) -> Self {
        CallSpec::request(RequestSpec::create_agent_run(agent_id).body(run_body(input)))
    }

    /// Run `run_id` as it is now.
    pub fn run_get(run_id: impl Into<String>) -> Self {
        CallSpec::request(RequestSpec::get_run(run_id))
    }
}

/// The members of `index`: its `type`, credential and per-call options.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IndexWire {
    #[serde(rename = "type", default)]
    _kind: Option<IgnoredAny>,
    #[serde(default)]
    credential: Option<String>,
    #[serde(default)]
    options: CallOptions,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TableReadWire {
    #[serde(rename = "type", default)]
    _kind: Option<IgnoredAny>,
    table: String,
    #[serde(default)]
    page_size: Option<u64>,
    #[serde(default)]
    offset: Option<u64>,
    #[serde(default)]
    order_by: Option<String>,
    #[serde(default)]
    descending: bool,
    #[serde(default)]
    after: Option<String>,
    #[serde(default)]
    credential: Option<String>,
    #[serde(default)]
    options: CallOptions,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConnectionReadWire {
    #[serde(rename = "type", default)]
    _kind: Option<IgnoredAny>,
    connection: String,
    entity: String,
    #[serde(default)]
    page_size: Option<u64>,
    #[serde(default)]
    offset: Option<u64>,
    #[serde(default, deserialize_with = "filter_text")]
    filter: Option<String>,
    #[serde(default)]
    egress: EgressMode,
    #[serde(default)]
    credential: Option<String>,
    #[serde(default)]
    options: CallOptions,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RunCreateWire {
    #[serde(rename = "type", default)]
    _kind: Option<IgnoredAny>,
    agent_id: String,
    #[serde(default)]
    input: Option<serde_json::Value>,
    #[serde(default)]
    credential: Option<String>,
    #[serde(default)]
    options: CallOptions,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RunGetWire {
    #[serde(rename = "type", default)]
    _kind: Option<IgnoredAny>,
    run_id: String,
    #[serde(default)]
    credential: Option<String>,
    #[serde(default)]
    options: CallOptions,
}

/// The typed single-request kinds, by their `type` names.
#[derive(Debug, Clone, Copy)]
pub(super) enum Typed {
    Index,
    TableRead,
    ConnectionRead,
    RunCreate,
    RunGet,
}

fn single(spec: RequestSpec, credential: Option<String>, options: CallOptions) -> CallSpec {
    let mut spec = spec;
    if credential.is_some() {
        spec.credential = credential;
    }
    CallSpec::Request(RequestCall { spec, options })
}

impl Typed {
    /// Reads `json` as this kind's members into the single request it is.
    pub(super) fn read(self, json: &[u8]) -> Result<CallSpec, serde_json::Error> {
        Ok(match self {
            Typed::Index => {
                let wire: IndexWire = serde_json::from_slice(json)?;
                single(RequestSpec::get_api_index(), wire.credential, wire.options)
            }
            Typed::TableRead => {
                let wire: TableReadWire = serde_json::from_slice(json)?;
                let read = TableRead {
                    page_size: wire.page_size,
                    offset: wire.offset,
                    order_by: wire.order_by,
                    descending: wire.descending,
                    after: wire.after,
                    credential: wire.credential,
                };
                single(read.spec(wire.table), None, wire.options)
            }
            Typed::ConnectionRead => {
                let wire: ConnectionReadWire = serde_json::from_slice(json)?;
                let read = ConnectionRead {
                    page_size: wire.page_size,
                    offset: wire.offset,
                    filter: wire.filter,
                    egress: wire.egress,
                    credential: wire.credential,
                };
                single(read.spec(wire.connection, wire.entity), None, wire.options)
            }
            Typed::RunCreate => {
                let wire: RunCreateWire = serde_json::from_slice(json)?;
                let spec = RequestSpec::create_agent_run(wire.agent_id)
                    .body(run_body(wire.input.as_ref()));
                single(spec, wire.credential, wire.options)
            }
            Typed::RunGet => {
                let wire: RunGetWire = serde_json::from_slice(json)?;
                single(
                    RequestSpec::get_run(wire.run_id),
                    wire.credential,
                    wire.options,
                )
            }
        })
    }
}
