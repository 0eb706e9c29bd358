//! Requests: [`RequestSpec`] says what to call, [`build_request`] turns it
//! into an owned [`ClientRequest`] any transport can send.
//!
//! The URL is `base_url + /api/{version} + path` (each path value
//! percent-encoded) `+ ?query`; the query is validated by the same validators
//! the gate runs, so a bad page size fails here, before any I/O. The
//! credential header follows the credential's kind; stable egress is asked for
//! by header or by the `{stable_egress_url}/{version}/...` URL.

use crate::model::credential::{is_credential_header, REDACTED};
use crate::model::wire_enum::wire_enum;
use crate::model::ParamRole;
use crate::model::Quota;
use serde::{Deserialize, Serialize};

mod build;

pub use build::build_request;

/// How a request asks for the stable, allowlistable egress IP.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum EgressMode {
    /// The default path.
    #[default]
    Default,
    /// The stable-egress header set to `true`.
    Header,
    /// The `{stable_egress_url}/{version}/...` URL.
    Url,
}
wire_enum!(EgressMode {
    Default = "default",
    Header = "header",
    Url = "url"
});

/// What to call: an operation of the catalogue and its arguments.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RequestSpec {
    /// The operation id, e.g. `listTableRecords`.
    pub operation: String,
    /// Path parameter values by name (decoded; they are encoded here).
    pub path: Vec<(String, String)>,
    /// Query parameters by wire name, in the order to send them.
    pub query: Vec<(String, String)>,
    /// Query parameters by role, resolved to the catalogue's names.
    pub roles: Vec<(ParamRole, String)>,
    /// The id of the credential to use; the first configured one if `None`.
    pub credential: Option<String>,
    /// Stable egress.
    pub egress: EgressMode,
    /// A JSON body.
    pub body: Option<Vec<u8>>,
    /// An idempotency key for this logical call (reused on every attempt).
    pub idempotency_key: Option<String>,
}

impl RequestSpec {
    /// A call of `operation` without arguments.
    pub fn new(operation: impl Into<String>) -> Self {
        Self {
            operation: operation.into(),
            ..Self::default()
        }
    }

    /// `GET /api/v1` (getApiIndex).
    pub fn get_api_index() -> Self {
        Self::new(crate::model::catalogue::ids::GET_API_INDEX)
    }

    /// `GET /api/v1/tables/{id}` (listTableRecords).
    pub fn list_table_records(table: impl Into<String>) -> Self {
        Self::new(crate::model::catalogue::ids::LIST_TABLE_RECORDS).path("id", table)
    }

    /// `GET /api/v1/connections/{connection_id}/records` for `entity`.
    pub fn list_connection_records(
        connection: impl Into<String>,
        entity: impl Into<String>,
    ) -> Self {
        Self::new(crate::model::catalogue::ids::LIST_CONNECTION_RECORDS)
            .path("connection_id", connection)
            .param(ParamRole::EntityId, entity)
    }

    /// `POST /agents/{agent_id}/runs` (createAgentRun), without a body.
    pub fn create_agent_run(agent_id: impl Into<String>) -> Self {
        Self::new(crate::model::catalogue::ids::CREATE_AGENT_RUN).path("agent_id", agent_id)
    }

    /// `GET /runs/{run_id}` (getRun).
    pub fn get_run(run_id: impl Into<String>) -> Self {
        Self::new(crate::model::catalogue::ids::GET_RUN).path("run_id", run_id)
    }

    /// Sets a path parameter.
    pub fn path(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.path.push((name.into(), value.into()));
        self
    }

    /// Adds a query parameter by its wire name.
    pub fn query(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.query.push((name.into(), value.into()));
        self
    }

    /// Adds a query parameter by role (`ParamRole::Limit` is the page size,
    /// whatever the catalogue calls it).
    pub fn param(mut self, role: ParamRole, value: impl Into<String>) -> Self {
        self.roles.push((role, value.into()));
        self
    }

    /// Chooses the credential by id.
    pub fn credential(mut self, id: impl Into<String>) -> Self {
        self.credential = Some(id.into());
        self
    }

    /// Asks for stable egress.
    pub fn egress(mut self, mode: EgressMode) -> Self {
        self.egress = mode;
        self
    }

    /// Sets a JSON body.
    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.body = Some(body.into());
        self
    }

    /// Sets the idempotency key of this logical call.
    pub fn idempotency_key(mut self, key: impl Into<String>) -> Self {
        self.idempotency_key = Some(key.into());
        self
    }
}

/// One limit a request counts against, as the client models it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimitRef {
    /// The state key, e.g. `credential:main` or `user_table_reads:ada` (name and subject).
    pub key: String,
    /// The limit's name as the gate calls it, e.g. `user_table_reads`.
    pub name: String,
    /// The size assumed until the index or headers say otherwise.
    pub quota: Quota,
}

/// A request ready to send, plus what the client needs to plan around it.
///
/// Immutable wire data: the driver keeps each call's attempt state itself.
/// `Debug` and the default serde form (`Serialize`) replace credential header
/// values with `<redacted>`; [`ClientRequest::to_wire_json`] is the explicitly
/// named form that keeps every byte, for a transport in another language.
#[derive(Clone, PartialEq, Eq, Deserialize)]
pub struct ClientRequest {
    /// The method, e.g. `GET`.
    pub method: String,
    /// The absolute URL.
    pub url: String,
    /// Headers to send, in order.
    pub headers: Vec<(String, String)>,
    /// The body, if any.
    pub body: Option<Vec<u8>>,
    /// The operation id.
    pub operation_id: String,
    /// The limits it counts against.
    pub limits: Vec<LimitRef>,
    /// The idempotency key, if it has one.
    pub idempotency_key: Option<String>,
    /// Advice about the request (e.g. `direction` without `order_by`).
    pub warnings: Vec<String>,
}

/// `headers` with every credential value replaced by [`REDACTED`] (the
/// model's credential-header rule).
pub fn redact_headers(headers: &[(String, String)]) -> Vec<(&str, &str)> {
    headers
        .iter()
        .map(|(name, value)| {
            let shown = if is_credential_header(name) {
                REDACTED
            } else {
                value.as_str()
            };
            (name.as_str(), shown)
        })
        .collect()
}

#[derive(Serialize)]
struct RequestShape<'a, H: Serialize> {
    method: &'a str,
    url: &'a str,
    headers: H,
    body: &'a Option<Vec<u8>>,
    operation_id: &'a str,
    limits: &'a [LimitRef],
    idempotency_key: &'a Option<String>,
    warnings: &'a [String],
}

impl ClientRequest {
    fn shape<H: Serialize>(&self, headers: H) -> RequestShape<'_, H> {
        RequestShape {
            method: &self.method,
            url: &self.url,
            headers,
            body: &self.body,
            operation_id: &self.operation_id,
            limits: &self.limits,
            idempotency_key: &self.idempotency_key,
            warnings: &self.warnings,
        }
    }

    /// The request as JSON with every header byte kept, credentials included:
    /// the form to hand to a transport. Never log it.
    pub fn to_wire_json(&self) -> String {
        serde_json::to_string(&self.shape(&self.headers)).unwrap_or_default()
    }

    /// The request as a JSON value with every header byte kept (see
    /// [`ClientRequest::to_wire_json`]).
    pub fn to_wire_value(&self) -> serde_json::Value {
        serde_json::to_value(self.shape(&self.headers)).unwrap_or_default()
    }
}

impl Serialize for ClientRequest {
    /// The redacted form: credential header values are `<redacted>`.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.shape(redact_headers(&self.headers))
            .serialize(serializer)
    }
}

impl std::fmt::Debug for ClientRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientRequest")
            .field("method", &self.method)
            .field("url", &self.url)
            .field("headers", &redact_headers(&self.headers))
            .field("operation_id", &self.operation_id)
            .finish_non_exhaustive()
    }
}

impl ClientRequest {
    /// The path and query (what goes on an HTTP/1.1 request line).
    pub fn target(&self) -> &str {
        let after_scheme = self.url.split_once("://").map_or("", |(_, rest)| rest);
        after_scheme.find('/').map_or("/", |at| &after_scheme[at..])
    }

    /// Whether repeating it cannot repeat an effect: an idempotent method
    /// (RFC 9110 §9.2.2), or an idempotency key (given by the caller, or
    /// added because the client and the operation both opted in).
    pub fn is_idempotent(&self) -> bool {
        matches!(
            self.method.as_str(),
            "GET" | "HEAD" | "OPTIONS" | "PUT" | "DELETE"
        ) || self.idempotency_key.is_some()
    }

    /// The first value of header `name` (case-insensitive), if present.
    pub fn header(&self, name: &str) -> Option<&str> {
        crate::model::header_names::first_value(&self.headers, name)
    }

    /// Every value of header `name` (case-insensitive), in order.
    pub fn header_all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        crate::model::header_names::all_values(&self.headers, name)
    }
}

#[cfg(test)]
mod tests;
