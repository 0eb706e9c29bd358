//! `acd` against a scripted server that injects faults: 429 with
//! Retry-After, 503 storms, dropped connections, a skewed `Date` with the
//! legacy rate-limit headers, Deprecation/Sunset, a 200 that is not JSON,
//! and Ctrl-C in the middle of a wait.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::json;
use std::time::{Duration, Instant};
use support::{acd, read_table_t as read, FaultServer, Reply, ADA};

#[test]
fn retry_after_on_429_is_waited_then_the_request_succeeds() {
    let server = FaultServer::start(vec![
        Reply::error(429, "Too many requests.").header("Retry-After", "1"),
        Reply::page(json!([{"id": 1}])),
    ]);
    let run = read(&server, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "{\"id\":1}\n");
    assert_eq!(server.count(), 2);
    // The retry is said once, in the core's sentence (its wait is not said
    // again), and Retry-After is authoritative: it goes no sooner.
    let notices: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("listTableRecords: "))
        .collect();
    assert_eq!(notices.len(), 1, "{}", run.stderr);
    assert!(notices[0].contains("status 429"), "{}", notices[0]);
    let wait = seconds_after(notices[0], "goes in ");
    assert!(wait >= 1.0, "{}", notices[0]);
}

/// The seconds written after `marker` in `line` (`... goes in 1.5 s`).
fn seconds_after(line: &str, marker: &str) -> f64 {
    let at = line.find(marker).unwrap() + marker.len();
    line[at..].split(' ').next().unwrap().parse().unwrap()
}

#[test]
fn a_503_storm_gives_up_after_max_attempts_with_exit_3() {
    let server = FaultServer::start(vec![Reply::error(503, "Down for maintenance.")]);
    let run = read(&server, &["--max-attempts", "3"]);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert_eq!(server.count(), 3);
    assert!(run.stdout.is_empty());
    let last = run.stderr.lines().last().unwrap();
    assert!(
        last.starts_with("error: gave up after 3 attempt(s)"),
        "{last}"
    );
    assert!(
        last.ends_with("last error: the API answered 503: Down for maintenance."),
        "{last}"
    );
}

#[test]
fn a_dropped_connection_is_retried_for_a_get() {
    let server = FaultServer::start(vec![Reply::Drop, Reply::page(json!([{"id": 7}]))]);
    let run = read(&server, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "{\"id\":7}\n");
    assert_eq!(server.count(), 2);
}

#[test]
fn connections_that_keep_dropping_give_up_naming_the_failure() {
    let server = FaultServer::start(vec![Reply::Drop]);
    let run = read(&server, &["--max-attempts", "2"]);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert_eq!(server.count(), 2);
    assert!(run.stderr.contains("connection broke"), "{}", run.stderr);
}

#[test]
fn a_refused_connection_gives_up_with_exit_3() {
    // Bind then drop: nothing listens on the port any more.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let run = acd(&["index", "--base-url", &url, "--max-attempts", "2"]);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "the request to {url} failed in transport: could not connect (connection refused)"
        )),
        "{}",
        run.stderr
    );
}

#[test]
fn other_4xx_are_not_retried_and_exit_1() {
    let server = FaultServer::start(vec![Reply::error(400, "limit must be an integer.")]);
    let run = read(&server, &[]);
    assert_eq!(run.code, Some(1));
    assert_eq!(server.count(), 1);
    assert_eq!(
        run.stderr.trim_end(),
        "error: the API answered 400: limit must be an integer."
    );
}

#[test]
fn a_200_whose_body_is_not_json_exits_1_with_empty_stdout() {
    let server = FaultServer::start(vec![Reply::Respond {
        status: 200,
        headers: vec![],
        body: "<html>oops</html>".into(),
    }]);
    let run = read(&server, &[]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stdout.is_empty());
    assert!(
        run.stderr.contains("broke the API contract"),
        "{}",
        run.stderr
    );
    assert_eq!(server.count(), 1);
}

#[test]
fn legacy_reset_is_read_against_the_response_date_not_the_local_clock() {
    // The server's clock is an hour behind. Its legacy reset is one second
    // after its own Date: read against the local clock that would be in the
    // past (no wait at all) — read against Date it is a one-second wait.
    let server_now = support::unix_now() - 3600;
    let date = httpdate_of(server_now);
    let reset = (server_now + 1).to_string();
    let page = |records| {
        Reply::page(records)
            .header("Date", &date)
            .header("x-ratelimit-limit", "1")
            .header("x-ratelimit-remaining", "0")
            .header("x-ratelimit-reset", &reset)
    };
    let server = FaultServer::start(vec![page(json!([{"id": 1}])), page(json!([]))]);
    let run = read(&server, &["--all", "--page-size", "1", "--deadline", "20"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(server.count(), 2);
    let wait = run
        .stderr
        .lines()
        .find(|l| l.contains(": waiting "))
        .unwrap_or_else(|| panic!("no wait: {}", run.stderr));
    let seconds = seconds_after(wait, ": waiting ");
    // One second after Date, whose resolution is a whole second (up to one
    // more), plus at most the backoff base (1 s) of jitter; against the
    // local clock there would be no wait at all.
    assert!((0.5..=3.0).contains(&seconds), "{wait}");
}

fn httpdate_of(unix_seconds: u64) -> String {
    httpdate::fmt_http_date(std::time::UNIX_EPOCH + Duration::from_secs(unix_seconds))
}

#[test]
fn deprecation_and_sunset_warn_once_per_operation_not_per_page() {
    let page = |records| {
        Reply::page(records)
            .header("Deprecation", "@1735689600")
            .header("Sunset", "Wed, 31 Dec 2031 23:59:59 GMT")
    };
    let server = FaultServer::start(vec![
        page(json!([{"id": 1}])),
        page(json!([{"id": 2}])),
        page(json!([])),
    ]);
    let run = read(&server, &["--all", "--page-size", "1"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(server.count(), 3);
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", run.stderr);
    assert!(warnings[0].contains("listTableRecords"), "{}", warnings[0]);
    assert!(
        warnings[0].contains("stops working on 2031-12-31"),
        "{}",
        warnings[0]
    );
}

#[test]
fn a_retry_after_past_the_deadline_gives_up_at_once() {
    let server = FaultServer::start(vec![
        Reply::error(429, "Slow down.").header("Retry-After", "30")
    ]);
    let started = Instant::now();
    let run = read(&server, &["--deadline", "5"]);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert_eq!(server.count(), 1);
    assert!(
        started.elapsed() < Duration::from_secs(25),
        "it slept the wait"
    );
    // The wait would pass the call's timeout: it ends at once, unsent.
    assert!(
        run.stderr
            .contains("error: the call did not finish within its timeout of 5 s"),
        "{}",
        run.stderr
    );
}

#[test]
fn ctrl_c_in_the_middle_of_a_wait_exits_130() {
    let server = FaultServer::start(vec![
        Reply::error(429, "Slow down.").header("Retry-After", "30")
    ]);
    let child = support::spawn(&[
        "tables",
        "read",
        "t",
        "--base-url",
        &server.url,
        "--api-key",
        ADA,
        "--deadline",
        "120",
    ]);
    server.wait_for(1);
    // In the wait or still reading the answer: either way it is interrupted.
    std::thread::sleep(Duration::from_millis(50));
    let interrupted_at = Instant::now();
    support::interrupt(&child);
    let run = support::collect(child);
    assert_eq!(run.code, Some(130), "{}", run.stderr);
    assert!(interrupted_at.elapsed() < Duration::from_secs(10));
    assert!(run.stderr.contains("interrupted"), "{}", run.stderr);
}

#[test]
fn ctrl_c_while_a_request_is_in_flight_exits_130() {
    let server = FaultServer::start(vec![Reply::Hang(Duration::from_secs(30))]);
    let child = support::spawn(&["index", "--base-url", &server.url]);
    server.wait_for(1);
    let interrupted_at = Instant::now();
    support::interrupt(&child);
    let run = support::collect(child);
    assert_eq!(run.code, Some(130), "{}", run.stderr);
    assert!(interrupted_at.elapsed() < Duration::from_secs(10));
    assert!(run.stdout.is_empty());
}

#[test]
fn credentials_are_sent_as_their_kind_says_and_never_shown() {
    let key = "acd_live_VERYSECRETKEY0123456789abcd";
    let server = FaultServer::start(vec![Reply::error(401, "The API key is not valid.")]);
    let run = acd(&[
        "-v",
        "tables",
        "read",
        "t",
        "--base-url",
        &server.url,
        "--api-key",
        key,
    ]);
    assert_eq!(run.code, Some(1));
    assert_eq!(server.seen()[0].header("x-api-key"), Some(key));
    let token = "acd_oat_VERYSECRETTOKEN0123456789ab";
    let bearer = acd(&[
        "-v",
        "tables",
        "read",
        "t",
        "--base-url",
        &server.url,
        "--token",
        token,
    ]);
    let expected = format!("Bearer {token}");
    assert_eq!(
        server.seen()[1].header("authorization"),
        Some(expected.as_str())
    );
    let both = acd(&[
        "tables",
        "read",
        "t",
        "--base-url",
        &server.url,
        "--api-key",
        key,
        "--token",
        token,
    ]);
    assert_eq!(both.code, Some(2));
    assert_eq!(server.count(), 2, "nothing is sent for a bad command line");
    for run in [&run, &bearer, &both] {
        for secret in [key, token] {
            // Not even a long fragment of it.
            for window in secret.as_bytes().windows(12) {
                let fragment = std::str::from_utf8(window).unwrap();
                assert!(!run.stdout.contains(fragment), "{}", run.stdout);
                assert!(!run.stderr.contains(fragment), "{}", run.stderr);
            }
        }
    }
}

#[test]
fn runs_wait_prints_each_status_change_and_the_final_run() {
    let run_in = |status: &str| Reply::json(200, json!({"data": {"id": "r1", "status": status}}));
    let server = FaultServer::start(vec![
        run_in("queued"),
        run_in("running"),
        run_in("running"),
        Reply::error(503, "Busy."),
        run_in("running"),
        run_in("succeeded"),
    ]);
    let run = acd(&[
        "runs",
        "wait",
        "r1",
        "--interval",
        "0.05",
        "--base-url",
        &server.url,
        "--api-key",
        ADA,
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(server.count(), 6);
    assert!(server
        .seen()
        .iter()
        .all(|seen| seen.target() == "/api/v1/runs/r1"));
    let statuses: Vec<&str> = run
        .stderr
        .lines()
        .filter(|line| line.starts_with("run status: "))
        .collect();
    assert_eq!(
        statuses,
        [
            "run status: queued",
            "run status: running",
            "run status: succeeded"
        ]
    );
    assert_eq!(run.stdout, "{\"id\":\"r1\",\"status\":\"succeeded\"}\n");
}

#[test]
fn a_quota_wait_past_the_deadline_is_not_slept() {
    // The headers say the window is spent for 30 s; the command has 2 s.
    let server = FaultServer::start(vec![Reply::page(json!([{"id": 1}]))
        .header("RateLimit-Limit", "1")
        .header("RateLimit-Remaining", "0")
        .header("RateLimit-Reset", "30")]);
    let started = Instant::now();
    let run = read(&server, &["--all", "--page-size", "1", "--deadline", "2"]);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert_eq!(server.count(), 1, "the second page is never sent");
    assert_eq!(run.stdout, "{\"id\":1}\n", "the first page is kept");
    assert!(
        started.elapsed() < Duration::from_secs(25),
        "it slept the wait"
    );
    let last = run.stderr.lines().last().unwrap();
    assert_eq!(
        last,
        "error: the call did not finish within its timeout of 2 s from its first send (waits \
         and retries included); raise the call's timeout to wait longer"
    );
    assert!(!run.stderr.contains(": waiting "), "{}", run.stderr);
}
