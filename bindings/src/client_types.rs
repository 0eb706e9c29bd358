//! Plain values of the client role as uniffi records and enums, with their
//! conversions. Results that the conformance vectors compare exactly also
//! carry `json`: the core's own serde serialisation of the same value.

use crate::gate_types::{PathParam, ResponseHeader};
use crate::time;
use acd_core::client as core_client;
use serde::Serialize;

pub(crate) fn to_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

pub(crate) fn pairs(headers: &[ResponseHeader]) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|h| (h.name.clone(), h.value.clone()))
        .collect()
}

/// How stable egress is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum EgressMode {
    /// The ordinary path, no stable egress.
    Default,
    /// The stable-egress header.
    Header,
    /// The `{stable_egress_url}/{version}/...` URL.
    Url,
}

impl From<EgressMode> for core_client::EgressMode {
    fn from(mode: EgressMode) -> Self {
        match mode {
            EgressMode::Default => Self::Default,
            EgressMode::Header => Self::Header,
            EgressMode::Url => Self::Url,
        }
    }
}

/// One query parameter of a request to build.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct QueryParam {
    /// The name on the wire.
    pub name: String,
    /// The value (unencoded).
    pub value: String,
}

/// What a query parameter means, whatever the catalogue calls it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum ParamRole {
    /// Records to skip.
    Offset,
    /// Page size.
    Limit,
    /// Order column.
    OrderBy,
    /// `asc` or `desc`.
    Direction,
    /// Lower bound of the order column.
    After,
    /// Connection entity.
    EntityId,
    /// Connection filter (JSON text).
    Filter,
}

impl From<ParamRole> for acd_core::model::ParamRole {
    fn from(role: ParamRole) -> Self {
        match role {
            ParamRole::Offset => Self::Offset,
            ParamRole::Limit => Self::Limit,
            ParamRole::OrderBy => Self::OrderBy,
            ParamRole::Direction => Self::Direction,
            ParamRole::After => Self::After,
            ParamRole::EntityId => Self::EntityId,
            ParamRole::Filter => Self::Filter,
        }
    }
}

impl TryFrom<acd_core::model::ParamRole> for ParamRole {
    type Error = ();
    fn try_from(role: acd_core::model::ParamRole) -> Result<Self, ()> {
        use acd_core::model::ParamRole as R;
        Ok(match role {
            R::Offset => Self::Offset,
            R::Limit => Self::Limit,
            R::OrderBy => Self::OrderBy,
            R::Direction => Self::Direction,
            R::After => Self::After,
            R::EntityId => Self::EntityId,
            R::Filter => Self::Filter,
            R::Custom => return Err(()),
        })
    }
}

/// A query parameter given by role rather than by name.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct RoleParam {
    /// What it means.
    pub role: ParamRole,
    /// The value (unencoded).
    pub value: String,
}

/// What to build: an operation, its parameters and options.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct RequestSpec {
    /// The operation id, e.g. `listTableRecords`.
    pub operation: String,
    /// Path parameters by template name.
    pub path: Vec<PathParam>,
    /// Query parameters, in order.
    pub query: Vec<QueryParam>,
    /// Query parameters by role (named by the catalogue), after `query`.
    pub roles: Vec<RoleParam>,
    /// The id of the credential to use (default: the first configured).
    pub credential: Option<String>,
    /// Stable egress.
    pub egress: EgressMode,
    /// A request body, for operations that take one.
    pub body: Option<Vec<u8>>,
    /// An idempotency key for this logical call.
    pub idempotency_key: Option<String>,
}

impl From<RequestSpec> for core_client::RequestSpec {
    fn from(spec: RequestSpec) -> Self {
        Self {
            operation: spec.operation,
            path: spec.path.into_iter().map(|p| (p.name, p.value)).collect(),
            query: spec.query.into_iter().map(|q| (q.name, q.value)).collect(),
            roles: spec
                .roles
                .into_iter()
                .map(|r| (r.role.into(), r.value))
                .collect(),
            credential: spec.credential,
            egress: spec.egress.into(),
            body: spec.body,
            idempotency_key: spec.idempotency_key,
        }
    }
}

impl From<core_client::RequestSpec> for RequestSpec {
    fn from(spec: core_client::RequestSpec) -> Self {
        Self {
            operation: spec.operation,
            path: spec
                .path
                .into_iter()
                .map(|(name, value)| PathParam { name, value })
                .collect(),
            query: spec
                .query
                .into_iter()
                .map(|(name, value)| QueryParam { name, value })
                .collect(),
            roles: spec
                .roles
                .into_iter()
                .filter_map(|(role, value)| {
                    ParamRole::try_from(role)
                        .ok()
                        .map(|role| RoleParam { role, value })
                })
                .collect(),
            credential: spec.credential,
            egress: match spec.egress {
                core_client::EgressMode::Default => EgressMode::Default,
                core_client::EgressMode::Header => EgressMode::Header,
                core_client::EgressMode::Url => EgressMode::Url,
            },
            body: spec.body,
            idempotency_key: spec.idempotency_key,
        }
    }
}

/// `GET /api/{version}` (getApiIndex), as the core spells it.
#[uniffi::export]
pub fn spec_get_api_index() -> RequestSpec {
    core_client::RequestSpec::get_api_index().into()
}

/// `GET .../tables/{id}` (listTableRecords), as the core spells it.
#[uniffi::export]
pub fn spec_list_table_records(table: String) -> RequestSpec {
    core_client::RequestSpec::list_table_records(table).into()
}

/// `GET .../connections/{connection_id}/records` for `entity`.
#[uniffi::export]
pub fn spec_list_connection_records(connection: String, entity: String) -> RequestSpec {
    core_client::RequestSpec::list_connection_records(connection, entity).into()
}

/// A response as the caller's transport received it.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct HttpResponse {
    /// The status code.
    pub status: u16,
    /// Header names and values, in order.
    pub headers: Vec<ResponseHeader>,
    /// The body bytes.
    pub body: Vec<u8>,
}

impl From<HttpResponse> for core_client::HttpResponse {
    fn from(response: HttpResponse) -> Self {
        Self {
            status: response.status,
            headers: pairs(&response.headers),
            body: response.body,
        }
    }
}

/// How a transport attempt failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum TransportFailure {
    /// The connection could not be made (the request was never sent).
    Connect,
    /// No response in time (the request may have been processed).
    Timeout,
    /// The connection broke mid-way.
    Interrupted,
}

impl From<TransportFailure> for core_client::TransportFailure {
    fn from(failure: TransportFailure) -> Self {
        match failure {
            TransportFailure::Connect => Self::Connect,
            TransportFailure::Timeout => Self::Timeout,
            TransportFailure::Interrupted => Self::Interrupted,
        }
    }
}

/// How one attempt ended.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum Outcome {
    /// A response arrived.
    Response {
        /// The response.
        response: HttpResponse,
    },
    /// The transport failed.
    Transport {
        /// How.
        failure: TransportFailure,
    },
}

impl From<Outcome> for core_client::Outcome {
    fn from(outcome: Outcome) -> Self {
        match outcome {
            Outcome::Response { response } => Self::Response(response.into()),
            Outcome::Transport { failure } => Self::Transport(failure.into()),
        }
    }
}

/// Why the throttle says to wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum WaitReason {
    /// The limit's window is used up.
    Quota,
    /// The server said when to come back (`Retry-After`).
    RetryAfter,
}

/// The throttle's answer for one request.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum Plan {
    /// Every limit has room: send now.
    SendNow,
    /// Wait until `at_ms` (Unix ms) because of limit `limit`.
    WaitUntil {
        /// The instant.
        at_ms: i64,
        /// The key of the limit that needs the longest wait.
        limit: String,
        /// Why.
        reason: WaitReason,
    },
}

impl From<core_client::Plan> for Plan {
    fn from(plan: core_client::Plan) -> Self {
        match plan {
            core_client::Plan::SendNow => Self::SendNow,
            core_client::Plan::WaitUntil { at, limit, reason } => Self::WaitUntil {
                at_ms: time::from_core(at),
                limit,
                // The throttle plans only quota and Retry-After waits.
                reason: match reason {
                    core_client::WaitReason::Quota => WaitReason::Quota,
                    _ => WaitReason::RetryAfter,
                },
            },
        }
    }
}

/// A successful, interpreted response.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum ApiResponse {
    /// A list of records (a page), each the raw JSON text of one record.
    Records {
        /// The HTTP status.
        status: u16,
        /// The records, as received.
        records: Vec<String>,
        /// The core's serialisation of this result.
        json: String,
    },
    /// The API index, validated.
    Index {
        /// The HTTP status.
        status: u16,
        /// The index document as JSON.
        index: String,
        /// The core's serialisation of this result.
        json: String,
    },
    /// A single `data` object (e.g. a run), as raw JSON.
    Object {
        /// The HTTP status.
        status: u16,
        /// The payload, as received.
        value: String,
        /// The core's serialisation of this result.
        json: String,
    },
}

impl From<core_client::ApiResponse> for ApiResponse {
    fn from(response: core_client::ApiResponse) -> Self {
        let json = to_json(&response);
        match response {
            core_client::ApiResponse::Records { status, records } => Self::Records {
                status,
                records: records.iter().map(|r| r.get().to_owned()).collect(),
                json,
            },
            core_client::ApiResponse::Index { status, index } => Self::Index {
                status,
                index: String::from_utf8_lossy(&index.to_bytes()).into_owned(),
                json,
            },
            core_client::ApiResponse::Object { status, value } => Self::Object {
                status,
                value: value.get().to_owned(),
                json,
            },
        }
    }
}

/// A client error as a value: its kind, its sentence and, for errors the
/// API sent, the status and detail.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct ClientFailure {
    /// The kind, e.g. `api`, `protocol`, `invalid_params`, `gave_up`.
    pub kind: String,
    /// The core's category (`config`, `request`, `not_found`, ...): the one
    /// value each language maps to its error class.
    pub category: String,
    /// The sentence the Rust error displays.
    pub message: String,
    /// The HTTP status, when a response was involved.
    pub status: Option<u16>,
    /// The API's `detail`, for `api` errors (of the last attempt if `gave_up`).
    pub detail: Option<String>,
    /// The core's serialisation of the error.
    pub json: String,
}

impl From<core_client::ClientError> for ClientFailure {
    fn from(error: core_client::ClientError) -> Self {
        use core_client::ClientError as E;
        let value = serde_json::to_value(&error).unwrap_or_default();
        let last = match &error {
            E::GaveUp { last, .. } => last.as_ref(),
            other => other,
        };
        let (status, detail) = match last {
            E::Api { status, detail, .. } => (Some(*status), Some(detail.clone())),
            E::Protocol { status, .. }
            | E::Redirect { status, .. }
            | E::BodyTooLarge { status, .. } => (Some(*status), None),
            _ => (None, None),
        };
        Self {
            kind: value["kind"].as_str().unwrap_or_default().to_owned(),
            category: error.category().as_str().to_owned(),
            message: error.to_string(),
            status,
            detail,
            json: value.to_string(),
        }
    }
}

/// A response interpreted: the result or the error.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum InterpretResult {
    /// The response was a success.
    Ok {
        /// It.
        response: ApiResponse,
    },
    /// An error (from the API, or a broken contract).
    Err {
        /// It.
        failure: ClientFailure,
    },
}

impl From<Result<core_client::ApiResponse, core_client::ClientError>> for InterpretResult {
    fn from(result: Result<core_client::ApiResponse, core_client::ClientError>) -> Self {
        match result {
            Ok(response) => Self::Ok {
                response: response.into(),
            },
            Err(error) => Self::Err {
                failure: error.into(),
            },
        }
    }
}

/// The retry planner's answer about one outcome.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct RetryDecision {
    /// `done`, `retry` or `give_up`.
    pub decision: String,
    /// For `retry`: when (Unix ms).
    pub at_ms: Option<i64>,
    /// The core's serialisation of the decision.
    pub json: String,
}

impl From<core_client::RetryDecision> for RetryDecision {
    fn from(decision: core_client::RetryDecision) -> Self {
        let value = serde_json::to_value(&decision).unwrap_or_default();
        let at_ms = match decision {
            core_client::RetryDecision::Retry { at, .. } => Some(time::from_core(at)),
            _ => None,
        };
        Self {
            decision: value["decision"].as_str().unwrap_or_default().to_owned(),
            at_ms,
            json: value.to_string(),
        }
    }
}

/// Rate-limit headers as the client reads them.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct RateLimitHeaders {
    /// When the server said to come back (`Retry-After`), if it did (Unix ms).
    pub retry_at_ms: Option<i64>,
    /// The core's serialisation (observations, retry_at, ignored).
    pub json: String,
}

/// A deprecation or sunset notice about one operation.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct DeprecationWarning {
    /// The operation.
    pub operation_id: String,
    /// One sentence per malformed or contradictory header value.
    pub malformed: Vec<String>,
    /// The core's serialisation of the notice.
    pub json: String,
}

impl From<core_client::DeprecationWarning> for DeprecationWarning {
    fn from(warning: core_client::DeprecationWarning) -> Self {
        Self {
            json: to_json(&warning),
            operation_id: warning.operation_id,
            malformed: warning.malformed,
        }
    }
}
