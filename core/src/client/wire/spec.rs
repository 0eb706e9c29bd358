//! [`CallSpec`]: one value for any call the client runs — a single request,
//! a table pager, a connection pager or a run poller — with its
//! [`CallOptions`]. Its JSON (`docs/driver-protocol.md`) is tagged by
//! `type` and read strictly: an unknown member is refused with serde's
//! sentence naming it. The typed single-request kinds (`index`,
//! `table_read`, `connection_read`, `run_create`, `run_get`) are read in
//! [`super::typed`] into the request they stand for; `run_wait` is the
//! run poller (`run_poll`, its former name, is still read).

use super::options::CallOptions;
use super::typed::{filter_text, Typed};
use crate::client::error::ClientError;
use crate::client::paging::{ConnectionPagerOptions, TablePagerOptions};
use crate::client::polling::PollOptions;
use crate::client::request::{EgressMode, RequestSpec};
use crate::model::ParamRole;
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Any call the client can start ([`crate::client::Client::start`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum CallSpec {
    /// One request of a catalogue operation.
    Request(RequestCall),
    /// Every page of a table's records.
    TablePages(TablePagesCall),
    /// Every page of a connection's records of one entity.
    ConnectionPages(ConnectionPagesCall),
    /// A run, polled until it reaches a terminal status (`run_wait`; the
    /// former name `run_poll` is still read).
    #[serde(rename = "run_wait", alias = "run_poll")]
    RunPoll(RunPollCall),
}

/// A single request: what to call, and the call's options.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RequestWire", into = "RequestWire")]
pub struct RequestCall {
    /// The request.
    pub spec: RequestSpec,
    /// Per-call options.
    pub options: CallOptions,
}

/// A table pager.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "TablePagesWire", into = "TablePagesWire")]
pub struct TablePagesCall {
    /// The table's id.
    pub table: String,
    /// Page size, order and credential.
    pub pager: TablePagerOptions,
    /// Per-call options.
    pub options: CallOptions,
}

/// A connection-records pager.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "ConnectionPagesWire", into = "ConnectionPagesWire")]
pub struct ConnectionPagesCall {
    /// The connection's id.
    pub connection: String,
    /// The entity whose records are read.
    pub entity: String,
    /// Page size, filter, egress and credential.
    pub pager: ConnectionPagerOptions,
    /// Per-call options.
    pub options: CallOptions,
}

/// A run poller.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "RunPollWire", into = "RunPollWire")]
pub struct RunPollCall {
    /// The run's id.
    pub run_id: String,
    /// Interval, deadline and terminal states.
    pub poll: PollOptions,
    /// The credential's id; the client's first when `None`.
    pub credential: Option<String>,
    /// Per-call options.
    pub options: CallOptions,
}

impl CallSpec {
    /// A single request of `spec`.
    pub fn request(spec: RequestSpec) -> Self {
        CallSpec::Request(RequestCall {
            spec,
            options: CallOptions::default(),
        })
    }

    /// A pager over `table`'s records.
    pub fn table_pages(table: impl Into<String>, pager: TablePagerOptions) -> Self {
        CallSpec::TablePages(TablePagesCall {
            table: table.into(),
            pager,
            options: CallOptions::default(),
        })
    }

    /// A pager over `connection`'s records of `entity`.
    pub fn connection_pages(
        connection: impl Into<String>,
        entity: impl Into<String>,
        pager: ConnectionPagerOptions,
    ) -> Self {
        CallSpec::ConnectionPages(ConnectionPagesCall {
            connection: connection.into(),
            entity: entity.into(),
            pager,
            options: CallOptions::default(),
        })
    }

    /// A poller of run `run_id` (the catalogue's `getRun`): the `run_wait`
    /// kind.
    pub fn run_wait(run_id: impl Into<String>, poll: PollOptions) -> Self {
        Self::run_poll(run_id, poll)
    }

    /// A poller of run `run_id` (the catalogue's `getRun`); the same as
    /// [`CallSpec::run_wait`].
    pub fn run_poll(run_id: impl Into<String>, poll: PollOptions) -> Self {
        CallSpec::RunPoll(RunPollCall {
            run_id: run_id.into(),
            poll,
            credential: None,
            options: CallOptions::default(),
        })
    }

    /// This spec with `options` (builder form).
    #[must_use]
    pub fn with_options(mut self, options: CallOptions) -> Self {
        *self.options_mut() = options;
        self
    }

    /// The call's options.
    pub fn options(&self) -> &CallOptions {
        match self {
            CallSpec::Request(call) => &call.options,
            CallSpec::TablePages(call) => &call.options,
            CallSpec::ConnectionPages(call) => &call.options,
            CallSpec::RunPoll(call) => &call.options,
        }
    }

    /// The call's options, to change.
    pub fn options_mut(&mut self) -> &mut CallOptions {
        match self {
            CallSpec::Request(call) => &mut call.options,
            CallSpec::TablePages(call) => &mut call.options,
            CallSpec::ConnectionPages(call) => &mut call.options,
            CallSpec::RunPoll(call) => &mut call.options,
        }
    }

    /// Reads a call spec's JSON; a malformed one is a `request` error.
    ///
    /// Two passes over the bytes: the `type` member alone, then the whole
    /// object as that kind's members. The same rules as the derived
    /// `Deserialize`, without buffering the object first (serde's path for
    /// a tagged enum, which more than doubled the parser's code).
    pub fn from_json(json: &[u8]) -> Result<Self, ClientError> {
        let read = || -> Result<Self, serde_json::Error> {
            let Tag { kind } = serde_json::from_slice(json)?;
            Ok(match kind {
                Kind::Request => CallSpec::Request(serde_json::from_slice(json)?),
                Kind::TablePages => CallSpec::TablePages(serde_json::from_slice(json)?),
                Kind::ConnectionPages => CallSpec::ConnectionPages(serde_json::from_slice(json)?),
                Kind::RunWait => CallSpec::RunPoll(serde_json::from_slice(json)?),
                Kind::Index => Typed::Index.read(json)?,
                Kind::TableRead => Typed::TableRead.read(json)?,
                Kind::ConnectionRead => Typed::ConnectionRead.read(json)?,
                Kind::RunCreate => Typed::RunCreate.read(json)?,
                Kind::RunGet => Typed::RunGet.read(json)?,
            })
        };
        read().map_err(|error| ClientError::InvalidInput {
            input: "call spec".into(),
            problem: error.to_string(),
        })
    }

    /// The spec's JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// A call spec's `type` member alone (every other member skipped).
#[derive(Deserialize)]
struct Tag {
    #[serde(rename = "type")]
    kind: Kind,
}

/// The kinds of [`CallSpec`], by their `type` names.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Kind {
    Request,
    TablePages,
    ConnectionPages,
    #[serde(alias = "run_poll")]
    RunWait,
    Index,
    TableRead,
    ConnectionRead,
    RunCreate,
    RunGet,
}

impl From<RequestSpec> for CallSpec {
    fn from(spec: RequestSpec) -> Self {
        CallSpec::request(spec)
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RequestWire {
    /// The spec's `type`, present when [`CallSpec::from_json`] reads the
    /// whole object as this kind (never written: the enum writes it).
    #[serde(rename = "type", default, skip_serializing)]
    _kind: Option<IgnoredAny>,
    operation: String,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    path: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    query: Vec<(String, String)>,
    /// Query parameters by role (Rust callers' `RequestSpec::param`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    roles: Vec<(ParamRole, String)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    body: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    credential: Option<String>,
    #[serde(default, skip_serializing_if = "is_default_egress")]
    egress: EgressMode,
    #[serde(default, skip_serializing_if = "is_default_options")]
    options: CallOptions,
}

fn is_default_egress(egress: &EgressMode) -> bool {
    *egress == EgressMode::Default
}

fn is_default_options(options: &CallOptions) -> bool {
    *options == CallOptions::default()
}

impl TryFrom<RequestWire> for RequestCall {
    type Error = serde_json::Error;

    fn try_from(wire: RequestWire) -> Result<Self, Self::Error> {
        let body = wire
            .body
            .map(|body| serde_json::to_vec(&body))
            .transpose()?;
        Ok(RequestCall {
            spec: RequestSpec {
                operation: wire.operation,
                path: wire.path.into_iter().collect(),
                query: wire.query,
                roles: wire.roles,
                credential: wire.credential,
                egress: wire.egress,
                body,
                idempotency_key: None,
            },
            options: wire.options,
        })
    }
}

impl From<RequestCall> for RequestWire {
    fn from(call: RequestCall) -> Self {
        let RequestCall { spec, mut options } = call;
        if options.idempotency_key.is_none() {
            options.idempotency_key = spec.idempotency_key;
        }
        // A body that is not JSON (only a Rust caller can build one) shows
        // as its text.
        let body = spec.body.map(|bytes| {
            serde_json::from_slice(&bytes).unwrap_or_else(|_| {
                serde_json::Value::String(String::from_utf8_lossy(&bytes).into_owned())
            })
        });
        RequestWire {
            _kind: None,
            operation: spec.operation,
            path: spec.path.into_iter().collect(),
            query: spec.query,
            roles: spec.roles,
            body,
            credential: spec.credential,
            egress: spec.egress,
            options,
        }
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TablePagesWire {
    /// The spec's `type`, present when [`CallSpec::from_json`] reads the
    /// whole object as this kind (never written: the enum writes it).
    #[serde(rename = "type", default, skip_serializing)]
    _kind: Option<IgnoredAny>,
    table: String,
    #[serde(default)]
    page_size: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    order_by: Option<String>,
    #[serde(default)]
    descending: bool,
    #[serde(default)]
    unique_order: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    credential: Option<String>,
    #[serde(default, skip_serializing_if = "is_default_options")]
    options: CallOptions,
}

impl From<TablePagesWire> for TablePagesCall {
    fn from(wire: TablePagesWire) -> Self {
        let defaults = TablePagerOptions::default();
        TablePagesCall {
            table: wire.table,
            pager: TablePagerOptions {
                page_size: wire.page_size.unwrap_or(defaults.page_size),
                order_by: wire.order_by,
                descending: wire.descending,
                unique_order: wire.unique_order,
                credential: wire.credential,
            },
            options: wire.options,
        }
    }
}

impl From<TablePagesCall> for TablePagesWire {
    fn from(call: TablePagesCall) -> Self {
        TablePagesWire {
            _kind: None,
            table: call.table,
            page_size: Some(call.pager.page_size),
            order_by: call.pager.order_by,
            descending: call.pager.descending,
            unique_order: call.pager.unique_order,
            credential: call.pager.credential,
            options: call.options,
        }
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConnectionPagesWire {
    /// The spec's `type`, present when [`CallSpec::from_json`] reads the
    /// whole object as this kind (never written: the enum writes it).
    #[serde(rename = "type", default, skip_serializing)]
    _kind: Option<IgnoredAny>,
    connection: String,
    entity: String,
    #[serde(default)]
    page_size: Option<u64>,
    #[serde(
        default,
        deserialize_with = "filter_text",
        skip_serializing_if = "Option::is_none"
    )]
    filter: Option<String>,
    #[serde(default, skip_serializing_if = "is_default_egress")]
    egress: EgressMode,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    credential: Option<String>,
    #[serde(default, skip_serializing_if = "is_default_options")]
    options: CallOptions,
}

impl From<ConnectionPagesWire> for ConnectionPagesCall {
    fn from(wire: ConnectionPagesWire) -> Self {
        let defaults = ConnectionPagerOptions::default();
        ConnectionPagesCall {
            connection: wire.connection,
            entity: wire.entity,
            pager: ConnectionPagerOptions {
                page_size: wire.page_size.unwrap_or(defaults.page_size),
                filter: wire.filter,
                egress: wire.egress,
                credential: wire.credential,
            },
            options: wire.options,
        }
    }
}

impl From<ConnectionPagesCall> for ConnectionPagesWire {
    fn from(call: ConnectionPagesCall) -> Self {
        ConnectionPagesWire {
            _kind: None,
            connection: call.connection,
            entity: call.entity,
            page_size: Some(call.pager.page_size),
            filter: call.pager.filter,
            egress: call.pager.egress,
            credential: call.pager.credential,
            options: call.options,
        }
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RunPollWire {
    /// The spec's `type`, present when [`CallSpec::from_json`] reads the
    /// whole object as this kind (never written: the enum writes it).
    #[serde(rename = "type", default, skip_serializing)]
    _kind: Option<IgnoredAny>,
    run_id: String,
    #[serde(default)]
    interval_ms: Option<u64>,
    #[serde(default)]
    deadline_ms: Option<u64>,
    #[serde(default)]
    jitter_per_mille: Option<u64>,
    #[serde(default)]
    max_interval_ms: Option<u64>,
    #[serde(default)]
    status_field: Option<String>,
    #[serde(default)]
    terminal_states: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    credential: Option<String>,
    #[serde(default, skip_serializing_if = "is_default_options")]
    options: CallOptions,
}

impl From<RunPollWire> for RunPollCall {
    fn from(wire: RunPollWire) -> Self {
        let defaults = PollOptions::default();
        RunPollCall {
            run_id: wire.run_id,
            poll: PollOptions {
                interval_ms: wire.interval_ms.unwrap_or(defaults.interval_ms),
                jitter_per_mille: wire.jitter_per_mille.unwrap_or(defaults.jitter_per_mille),
                status_field: wire.status_field.unwrap_or(defaults.status_field),
                terminal_states: wire.terminal_states.unwrap_or(defaults.terminal_states),
                deadline_ms: wire.deadline_ms.unwrap_or(defaults.deadline_ms),
                max_interval_ms: wire.max_interval_ms.unwrap_or(defaults.max_interval_ms),
            },
            credential: wire.credential,
            options: wire.options,
        }
    }
}

impl From<RunPollCall> for RunPollWire {
    fn from(call: RunPollCall) -> Self {
        RunPollWire {
            _kind: None,
            run_id: call.run_id,
            interval_ms: Some(call.poll.interval_ms),
            deadline_ms: Some(call.poll.deadline_ms),
            jitter_per_mille: Some(call.poll.jitter_per_mille),
            max_interval_ms: Some(call.poll.max_interval_ms),
            status_field: Some(call.poll.status_field),
            terminal_states: Some(call.poll.terminal_states),
            credential: call.credential,
            options: call.options,
        }
    }
}
