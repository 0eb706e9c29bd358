//! The layers of acd-core, checked on the source: `client` never imports
//! `gate` (nor the simulation), and `model` imports neither role. The facts
//! both roles share (limits, credential headers, header names, URLs) live in
//! `model`; `sim` is where the two roles meet.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::path::{Path, PathBuf};

fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(sources(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            found.push(path);
        }
    }
    found
}

fn core_src(layer: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../core/src")
        .join(layer)
}

/// Every line under `dir` whose code names one of `forbidden` as a path.
fn imports_in(dir: &Path, forbidden: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for path in sources(dir) {
        let text = std::fs::read_to_string(&path).unwrap();
        for (number, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            for other in forbidden {
                let names = [
                    format!("crate::{other}"),
                    format!("acd_core::{other}"),
                    format!("super::super::{other}"),
                ];
                if names.iter().any(|name| code.contains(name.as_str())) {
                    found.push(format!(
                        "{}:{}: {}",
                        path.display(),
                        number + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    found
}

fn imports(layer: &str, forbidden: &[&str]) -> Vec<String> {
    imports_in(&core_src(layer), forbidden)
}

#[test]
fn the_client_does_not_import_the_gate_or_the_simulation() {
    assert!(
        sources(&core_src("client")).len() > 10,
        "the client's sources are found"
    );
    assert_eq!(imports("client", &["gate", "sim"]), Vec::<String>::new());
}

#[test]
fn the_model_imports_neither_role() {
    assert!(
        sources(&core_src("model")).len() > 5,
        "the model's sources are found"
    );
    assert_eq!(
        imports("model", &["gate", "client", "sim"]),
        Vec::<String>::new()
    );
}

#[test]
fn the_check_sees_an_import_and_ignores_comments() {
    let dir = std::env::temp_dir().join(format!("acd-layering-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("nested")).unwrap();
    std::fs::write(dir.join("ok.rs"), "// crate::gate is only mentioned here\n").unwrap();
    std::fs::write(
        dir.join("nested/bad.rs"),
        "use super::x;\nuse crate::gate::Gate; // a bad import\n",
    )
    .unwrap();
    let found = imports_in(&dir, &["gate", "sim"]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].ends_with("bad.rs:2: use crate::gate::Gate; // a bad import"));
}
