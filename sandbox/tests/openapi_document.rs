//! `docs/openapi.json` is the document the sandbox serves with its built-in
//! configuration (base URL `http://127.0.0.1:8080`), so that every change of
//! the API shows up in review as a diff of that file.
//!
//! `ACD_BLESS=1 cargo test -p acd-sandbox --test openapi_document` rewrites
//! it; without `ACD_BLESS` the test fails when the committed copy differs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::Sandbox;
use std::path::PathBuf;

/// The configuration of the committed document: the built-in data, served
/// at the default address.
const DOCUMENT_CONFIG: &str = r#"{"base_url": "http://127.0.0.1:8080"}"#;

fn committed_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/openapi.json")
}

/// The served document, pretty-printed with a final newline.
fn served_document() -> String {
    let sandbox = Sandbox::with_config(DOCUMENT_CONFIG);
    let response = sandbox.get("/openapi.json", &[]);
    assert_eq!(response.status, 200);
    let mut text = serde_json::to_string_pretty(&response.json()).unwrap();
    text.push('\n');
    text
}

#[test]
fn the_committed_document_is_the_one_served() {
    let served = served_document();
    let path = committed_path();
    if std::env::var_os("ACD_BLESS").is_some_and(|value| value == "1") {
        std::fs::write(&path, &served).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == served,
        "docs/openapi.json differs from the document the sandbox serves; review the change, \
         then run `ACD_BLESS=1 cargo test -p acd-sandbox --test openapi_document` to update it"
    );
}
