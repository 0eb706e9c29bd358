//! Shared helpers for the cross-crate tests (vector loading and replay).
