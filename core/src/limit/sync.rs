//! The synchronisation primitives of the keyed engine, in one place: std's
//! in every build, loom's when built with `--cfg loom`, so the model-checking
//! test (`tests/limit_loom.rs`) explores the engine's own locking code.

#[cfg(loom)]
pub(crate) use loom::sync::{Mutex, MutexGuard};
#[cfg(not(loom))]
pub(crate) use std::sync::{Mutex, MutexGuard};
