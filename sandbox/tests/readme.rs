//! The top-level README's sandbox examples run as written: its Python
//! client test, with `acd-sandbox` on `PATH` (as `cargo install --path
//! sandbox` puts it), passes; and the README documents that install step.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_acd-sandbox");

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md")).unwrap()
}

/// The fenced blocks of `language`.
fn blocks(text: &str, language: &str) -> Vec<String> {
    let open = format!("```{language}\n");
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(&open) {
        let body = &rest[start + open.len()..];
        let end = body.find("```").unwrap();
        blocks.push(body[..end].to_owned());
        rest = &body[end..];
    }
    blocks
}

#[test]
fn the_readme_documents_cargo_install_beside_cargo_run() {
    let commands = blocks(&readme(), "sh").join("\n");
    for line in [
        "cargo run --release -p acd-sandbox",
        "cargo install --path sandbox",
        "cargo install --path cli",
    ] {
        assert!(commands.contains(line), "the README has no `{line}`");
    }
}

#[test]
fn the_readme_python_client_test_passes_with_the_sandbox_on_path() {
    let tests: Vec<String> = blocks(&readme(), "python")
        .into_iter()
        .filter(|block| block.contains("\"acd-sandbox\"") && block.contains("def test_"))
        .collect();
    assert_eq!(tests.len(), 1, "one Python test block starts acd-sandbox");
    let block = &tests[0];
    let names: Vec<&str> = block
        .lines()
        .filter_map(|line| line.strip_prefix("def ")?.split('(').next())
        .filter(|name| name.starts_with("test_"))
        .collect();
    assert!(!names.is_empty());
    // Run the block as written, then each of its tests (as pytest would).
    let mut program = block.clone();
    for name in &names {
        program.push_str(&format!("\n{name}()\nprint('passed: {name}')\n"));
    }
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let out = Command::new("python3")
        .args(["-c", &program])
        .env("PATH", path)
        .output()
        .expect("python3 runs the README's test (a stock Python 3 is enough)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the README's Python test failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for name in names {
        assert!(stdout.contains(&format!("passed: {name}")), "{stdout}");
    }
}
