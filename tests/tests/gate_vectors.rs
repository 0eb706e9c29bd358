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

#[test]
fn blessing_refuses_a_step_that_breaks_its_hand_written_members() {
    let text = r#"{
      "format": "acd-gate-vectors/1",
      "description": "a wrong hand-written subset",
      "credentials": [{"secret": "acd_live_demo_ada", "id": "key-ada", "kind": "api_key",
                       "user": "ada", "scopes": [], "expires_at": null}],
      "cases": [{"name": "wrong remaining", "steps": [
        {"at": 1699999980000,
         "request": {"target": "/api/v1/tables/orders?limit=0",
                     "headers": [["X-API-Key", "acd_live_demo_ada"]]},
         "expect_status": 400,
         "expect_headers": [["RateLimit-Remaining", "5"]],
         "expect_no_headers": ["Content-Type"],
         "expect_errors": ["offset"]}]}]
    }"#;
    let mut file: GateVectorFile = serde_json::from_str(text).unwrap();
    let problems = replay(&mut file, true);
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert!(
        problems[0].contains("RateLimit-Remaining is Some(\"4\")"),
        "{}",
        problems[0]
    );
    assert!(problems[1].contains("Content-Type"), "{}", problems[1]);
    assert!(problems[2].contains("[\"limit\"]"), "{}", problems[2]);
}
