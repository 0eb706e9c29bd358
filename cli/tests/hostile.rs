//! `acd` against servers that misbehave on purpose: a 429 that never ends,
//! a reset time far in the future, a redirect to another origin and a body
//! far larger than any page. Each must end, with the contract's exit status.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::json;
use std::time::{Duration, Instant};
use support::{acd, read_table_t as read, FaultServer, Reply};

#[test]
fn max_attempts_counts_429s_exactly_n_requests_then_exit_3() {
    for n in [1u32, 3] {
        let server = FaultServer::start(vec![
            Reply::error(429, "Too many requests.").header("Retry-After", "1")
        ]);
        let run = read(&server, &["--max-attempts", &n.to_string()]);
        assert_eq!(run.code, Some(3), "{}", run.stderr);
        // Give a stray extra request the time to arrive before counting.
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(server.count(), n as usize, "{}", run.stderr);
        let last = run.stderr.lines().last().unwrap();
        assert!(
            last.starts_with(&format!("error: gave up after {n} attempt(s)")),
            "{last}"
        );
        assert!(
            last.ends_with("last error: the API answered 429: Too many requests."),
            "{last}"
        );
    }
}

#[test]
fn max_attempts_counts_429s_mixed_with_5xx_and_dropped_connections() {
    let server = FaultServer::start(vec![
        Reply::error(503, "Busy."),
        Reply::Drop,
        Reply::error(429, "Too many requests.").header("Retry-After", "1"),
    ]);
    let run = read(&server, &["--max-attempts", "4"]);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(server.count(), 4, "{}", run.stderr);
    let last = run.stderr.lines().last().unwrap();
    assert!(
        last.starts_with("error: gave up after 4 attempt(s)"),
        "{last}"
    );
    assert!(
        last.ends_with("last error: the API answered 429: Too many requests."),
        "{last}"
    );
}

#[test]
fn a_reset_far_in_the_future_holds_the_pager_for_the_bound_then_asks_again() {
    // Issue 43 item 1: a 200 with `RateLimit-Remaining: 0` and a
    // `RateLimit-Reset` of 999999999 s. The core keeps the wait at its bound
    // (60 s, docs/client-defaults.md) and then asks the server again: the
    // pager does not end after page 1 (it used to exit 3), it reads every
    // page, and the one wait is said once, in the core's sentence (on the
    // virtual clock it takes no real time).
    let spent = |records| {
        Reply::page(records)
            .header("RateLimit-Limit", "1")
            .header("RateLimit-Remaining", "0")
            .header("RateLimit-Reset", "999999999")
    };
    let server = FaultServer::start(vec![
        spent(json!([{"id": 1}])),
        spent(json!([{"id": 2}])),
        spent(json!([])),
    ]);
    let run = read(&server, &["--all", "--page-size", "1"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "{\"id\":1}\n{\"id\":2}\n");
    assert_eq!(server.count(), 3, "{}", run.stderr);
    let waits: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains(": waiting "))
        .collect();
    assert_eq!(
        waits.len(),
        2,
        "one per page after the first: {}",
        run.stderr
    );
    for wait in waits {
        let at = wait.find(": waiting ").unwrap() + ": waiting ".len();
        let seconds: f64 = wait[at..].split(' ').next().unwrap().parse().unwrap();
        assert!((59.0..=62.0).contains(&seconds), "{wait}");
        assert!(wait.contains("for limit user_table_reads"), "{wait}");
    }
}

#[test]
fn a_retry_after_of_a_day_ends_at_once_with_exit_3() {
    let server = FaultServer::start(vec![
        Reply::error(429, "Slow down.").header("Retry-After", "86400")
    ]);
    let started = Instant::now();
    let run = read(&server, &[]);
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert_eq!(server.count(), 1);
}

#[test]
fn a_redirect_is_not_followed_and_the_other_origin_sees_no_credential() {
    let other = FaultServer::start(vec![Reply::page(json!([{"id": 1}]))]);
    let location = format!("{}/api/v1/tables/t", other.url);
    let server = FaultServer::start(vec![Reply::Respond {
        status: 302,
        headers: vec![("Location".into(), location)],
        body: String::new(),
    }]);
    let run = read(&server, &[]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert_eq!(server.count(), 1);
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(other.count(), 0, "the second origin was contacted");
    assert!(run.stderr.contains("302"), "{}", run.stderr);
}

#[test]
fn a_huge_body_ends_with_a_typed_error_without_being_read_whole() {
    // The core's default ClientConfig::max_body_bytes: 32 MiB.
    let bound = "33554432 bytes the client's max body size allows";
    let server = FaultServer::start(vec![Reply::Huge(200 * 1024 * 1024)]);
    let started = Instant::now();
    let run = read(&server, &[]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(started.elapsed() < Duration::from_secs(60));
    assert_eq!(server.count(), 1, "{}", run.stderr);
    let last = run.stderr.lines().last().unwrap();
    assert!(
        last.starts_with("error: the response (status 200) has a body larger than"),
        "{last}"
    );
    assert!(last.contains(bound), "{last}");
    // Announced by Content-Length: not read at all (only what the socket
    // buffers take is written).
    assert!(server.written() < 24 * 1024 * 1024, "{}", server.written());
    // Without a length (chunked), it stops once past the bound.
    let server = FaultServer::start(vec![Reply::HugeChunked(200 * 1024 * 1024)]);
    let run = read(&server, &[]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert_eq!(server.count(), 1, "{}", run.stderr);
    assert!(run.stderr.contains(bound), "{}", run.stderr);
    std::thread::sleep(Duration::from_millis(100));
    assert!(server.written() < 48 * 1024 * 1024, "{}", server.written());
}

#[test]
fn a_trickling_body_fails_with_the_timeout_which_bounds_the_whole_exchange() {
    // Headers at once, then one byte every 250 ms: 60 bytes take 15 s,
    // while no single read waits longer than 250 ms.
    let server = FaultServer::start(vec![Reply::Trickle {
        length: 60,
        every: Duration::from_millis(100),
    }]);
    let started = Instant::now();
    let run = read(&server, &["--timeout", "1", "--max-attempts", "1"]);
    let elapsed = started.elapsed();
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    // 1 s of timeout plus a margin for starting the process.
    assert!(elapsed < Duration::from_secs(4), "took {elapsed:?}");
    assert_eq!(server.count(), 1, "{}", run.stderr);
    let last = run.stderr.lines().last().unwrap();
    assert!(
        last.starts_with("error: gave up after 1 attempt(s)"),
        "{last}"
    );
    assert!(last.contains("timeout"), "{last}");
}

#[test]
fn a_timeout_that_is_not_a_positive_number_is_refused() {
    for bad in ["0", "-1", "nan", "100000"] {
        let flag = format!("--timeout={bad}");
        let run = acd(&["index", &flag]);
        assert_eq!(run.code, Some(2), "{bad}: {}", run.stderr);
        assert!(run.stderr.contains("--timeout"), "{}", run.stderr);
    }
}
