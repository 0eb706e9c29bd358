//! Replays every `tests/vectors/gate-*.json` file through the gate.
//! `ACD_BLESS=1 cargo test -p acd-tests --test gate_vectors` rewrites the
//! generated `expect` members, and refuses while a hand-written member
//! disagrees or a step leaves a header or its body unwritten by hand.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use acd_tests::gate_vectors::{contains, replay, GateVectorFile};
use acd_tests::{blessing, vector_files};
use serde_json::json;

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

/// The request every refusal test below sends: a table read with
/// `limit=0` at the start of a window (a 400 whose `RateLimit-*` are the
/// user's 5-per-60 s limit after one request: 5, 4, 60).
fn one_step(members: &str) -> GateVectorFile {
    let text = format!(
        r#"{{
      "format": "acd-gate-vectors/1",
      "description": "one hand-written step",
      "credentials": [{{"secret": "acd_live_demo_ada", "id": "key-ada", "kind": "api_key",
                       "user": "ada", "scopes": [], "expires_at": null}}],
      "cases": [{{"name": "one", "steps": [
        {{"at": 1699999980000,
         "request": {{"target": "/api/v1/tables/orders?limit=0",
                     "headers": [["X-API-Key", "acd_live_demo_ada"]]}},
         "expect_status": 400,
         {members}}}]}}]
    }}"#
    );
    serde_json::from_str(&text).unwrap()
}

#[test]
fn blessing_refuses_a_step_that_breaks_its_hand_written_members() {
    let mut file = one_step(
        r#""expect_headers": [["RateLimit-Limit", "5"], ["RateLimit-Remaining", "5"],
                              ["RateLimit-Reset", "60"]],
           "expect_no_headers": ["Content-Type"],
           "expect_errors": ["offset"],
           "expect_body": {"status": 404}"#,
    );
    let problems = replay(&mut file, true);
    assert_eq!(problems.len(), 4, "{problems:#?}");
    assert!(
        problems[0].contains("RateLimit-Remaining is Some(\"4\")"),
        "{}",
        problems[0]
    );
    assert!(problems[1].contains("Content-Type"), "{}", problems[1]);
    assert!(problems[2].contains("[\"limit\"]"), "{}", problems[2]);
    assert!(
        problems[3].contains("does not contain expect_body {\"status\":404}"),
        "{}",
        problems[3]
    );
}

#[test]
fn blessing_refuses_a_step_that_leaves_a_header_or_the_body_unwritten() {
    let mut file = one_step(r#""expect_headers": [["RateLimit-Remaining", "4"]]"#);
    let problems = replay(&mut file, true);
    assert_eq!(
        problems,
        [
            "one step 1: header RateLimit-Limit is sent but expect_headers does not give it",
            "one step 1: header RateLimit-Reset is sent but expect_headers does not give it",
            "one step 1: no expect_body: write what the body must contain",
        ],
    );
}

#[test]
fn a_step_written_wholly_by_hand_is_blessed() {
    let mut file = one_step(
        r#""expect_headers": [["RateLimit-Limit", "5"], ["ratelimit-remaining", "4"],
                              ["RateLimit-Reset", "60"]],
           "expect_no_headers": ["Retry-After"],
           "expect_errors": ["limit"],
           "expect_body": {"status": 400, "errors": [{"parameter": "limit"}]}"#,
    );
    assert_eq!(replay(&mut file, true), Vec::<String>::new());
    let expect = file.cases[0].steps[0].expect.as_ref().unwrap();
    assert_eq!(expect.status, 400);
}

#[test]
fn expect_body_is_contained_member_by_member_and_arrays_keep_their_length() {
    let body = json!({"status": 429, "limit": "credential", "errors": [{"parameter": "a", "problem": "p"}]});
    assert!(contains(&json!({"status": 429}), &body));
    assert!(contains(&json!({"errors": [{"parameter": "a"}]}), &body));
    assert!(!contains(&json!({"status": 400}), &body));
    assert!(!contains(&json!({"status": "429"}), &body));
    assert!(!contains(&json!({"errors": []}), &body));
    assert!(!contains(&json!({"retry": 1}), &body));
    assert!(!contains(&json!([1]), &json!([1, 2])));
    assert!(contains(
        &json!([1, {"a": 1}]),
        &json!([1, {"a": 1, "b": 2}])
    ));
}
