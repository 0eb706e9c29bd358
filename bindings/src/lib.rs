//! # acd-ffi
//!
//! The uniffi layer of acd: what Python (package `acd`) and Kotlin (package
//! `acd`) see. It converts types and forwards to [`acd_core`]; every rule,
//! bound, default and header lives in the core.
//!
//! * [`error`]: [`AcdError`], the one error type that crosses the boundary.
//! * [`time`]: instants as signed Unix milliseconds, checked on the way in.
//! * [`gate_types`]: plain records and enums of the gate (responses,
//!   decisions, answers, principals).
//! * [`driver`]: the client role, as the driver protocol
//!   (`docs/driver-protocol.md`): call specs and outcomes in, batches out.
//! * [`test_server`]: the core's test server, for `acd.testing`.
//! * [`testing`]: the core's client × gate simulation.
//! * [`webhooks`]: webhook verification and signing (the core's JSON form).
//! * [`gate`]: the objects: [`GateConfig`], [`Credentials`], [`GateRequest`],
//!   [`Gate`] and [`Admitted`].
//!
//! Objects are `Arc`-shared and thread-safe; time is always a parameter.

uniffi::setup_scaffolding!("acd_ffi");

pub mod driver;
pub mod error;
pub mod gate;
pub mod gate_types;
pub mod test_server;
pub mod testing;
pub mod time;
pub mod webhooks;

pub use error::AcdError;
pub use gate::{Admitted, Credentials, Gate, GateConfig, GateRequest};
pub use gate_types::{
    CredentialKind, CredentialRecord, Decision, GateResponse, Header, Param, ParamProblem,
    ParamValue, PathParam, Principal, ResourceAnswer, ResponseHeader,
};
