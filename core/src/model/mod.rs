//! The API as data, shared by the gate (server role) and the client role.
//!
//! * [`operation`]: operations, path templates, credential policies, envelopes.
//! * [`catalogue`]: the built-in operations and the names the spec leaves open.
//! * [`params`]: query parameter specs and the validators both roles use.
//! * [`query`]: strict parsing of a raw query string against those specs.
//! * [`index`]: the `ApiIndex` document, validated on build and on parse.
//! * [`error_body`]: the `Error` body `{detail, status, ...extra}`.
//! * [`credential`]: credential kinds, the secret and credential-header
//!   rule, principals and stores.
//! * [`limits`]: the spec's limits, quota bounds, which limits apply to a
//!   request, and the tightest-limit order.
//! * [`header_names`]: header names, written once.
//! * [`url`]: URL parsing (base URLs and the index's URI fields).

pub mod catalogue;
pub mod credential;
pub mod error_body;
pub mod header_names;
pub mod index;
mod index_check;
pub mod limits;
pub mod operation;
pub mod params;
pub mod query;
pub mod url;

pub use catalogue::{Catalogue, CatalogueError, ParamNames};
pub use credential::{
    CredentialKind, CredentialRecord, CredentialStore, InMemoryCredentials, Principal, Secret,
};
pub use error_body::ErrorBody;
pub use index::{ApiIndex, IndexError};
pub use operation::{
    CredentialPolicy, Envelope, ExtraLimit, LimitSubject, Operation, OperationId, PathTemplate,
};
pub use params::{ParamKind, ParamProblem, ParamRole, ParamSpec, ParamValue, Params};
