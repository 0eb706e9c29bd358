//! The API as data, shared by the gate (server role) and the client role.
//!
//! Every type lives at one path, `acd_core::model::Name`; the files behind
//! them are private:
//!
//! * operations, path templates, credential policies, envelopes
//!   ([`Operation`], [`PathTemplate`], [`CredentialPolicy`], ...);
//! * the built-in operations ([`Catalogue`], their ids in [`ids`]) and the
//!   names the spec leaves open ([`ParamNames`]);
//! * query parameter specs and the validators both roles use
//!   ([`ParamSpec`], [`Params`]) and strict query parsing ([`parse_query`]);
//! * the `ApiIndex` document, validated on build and on parse ([`ApiIndex`]);
//! * the `Error` body `{detail, status, ...extra}` ([`ErrorBody`]);
//! * credential kinds, the secret and credential-header rule, principals
//!   and stores ([`CredentialKind`], [`Secret`], [`CredentialStore`]);
//! * a limit's size and one limit applied to a request ([`Quota`],
//!   [`LimitCheck`]);
//! * the spec's limits, quota bounds, which limits apply to a request and
//!   the tightest-limit order ([`LimitSettings`], [`RequestFacts`],
//!   [`tightness`]);
//! * the router from a method and request target to an operation, the
//!   gate's and every raw client's ([`Router`], [`Route`]);
//! * URL parsing ([`HttpUrl`]) and the stable-egress URL a base URL
//!   implies ([`stable_egress_url_for`]);
//! * header names, written once, in the [`header_names`] namespace, and
//!   the one header-block reader ([`parse_header_block`]).

pub(crate) mod catalogue;
pub(crate) mod credential;
pub(crate) mod error_body;
pub(crate) mod header_block;
pub mod header_names;
pub(crate) mod index;
mod index_check;
pub(crate) mod limits;
pub(crate) mod operation;
pub(crate) mod params;
pub(crate) mod query;
pub(crate) mod quota;
pub(crate) mod route;
pub(crate) mod url;
pub(crate) mod wire_enum;

pub use catalogue::{
    ids, Catalogue, CatalogueError, ParamNames, CONNECTION_PAGE_MAX, DEFAULT_PAGE_SIZE,
    FILTER_MAX_BYTES, FILTER_MAX_DEPTH, OFFSET_MAX, RUN_TERMINAL_STATUSES, TABLES_READ_SCOPE,
    TABLE_PAGE_MAX, TEXT_MAX_BYTES,
};
pub use credential::{
    carries_secret, is_credential_header, is_well_formed_secret, CredentialKind, CredentialRecord,
    CredentialStore, InMemoryCredentials, Principal, RedactedHeaders, Secret, SecretPrefixes,
    CREDENTIAL_HEADERS, REDACTED, SECRET_HEADERS, SECRET_MAX_BYTES, SECRET_SHAPE,
};
pub use error_body::{invalid_params_summary, ErrorBody, SHOWN_PROBLEMS};
pub use header_block::{parse_header_block, HeaderBlockError};
pub use index::{
    AccountAccess, ApiIndex, AuthMethod, Authentication, Clients, CredentialCreation, IndexError,
    MethodType, Onboarding, RateLimits, Trial, Versioning, VersioningStrategy,
};
pub use limits::{
    check_quota, tightness, AppliedLimit, CredentialFacts, LimitSettings, QuotaError, RequestFacts,
    AGENT_RUNS, AGENT_RUNS_NAME, CLIENT_IP_LIMIT, CLIENT_IP_LIMIT_NAME, CREDENTIAL_LIMIT,
    CREDENTIAL_LIMIT_NAME, MAX_WINDOW_MS, MIN_WINDOW_MS, USER_TABLE_READS, USER_TABLE_READS_NAME,
};
pub use operation::{
    CredentialPolicy, DeprecationNotice, Envelope, ExtraLimit, LimitSubject, Operation,
    OperationId, PathTemplate, PathTemplateError, Segment,
};
pub use params::{
    parse_canonical_u64, ParamKind, ParamProblem, ParamRole, ParamSpec, ParamValue, Params,
};
pub use query::{
    decode_component, encode_component, parse_query, validate_pairs, MAX_REPORTED_PROBLEMS,
};
pub use quota::{LimitCheck, Quota};
pub use route::{Route, Router};
pub use url::{is_absolute_uri, stable_egress_url_for, HttpUrl, UrlError, STABLE_EGRESS_PATH};
