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
//! * [`client_types`] / [`client`]: the client role (the driver, build,
//!   interpret, retry planning, throttle, header parsers).
//! * [`testing`]: the simulation's record server, for `acd.testing`.
//! * [`gate`]: the objects: [`GateConfig`], [`Credentials`], [`GateRequest`],
//!   [`Gate`] and [`Admitted`].
//!
//! Objects are `Arc`-shared and thread-safe; time is always a parameter.

uniffi::setup_scaffolding!("acd_ffi");

pub mod client;
pub mod client_types;
pub mod driver;
pub mod error;
pub mod gate;
pub mod gate_types;
pub mod test_server;
pub mod testing;
pub mod time;

pub use error::AcdError;
pub use gate::{Admitted, Credentials, Gate, GateConfig, GateRequest};
pub use gate_types::{
    CredentialKind, CredentialRecord, Decision, GateResponse, Header, Param, ParamProblem,
    ParamValue, PathParam, Principal, ResourceAnswer, ResponseHeader,
};
