//! The operation catalogue: the three specified operations built in, and
//! room for the caller's own (e.g. `createAgentRun` with its per-agent limit).

use super::limits::{AGENT_RUNS, AGENT_RUNS_NAME, USER_TABLE_READS, USER_TABLE_READS_NAME};
use super::operation::{
    CredentialPolicy, Envelope, ExtraLimit, LimitSubject, Operation, PathTemplate,
    PathTemplateError, Segment,
};
use super::params::{ParamKind, ParamRole, ParamSpec};
use serde::{Deserialize, Serialize};

/// Largest table page (spec: 1 to 5000).
pub const TABLE_PAGE_MAX: u64 = 5_000;
/// Largest connection page (spec: 1 to 500).
pub const CONNECTION_PAGE_MAX: u64 = 500;
/// Page size used when none is given (the spec leaves it open).
pub const DEFAULT_PAGE_SIZE: u64 = 100;
/// Longest `filter`, in bytes.
pub const FILTER_MAX_BYTES: usize = 8 * 1024;
/// Deepest nesting of `filter`.
pub const FILTER_MAX_DEPTH: usize = 32;
/// Largest offset: 2^53 − 1, the largest integer every JSON consumer
/// (JavaScript included) represents exactly (RFC 7493).
pub const OFFSET_MAX: u64 = (1 << 53) - 1;
/// Longest text parameter (`order_by`, `after`, `entity_id`), in bytes.
pub const TEXT_MAX_BYTES: usize = 1_024;
/// The OAuth scope table reads need.
pub const TABLES_READ_SCOPE: &str = "tables:read";
/// The run states after which a run never changes again. The spec shows no
/// run fields; these are the catalogue's choice, shared by the client's run
/// poller, the CLI and the sandbox.
pub const RUN_TERMINAL_STATUSES: [&str; 3] = ["succeeded", "failed", "cancelled"];

/// Operation ids of the three specified operations.
pub mod ids {
    /// `GET /api/v1`.
    pub const GET_API_INDEX: &str = "getApiIndex";
    /// `GET /api/v1/tables/{id}`.
    pub const LIST_TABLE_RECORDS: &str = "listTableRecords";
    /// `GET /api/v1/connections/{connection_id}/records`.
    pub const LIST_CONNECTION_RECORDS: &str = "listConnectionRecords";
    /// `POST /agents/{agent_id}/runs`, the caller-defined example
    /// ([`super::Catalogue::create_agent_run`]).
    pub const CREATE_AGENT_RUN: &str = "createAgentRun";
    /// `GET /runs/{run_id}`: reads one run; what a run poller polls
    /// ([`super::Catalogue::get_run`]).
    pub const GET_RUN: &str = "getRun";
    /// A target no operation of the catalogue serves, called as given
    /// (`acd api METHOD PATH`; [`crate::model::Operation::unlisted`]).
    pub const UNLISTED: &str = "unlisted";
}

/// The query parameter names the spec leaves open (only `order_by` is given).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ParamNames {
    /// Records to skip (both reads). Default `offset`.
    pub offset: String,
    /// Page size (both reads). Default `limit`.
    pub limit: String,
    /// Sort direction of table reads. Default `direction`.
    pub direction: String,
    /// Lower bound of table reads. Default `after`.
    pub after: String,
    /// Connection entity. Default `entity_id`.
    pub entity_id: String,
    /// Connection filter. Default `filter`.
    pub filter: String,
}

impl Default for ParamNames {
    fn default() -> Self {
        Self {
            offset: "offset".into(),
            limit: "limit".into(),
            direction: "direction".into(),
            after: "after".into(),
            entity_id: "entity_id".into(),
            filter: "filter".into(),
        }
    }
}

/// Why a catalogue was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogueError {
    /// Two operations share an id.
    #[error("operation id {0:?} is defined twice; every operationId must be unique")]
    DuplicateId(String),
    /// Two operations share a method and path.
    #[error("operations {first:?} and {second:?} both serve {method} {path}; give each method and path one operation")]
    DuplicateRoute {
        /// The first operation.
        first: String,
        /// The second operation.
        second: String,
        /// Their method.
        method: String,
        /// Their path template.
        path: String,
    },
    /// A method is not an upper-case HTTP token.
    #[error(
        "operation {id:?} has method {method:?}; use an upper-case HTTP method such as GET or POST"
    )]
    BadMethod {
        /// The operation.
        id: String,
        /// Its method.
        method: String,
    },
    /// A limit keyed by a path parameter names one the path does not have.
    #[error(
        "operation {id:?} has a limit per path parameter {param:?}, which its path does not have"
    )]
    UnknownLimitParam {
        /// The operation.
        id: String,
        /// The missing parameter.
        param: String,
    },
    /// A path template is malformed.
    #[error(transparent)]
    Path(#[from] PathTemplateError),
}

/// The set of operations a gate serves and a client builds.
///
/// Deserialises from an array of operations, checked like [`Catalogue::new`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Vec<Operation>", into = "Vec<Operation>")]
pub struct Catalogue {
    operations: Vec<Operation>,
}

fn integer(name: &str, role: ParamRole, min: u64, max: u64, default: Option<u64>) -> ParamSpec {
    ParamSpec {
        name: name.to_owned(),
        role,
        kind: ParamKind::Integer { min, max, default },
        required: false,
    }
}

fn text(name: &str, role: ParamRole, required: bool) -> ParamSpec {
    ParamSpec {
        name: name.to_owned(),
        role,
        kind: ParamKind::Text {
            max_bytes: TEXT_MAX_BYTES,
        },
        required,
    }
}

/// A path template of literal segments and `{placeholders}`, built without
/// parsing (so without an error): `&["tables", "{id}"]` is `/tables/{id}`.
fn template(parts: &[&str]) -> PathTemplate {
    PathTemplate::from_segments(
        parts
            .iter()
            .map(|part| {
                match part
                    .strip_prefix('{')
                    .and_then(|name| name.strip_suffix('}'))
                {
                    Some(name) => Segment::Param(name.to_owned()),
                    None => Segment::Literal((*part).to_owned()),
                }
            })
            .collect(),
    )
}

impl Catalogue {
    /// The three specified operations, with the default parameter names.
    /// Built without a fallible step (every entry is a constant that
    /// [`Catalogue::new`]'s checks accept, which the tests confirm), so
    /// there is no fallback.
    pub fn standard() -> Self {
        Self::with_names(&ParamNames::default())
    }

    /// The three specified operations, with the given parameter names.
    pub fn with_names(names: &ParamNames) -> Self {
        let index = Operation {
            id: ids::GET_API_INDEX.into(),
            method: "GET".into(),
            path: template(&[]),
            credential: CredentialPolicy::Public,
            envelope: Envelope::Bare,
            params: vec![],
            extra_limits: vec![],
            stable_egress: false,
            needs_resource: false,
            deprecation: None,
            honours_idempotency_key: false,
            outside_root: false,
            noun: None,
        };
        let tables = Operation {
            id: ids::LIST_TABLE_RECORDS.into(),
            method: "GET".into(),
            path: template(&["tables", "{id}"]),
            credential: CredentialPolicy::ApiKeyOrOAuth {
                scope: Some(TABLES_READ_SCOPE.into()),
            },
            envelope: Envelope::Data,
            params: vec![
                integer(&names.offset, ParamRole::Offset, 0, OFFSET_MAX, Some(0)),
                integer(
                    &names.limit,
                    ParamRole::Limit,
                    1,
                    TABLE_PAGE_MAX,
                    Some(DEFAULT_PAGE_SIZE),
                ),
                text("order_by", ParamRole::OrderBy, false),
                ParamSpec {
                    name: names.direction.clone(),
                    role: ParamRole::Direction,
                    kind: ParamKind::Enum {
                        values: vec!["asc".into(), "desc".into()],
                        default: Some("asc".into()),
                    },
                    required: false,
                },
                text(&names.after, ParamRole::After, false),
            ],
            extra_limits: vec![ExtraLimit {
                name: USER_TABLE_READS_NAME.into(),
                quota: USER_TABLE_READS,
                per: LimitSubject::User,
            }],
            stable_egress: false,
            needs_resource: true,
            deprecation: None,
            honours_idempotency_key: false,
            outside_root: false,
            noun: Some("table".into()),
        };
        let connections = Operation {
            id: ids::LIST_CONNECTION_RECORDS.into(),
            method: "GET".into(),
            path: template(&["connections", "{connection_id}", "records"]),
            credential: CredentialPolicy::ApiKeyOnly,
            envelope: Envelope::TopLevelArray,
            params: vec![
                text(&names.entity_id, ParamRole::EntityId, true),
                integer(&names.offset, ParamRole::Offset, 0, OFFSET_MAX, Some(0)),
                integer(
                    &names.limit,
                    ParamRole::Limit,
                    1,
                    CONNECTION_PAGE_MAX,
                    Some(DEFAULT_PAGE_SIZE),
                ),
                ParamSpec {
                    name: names.filter.clone(),
                    role: ParamRole::Filter,
                    kind: ParamKind::Json {
                        max_bytes: FILTER_MAX_BYTES,
                        max_depth: FILTER_MAX_DEPTH,
                    },
                    required: false,
                },
            ],
            extra_limits: vec![],
            stable_egress: true,
            needs_resource: true,
            deprecation: None,
            honours_idempotency_key: false,
            outside_root: false,
            noun: Some("connection".into()),
        };
        Self {
            operations: vec![index, tables, connections],
        }
    }

    /// A catalogue of exactly `operations`, checked for duplicates and
    /// well-formed methods and limits.
    pub fn new(operations: Vec<Operation>) -> Result<Self, CatalogueError> {
        let mut catalogue = Self { operations: vec![] };
        for operation in operations {
            catalogue.insert(operation, false)?;
        }
        Ok(catalogue)
    }

    /// Adds a caller-defined operation. An operation whose id is already
    /// there replaces it (so a caller can adjust a built-in one, e.g. make
    /// `createAgentRun` honour idempotency keys, and adding a built-in
    /// again is harmless); a different id on a route already served is
    /// refused.
    pub fn add(&mut self, operation: Operation) -> Result<(), CatalogueError> {
        self.insert(operation, true)
    }

    fn insert(&mut self, operation: Operation, replace: bool) -> Result<(), CatalogueError> {
        let is_token = !operation.method.is_empty()
            && operation.method.bytes().all(|b| b.is_ascii_uppercase());
        if !is_token {
            return Err(CatalogueError::BadMethod {
                id: operation.id,
                method: operation.method,
            });
        }
        for limit in &operation.extra_limits {
            if let LimitSubject::PathParam(param) = &limit.per {
                if !operation.path.param_names().any(|name| name == param) {
                    return Err(CatalogueError::UnknownLimitParam {
                        id: operation.id.clone(),
                        param: param.clone(),
                    });
                }
            }
        }
        let same = self
            .operations
            .iter()
            .any(|existing| existing.id == operation.id);
        if same && !replace {
            return Err(CatalogueError::DuplicateId(operation.id));
        }
        for existing in &self.operations {
            if existing.id == operation.id {
                continue;
            }
            if existing.method == operation.method && existing.path == operation.path {
                return Err(CatalogueError::DuplicateRoute {
                    first: existing.id.clone(),
                    second: operation.id,
                    method: operation.method,
                    path: operation.path.to_string(),
                });
            }
        }
        match self
            .operations
            .iter_mut()
            .find(|existing| existing.id == operation.id)
        {
            Some(existing) => *existing = operation,
            None => self.operations.push(operation),
        }
        Ok(())
    }

    /// Every operation, in the order added.
    pub fn operations(&self) -> &[Operation] {
        &self.operations
    }

    /// The operation with this id.
    pub fn get(&self, id: &str) -> Option<&Operation> {
        self.operations.iter().find(|operation| operation.id == id)
    }

    /// Mutable access to the operation with this id (to mark it deprecated,
    /// or change a limit).
    pub fn get_mut(&mut self, id: &str) -> Option<&mut Operation> {
        self.operations
            .iter_mut()
            .find(|operation| operation.id == id)
    }

    /// An example caller-defined operation: `POST /agents/{agent_id}/runs`
    /// with the spec's extra 30 requests per 60 s per agent.
    pub fn create_agent_run() -> Operation {
        Operation {
            id: ids::CREATE_AGENT_RUN.into(),
            method: "POST".into(),
            path: template(&["agents", "{agent_id}", "runs"]),
            credential: CredentialPolicy::ApiKeyOrOAuth { scope: None },
            envelope: Envelope::Data,
            params: vec![],
            extra_limits: vec![ExtraLimit {
                name: AGENT_RUNS_NAME.into(),
                quota: AGENT_RUNS,
                per: LimitSubject::PathParam("agent_id".into()),
            }],
            stable_egress: false,
            needs_resource: true,
            deprecation: None,
            honours_idempotency_key: false,
            outside_root: false,
            noun: Some("agent".into()),
        }
    }

    /// The run read a client polls: `GET /runs/{run_id}`, answering
    /// `{"data": Run}` with at least a `status` member.
    ///
    /// The spec says a client polls an active run about once per second
    /// until a terminal state, but does not show the operation, so this
    /// path is the default. It is part of the client's default catalogue
    /// ([`Catalogue::for_clients`]), so a run poller needs no hand-built
    /// entry; a server that serves runs adds it to its own catalogue.
    pub fn get_run() -> Operation {
        Operation {
            id: ids::GET_RUN.into(),
            method: "GET".into(),
            path: template(&["runs", "{run_id}"]),
            credential: CredentialPolicy::ApiKeyOrOAuth { scope: None },
            envelope: Envelope::Data,
            params: vec![],
            extra_limits: vec![],
            stable_egress: false,
            needs_resource: true,
            deprecation: None,
            honours_idempotency_key: false,
            outside_root: false,
            noun: Some("run".into()),
        }
    }

    /// The client role's default catalogue: the three specified operations
    /// ([`Catalogue::standard`]) plus the runs, [`Catalogue::create_agent_run`]
    /// (with its per-agent limit) and [`Catalogue::get_run`], so creating,
    /// reading and waiting for a run work out of the box in every binding.
    pub fn for_clients() -> Self {
        let mut catalogue = Self::standard();
        catalogue.operations.push(Self::create_agent_run());
        catalogue.operations.push(Self::get_run());
        catalogue
    }
}

impl TryFrom<Vec<Operation>> for Catalogue {
    type Error = CatalogueError;
    fn try_from(operations: Vec<Operation>) -> Result<Self, Self::Error> {
        Self::new(operations)
    }
}

impl From<Catalogue> for Vec<Operation> {
    fn from(catalogue: Catalogue) -> Self {
        catalogue.operations
    }
}

impl Default for Catalogue {
    fn default() -> Self {
        Self::standard()
    }
}

#[cfg(test)]
mod tests;
