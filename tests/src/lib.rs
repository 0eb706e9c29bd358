//! Shared helpers for the cross-crate tests: loading and replaying the
//! conformance vectors under `tests/vectors/` (see its README for the
//! format), and the client tests' shorthands ([`client_support`]).

pub mod client_support;
pub mod gate_vectors;

use std::path::PathBuf;

/// The `tests/vectors` directory.
pub fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("vectors")
}

/// Whether expected outputs should be rewritten (`ACD_BLESS=1`).
pub fn blessing() -> bool {
    std::env::var_os("ACD_BLESS").is_some_and(|value| value == "1")
}

/// Every vector file whose name starts with `prefix`, sorted by name.
pub fn vector_files(prefix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(vectors_dir())
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|entry| entry.path())
                .filter(|path| {
                    path.extension().is_some_and(|ext| ext == "json")
                        && path
                            .file_name()
                            .and_then(|name| name.to_str())
                            .is_some_and(|name| name.starts_with(prefix))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// The README's Rust example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
