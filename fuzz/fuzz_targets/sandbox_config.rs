//! The sandbox's `--config` file on arbitrary bytes: parsed, then (when it
//! parses) checked and built into a gate, the fault rules and the OpenAPI
//! document, as the sandbox does at start. Every refusal names a JSON path
//! and a problem.
#![no_main]

use acd_sandbox::config::{self, ConfigError};
use libfuzzer_sys::fuzz_target;
use std::net::SocketAddr;

fn check(error: &ConfigError) {
    assert!(!error.path.is_empty(), "no path: {error:?}");
    assert!(!error.problem.is_empty(), "no problem: {error:?}");
}

fuzz_target!(|bytes: &[u8]| {
    let file = match config::parse(bytes) {
        Ok(file) => file,
        Err(error) => return check(&error),
    };
    let limiter = acd_core::limit::in_memory(
        acd_core::limit::LimitAlgorithm::FixedWindow,
        acd_core::limit::LimiterConfig::default(),
    );
    match file.build_with(SocketAddr::from(([127, 0, 0, 1], 8080)), limiter) {
        Ok(built) => {
            let document = acd_sandbox::openapi_doc::value(&built);
            assert!(document.get("paths").is_some_and(|paths| paths.is_object()));
            if let Err(error) = acd_sandbox::faults::Faults::new(&built.faults, &document) {
                check(&error);
            }
        }
        Err(error) => check(&error),
    }
});
