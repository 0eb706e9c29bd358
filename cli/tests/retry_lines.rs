//! Each retry the core plans is one stderr line in the core's own sentence
//! (which attempt of how many failed and how, and when the next goes); a
//! retry the command refuses to wait for is not announced.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::json;
use support::{read_table_t as read, FaultServer, Reply};

fn retry_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|line| line.starts_with("listTableRecords: attempt "))
        .collect()
}

#[test]
fn each_planned_retry_is_one_line_in_the_cores_sentence() {
    let server = FaultServer::start(vec![Reply::error(503, "Down for maintenance.")]);
    let run = read(&server, &["--max-attempts", "3"]);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert_eq!(server.count(), 3);
    let lines = retry_lines(&run.stderr);
    // Attempts 1 and 2 are retried; attempt 3 is the last and gives up.
    assert_eq!(lines.len(), 2, "{}", run.stderr);
    assert!(
        lines[0].starts_with(
            "listTableRecords: attempt 1 of 3 was answered with status 503; attempt 2 goes in "
        ),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].starts_with(
            "listTableRecords: attempt 2 of 3 was answered with status 503; attempt 3 goes in "
        ),
        "{}",
        lines[1]
    );
    for line in lines {
        assert!(line.ends_with(" s"), "{line}");
    }
    let last = run.stderr.lines().last().unwrap();
    assert!(
        last.starts_with("error: gave up after 3 attempt(s)"),
        "{last}"
    );
}

#[test]
fn quiet_shows_no_retry_lines() {
    let server = FaultServer::start(vec![Reply::error(503, "Down for maintenance.")]);
    let run = read(&server, &["--max-attempts", "2", "--quiet"]);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert_eq!(retry_lines(&run.stderr), Vec::<&str>::new());
}

#[test]
fn a_retry_past_the_commands_deadline_is_not_announced() {
    // `--deadline 4` is the call's timeout: the pager's whole call. Page 2's
    // 429 asks 1 s (plus up to 1 s of backoff): the retry goes inside it,
    // and is announced. Page 3's 429, 1 to 2 s in, asks 3 s: past the
    // timeout, so the call ends at once with the timeout error, without
    // announcing a retry it will not make.
    let slow_down = |seconds: &str| Reply::error(429, "Slow down.").header("Retry-After", seconds);
    let server = FaultServer::start(vec![
        Reply::page(json!([{"id": 1}])),
        slow_down("1"),
        Reply::page(json!([{"id": 2}])),
        slow_down("3"),
    ]);
    let run = read(&server, &["--all", "--page-size", "1", "--deadline", "4"]);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert_eq!(server.count(), 4);
    let lines = retry_lines(&run.stderr);
    assert_eq!(lines.len(), 1, "{}", run.stderr);
    assert!(
        lines[0].starts_with(
            "listTableRecords: attempt 1 of 5 was answered with status 429; attempt 2 goes in "
        ),
        "{}",
        run.stderr
    );
    let last = run.stderr.lines().last().unwrap();
    assert!(
        last.starts_with("error: the call did not finish within its timeout of 4 s"),
        "{last}"
    );
}
