//! Tests of run lifecycles: the checks and the status at each instant.

use super::*;

fn lifecycle(json: &str) -> Result<(), String> {
    let config: RunsConfig = serde_json::from_str(json).map_err(|error| error.to_string())?;
    config.check().map_err(|error| error.to_string())
}

#[test]
fn the_default_lifecycle_is_valid_and_fails_for_the_failing_agent() {
    let config = RunsConfig::default();
    assert_eq!(config.check(), Ok(()));
    assert_eq!(
        config
            .lifecycle_of(FAILING_AGENT)
            .last()
            .map(|s| s.status.as_str()),
        Some("failed")
    );
    assert_eq!(
        config
            .lifecycle_of("anyone")
            .last()
            .map(|s| s.status.as_str()),
        Some("succeeded")
    );
}

#[test]
fn bad_lifecycles_name_the_json_path() {
    assert_eq!(
        lifecycle(r#"{"lifecycle": []}"#),
        Err(
            "at `runs.lifecycle`: needs at least one step, e.g. [{\"status\": \"succeeded\"}]"
                .into()
        )
    );
    assert_eq!(
        lifecycle(r#"{"lifecycle": [{"status": "queued", "duration_ms": 5}]}"#),
        Err("at `runs.lifecycle[0].status`: the last step must be terminal: one of succeeded, failed, cancelled".into())
    );
    assert_eq!(
        lifecycle(r#"{"lifecycle": [{"status": "queued"}, {"status": "failed"}]}"#),
        Err("at `runs.lifecycle[0].duration_ms`: every step but the last needs a duration of at least 1 ms".into())
    );
    assert_eq!(
        lifecycle(r#"{"agents": {"a": [{"status": "failed", "duration_ms": 1}, {"status": "succeeded"}]}}"#),
        Err("at `runs.agents.a[0].status`: \"failed\" cannot come before the last step; use a non-empty status that is not terminal (succeeded, failed, cancelled)".into())
    );
    assert_eq!(
        lifecycle(r#"{"lifecycle": [{"status": "succeeded", "duration_ms": 1}]}"#),
        Err("at `runs.lifecycle[0].duration_ms`: the last step lasts for ever; leave its duration out".into())
    );
}

fn status_at(runs: &Runs, agent: &str, elapsed: u64) -> serde_json::Value {
    let run = Run {
        agent_id: agent.into(),
        user: "ada".into(),
        created_at_ms: 1_000_000,
    };
    serde_json::from_slice(&runs.render("run_9", &run, 1_000_000 + elapsed)).unwrap()
}

#[test]
fn status_follows_the_lifecycle_from_creation() {
    let runs = Runs::new(RunsConfig::default());
    for (elapsed, status, since) in [
        (0, "queued", 1_000_000),
        (999, "queued", 1_000_000),
        (1_000, "running", 1_001_000),
        (2_999, "running", 1_001_000),
        (3_000, "succeeded", 1_003_000),
        (86_400_000, "succeeded", 1_003_000),
    ] {
        let run = status_at(&runs, "agent-1", elapsed);
        assert_eq!(run["status"], status, "after {elapsed} ms");
        assert_eq!(run["updated_at_ms"], since, "after {elapsed} ms");
        assert_eq!(run["created_at_ms"], 1_000_000);
        assert_eq!(run["id"], "run_9");
        assert_eq!(run["agent_id"], "agent-1");
    }
    assert_eq!(status_at(&runs, FAILING_AGENT, 3_000)["status"], "failed");
}
