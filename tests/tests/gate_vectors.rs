//! Replays every `tests/vectors/gate-*.json` file through the gate.
//! `ACD_BLESS=1 cargo test -p acd-tests --test gate_vectors` rewrites the
//! generated `expect` members (hand-written `expect_status` is still checked).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use acd_tests::gate_vectors::{replay, GateVectorFile};
use acd_tests::{blessing, vector_files};

#[test]
fn every_gate_vector_matches() {
    let files = vector_files("gate-");
    assert!(
        files.len() >= 5,
        "expected the gate vector files, found {files:?}"
    );
    let mut cases = 0;
    let mut failures = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut file: GateVectorFile = serde_json::from_str(&text)
            .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        assert_eq!(file.format, "acd-gate-vectors/1");
        cases += file.cases.len();
        let problems = replay(&mut file, blessing());
        let clean = problems.is_empty();
        failures.extend(
            problems
                .into_iter()
                .map(|p| format!("{}: {p}", path.display())),
        );
        if blessing() && clean {
            let mut text = serde_json::to_string_pretty(&file).unwrap();
            text.push('\n');
            std::fs::write(&path, text).unwrap();
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(cases >= 60, "only {cases} gate cases");
}
