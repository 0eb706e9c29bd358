//! The synchronisation primitives of the keyed engine, in one place:
//! parking_lot's mutex in every build (no poisoning: a shard's state is
//! plain data that every step leaves consistent), loom's when built with
//! `--cfg loom`, so the model-checking test (`tests/limit_loom.rs`)
//! explores the engine's own locking code.

#[cfg(loom)]
pub(crate) use loom::sync::{Mutex, MutexGuard};
#[cfg(not(loom))]
pub(crate) use parking_lot::{Mutex, MutexGuard};

/// Locks `mutex`. A loom mutex poisoned by a panicking thread is taken
/// as it is, like parking_lot's, which has no poisoning.
#[inline]
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    #[cfg(loom)]
    {
        mutex
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
    #[cfg(not(loom))]
    {
        mutex.lock()
    }
}
