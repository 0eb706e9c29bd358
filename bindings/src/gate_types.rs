//! Plain values of the gate as uniffi records and enums, and their
//! conversions to and from the core's types. Records become Python classes
//! and Kotlin data classes; none of them carries a secret.

use crate::gate::Admitted;
use crate::time;
use acd_core::gate as core_gate;
use acd_core::model as core_model;
use std::sync::Arc;

/// One request header: a name and its raw value bytes (values are bytes
/// because HTTP allows non-UTF-8; `repr`/`toString` never show them).
#[derive(Clone, PartialEq, Eq, uniffi::Record)]
pub struct Header {
    /// The header name (compared case-insensitively by the core).
    pub name: String,
    /// The raw value.
    pub value: Vec<u8>,
}

impl std::fmt::Debug for Header {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Header({:?}, <{} bytes>)", self.name, self.value.len())
    }
}

/// One response header.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct ResponseHeader {
    /// The header name, as it should be sent.
    pub name: String,
    /// The value.
    pub value: String,
}

/// A complete response of the gate: status, headers in order, body bytes.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct GateResponse {
    /// The status code.
    pub status: u16,
    /// Header names and values, in the order they should be sent.
    pub headers: Vec<ResponseHeader>,
    /// The body (JSON).
    pub body: Vec<u8>,
}

impl From<core_gate::GateResponse> for GateResponse {
    fn from(response: core_gate::GateResponse) -> Self {
        Self {
            status: response.status,
            headers: response
                .headers
                .into_iter()
                .map(|(name, value)| ResponseHeader { name, value })
                .collect(),
            body: response.body,
        }
    }
}

/// The two credential forms the spec names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum CredentialKind {
    /// An API key.
    ApiKey,
    /// An OAuth access token.
    OAuthToken,
}

impl From<CredentialKind> for core_model::CredentialKind {
    fn from(kind: CredentialKind) -> Self {
        match kind {
            CredentialKind::ApiKey => Self::ApiKey,
            CredentialKind::OAuthToken => Self::OAuthToken,
        }
    }
}

impl From<core_model::CredentialKind> for CredentialKind {
    fn from(kind: core_model::CredentialKind) -> Self {
        match kind {
            core_model::CredentialKind::ApiKey => Self::ApiKey,
            core_model::CredentialKind::OAuthToken => Self::OAuthToken,
        }
    }
}

/// What the credential store knows about one credential (no secret).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct CredentialRecord {
    /// A non-secret identifier, unique per credential.
    pub id: String,
    /// API key or OAuth token.
    pub kind: CredentialKind,
    /// The user the credential belongs to.
    pub user: String,
    /// OAuth scopes granted (ignored for API keys).
    pub scopes: Vec<String>,
    /// Expiry instant (Unix ms); refused from this instant on.
    pub expires_at_ms: Option<i64>,
}

impl CredentialRecord {
    /// The core's record, refusing a negative expiry.
    pub fn to_core(&self) -> Result<core_model::CredentialRecord, crate::AcdError> {
        Ok(core_model::CredentialRecord {
            id: self.id.clone(),
            kind: self.kind.into(),
            user: self.user.clone(),
            scopes: self.scopes.clone(),
            expires_at: self
                .expires_at_ms
                .map(|at| time::to_core("expires_at_ms", at))
                .transpose()?,
        })
    }
}

impl From<core_model::CredentialRecord> for CredentialRecord {
    fn from(record: core_model::CredentialRecord) -> Self {
        Self {
            id: record.id,
            kind: record.kind.into(),
            user: record.user,
            scopes: record.scopes,
            expires_at_ms: record.expires_at.map(time::from_core),
        }
    }
}

/// Who an admitted request is from.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum Principal {
    /// A public operation without a credential, counted per client IP.
    Anonymous {
        /// The client's IP address as the caller reported it.
        client_ip: String,
    },
    /// An authenticated credential.
    Credential {
        /// What the store knows about it.
        record: CredentialRecord,
    },
}

impl From<core_model::Principal> for Principal {
    fn from(principal: core_model::Principal) -> Self {
        match principal {
            core_model::Principal::Anonymous { client_ip } => Self::Anonymous { client_ip },
            core_model::Principal::Credential(record) => Self::Credential {
                record: record.into(),
            },
        }
    }
}

/// A validated query parameter value.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum ParamValue {
    /// An integer parameter.
    Integer {
        /// The value.
        value: u64,
    },
    /// A text, enum or JSON parameter (JSON kept as its source text).
    Text {
        /// The value.
        value: String,
    },
}

impl From<&core_model::ParamValue> for ParamValue {
    fn from(value: &core_model::ParamValue) -> Self {
        match value {
            core_model::ParamValue::Integer(value) => Self::Integer { value: *value },
            core_model::ParamValue::Text(value) => Self::Text {
                value: value.clone(),
            },
        }
    }
}

/// One validated query parameter, by name.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct Param {
    /// The name on the wire.
    pub name: String,
    /// The value (sent or defaulted).
    pub value: ParamValue,
}

/// One decoded path parameter.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct PathParam {
    /// The template name, e.g. `id`.
    pub name: String,
    /// The percent-decoded value.
    pub value: String,
}

/// One problem with one parameter, as in a 400 `errors` array.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct ParamProblem {
    /// The parameter's name.
    pub parameter: String,
    /// A sentence saying what is wrong and what is accepted.
    pub problem: String,
}

impl From<ParamProblem> for core_model::ParamProblem {
    fn from(problem: ParamProblem) -> Self {
        core_model::ParamProblem::new(problem.parameter, problem.problem)
    }
}

/// The caller's answer about the resource of an admitted request.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum ResourceAnswer {
    /// The payload as raw JSON bytes; wrapped without being parsed again.
    Found {
        /// The raw JSON payload.
        payload: Vec<u8>,
    },
    /// The resource does not exist or is not visible (404).
    NotFound,
    /// The principal may not read it (403).
    Forbidden,
    /// Well-formed parameters that are meaningless for this resource (400).
    Invalid {
        /// The problems.
        problems: Vec<ParamProblem>,
    },
}

impl From<ResourceAnswer> for core_gate::ResourceAnswer {
    fn from(answer: ResourceAnswer) -> Self {
        match answer {
            ResourceAnswer::Found { payload } => Self::Found(payload),
            ResourceAnswer::NotFound => Self::NotFound,
            ResourceAnswer::Forbidden => Self::Forbidden,
            ResourceAnswer::Invalid { problems } => {
                Self::Invalid(problems.into_iter().map(Into::into).collect())
            }
        }
    }
}

/// What the gate decided about a request.
#[derive(Debug, Clone, uniffi::Enum)]
pub enum Decision {
    /// The response is complete: send it.
    Respond {
        /// The response.
        response: GateResponse,
    },
    /// The request passed every rule: look the resource up and call
    /// `admitted.respond(answer)`.
    Resolve {
        /// The admitted request.
        admitted: Arc<Admitted>,
    },
}
