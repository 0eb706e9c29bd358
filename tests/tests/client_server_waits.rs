//! Waits a server supplies, and servers that refuse every request, through
//! the driver in virtual time: a wait longer than
//! `RetryPolicy::max_retry_after_ms` is never planned (the call fails at
//! once naming the server's time, and the throttle keeps no longer block),
//! and `max_attempts` counts every attempt, 429s included.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use acd_core::client::{
    CallId, CallSpec, Client, ClientError, Entropy, Event, GiveUpReason, HttpResponse, Outcome,
    RequestSpec, RetryPolicy, TablePagerOptions,
};
use acd_core::sim::{Dataset, SimClientConfig, SimConfig, TraceKind};
use acd_core::UnixMillis;
use acd_tests::client_support::{self, ada, page_size, pages, table, NOW};

/// The answer's delay after its send.
const LATENCY: u64 = 20;
/// `RetryPolicy::default().max_retry_after_ms`, written out.
const BOUND: u64 = 60_000;
/// The most jitter the driver adds to a throttle wait: the backoff base.
const THROTTLE_JITTER: u64 = 1_000;
/// `NOW` as an HTTP-date.
const NOW_DATE: &str = "Tue, 14 Nov 2023 22:13:20 GMT";

/// How one call went.
#[derive(Debug, Default)]
struct Run {
    /// When each attempt was sent.
    sends: Vec<u64>,
    /// `(when it was announced, until)` of every wait.
    waits: Vec<(u64, u64)>,
    /// Pages received.
    pages: usize,
    /// The call's last event: `Ok(())` for Done, the error for Failed.
    end: Option<Result<(), ClientError>>,
    /// When the call ended.
    ended_at: u64,
}

fn client_with(retry: RetryPolicy) -> Client {
    let mut config = client_support::config();
    config.retry = retry;
    Client::new(config, Entropy::from_seed(0)).unwrap()
}

/// Drives call `id` from `start`, answering attempt `n` (0-based) with
/// `answer(n)` `LATENCY` ms after its send, until the call ends.
fn drive(
    client: &mut Client,
    id: CallId,
    start: u64,
    mut answer: impl FnMut(usize) -> Outcome,
) -> Run {
    let mut run = Run::default();
    let mut now = start;
    for _ in 0..10_000 {
        if let Some(transmit) = client.poll_transmit(now) {
            assert_eq!(transmit.id, id);
            let outcome = answer(run.sends.len());
            run.sends.push(now);
            now += LATENCY;
            client.handle(id, outcome, now).unwrap();
        }
        while let Some((call, event)) = client.poll_event() {
            assert_eq!(call, id);
            match event {
                Event::Waiting { until, .. } => run.waits.push((now, until.as_millis())),
                Event::Page { .. } => run.pages += 1,
                Event::Done => run.end = Some(Ok(())),
                Event::Failed(error) => run.end = Some(Err(error)),
                _ => {}
            }
        }
        if run.end.is_some() {
            run.ended_at = now;
            assert!(client.is_idle(), "nothing after the final event");
            return run;
        }
        let next = client
            .poll_timeout()
            .expect("a live call that awaits nothing waits");
        now = now.max(next.as_millis());
    }
    panic!("the call did not end: {run:?}")
}

fn response(status: u16, body: &str, headers: &[(&str, &str)]) -> Outcome {
    let mut response = HttpResponse::new(status, body);
    for (name, value) in headers {
        response = response.with_header(*name, *value);
    }
    Outcome::Response(response)
}

fn refused(headers: &[(&str, &str)]) -> Outcome {
    response(429, r#"{"detail":"slow down","status":429}"#, headers)
}

fn ok_empty() -> Outcome {
    response(200, r#"{"data":[]}"#, &[])
}

fn assert_waits_within(run: &Run, slack: u64) {
    for &(announced, until) in &run.waits {
        assert!(
            until <= announced + BOUND + slack,
            "a wait until {until} announced at {announced} is longer than the bound: {run:?}"
        );
    }
}

#[test]
fn a_pager_told_remaining_0_reset_999999999_waits_the_bound_then_asks_again() {
    // Issue 43 item 1: a 200 saying `RateLimit-Remaining: 0` with a reset
    // far past the bound is advice, kept at the bound: the next page waits
    // 60 s (plus the throttle's jitter) and is then sent, never refused
    // without asking.
    let mut client = client_with(RetryPolicy::default());
    let options = TablePagerOptions {
        page_size: 1,
        ..TablePagerOptions::default()
    };
    let id = client
        .start(CallSpec::table_pages("orders", options))
        .unwrap();
    let headers = [
        ("RateLimit-Limit", "5"),
        ("RateLimit-Remaining", "0"),
        ("RateLimit-Reset", "999999999"),
    ];
    let run = drive(&mut client, id, NOW, |n| match n {
        0 => response(200, r#"{"data":[{"id":1}]}"#, &headers),
        _ => ok_empty(),
    });
    assert_eq!(run.end, Some(Ok(())), "{run:?}");
    assert_eq!(run.sends.len(), 2, "{run:?}");
    let second = run.sends[1];
    let answered = NOW + LATENCY;
    assert!(
        (answered + BOUND..=answered + BOUND + THROTTLE_JITTER).contains(&second),
        "the second page went at {second}: {run:?}"
    );
    // The empty answer ends the pager without an empty page.
    assert_eq!(run.pages, 1, "{run:?}");
    assert_waits_within(&run, THROTTLE_JITTER);
}

/// A header set, named.
type Headers = (&'static str, Vec<(&'static str, &'static str)>);

/// Header sets of a 429 received at `NOW + LATENCY` whose server time is a
/// day after that.
fn day_long_refusals() -> Vec<Headers> {
    vec![
        (
            "Retry-After in seconds",
            vec![
                ("RateLimit-Limit", "5"),
                ("RateLimit-Remaining", "0"),
                ("RateLimit-Reset", "86400"),
                ("Retry-After", "86400"),
            ],
        ),
        (
            "x-ratelimit-reset a day after Date",
            vec![
                ("Date", NOW_DATE),
                ("x-ratelimit-limit", "5"),
                ("x-ratelimit-remaining", "0"),
                ("x-ratelimit-reset", "1700086400"),
            ],
        ),
        (
            "structured t=",
            vec![
                ("RateLimit-Policy", r#""user_table_reads";q=5;w=60"#),
                ("RateLimit", r#""user_table_reads";r=0;t=86400"#),
            ],
        ),
        (
            "an HTTP-date Retry-After against a Date an hour behind",
            vec![
                ("Date", "Tue, 14 Nov 2023 21:13:20 GMT"),
                ("Retry-After", "Wed, 15 Nov 2023 21:13:20 GMT"),
            ],
        ),
    ]
}

#[test]
fn a_day_long_server_time_fails_the_call_at_once_and_a_new_call_does_not_wait_a_day() {
    for (what, headers) in day_long_refusals() {
        let mut client = client_with(RetryPolicy::default());
        let id = client.start(RequestSpec::list_table_records("t")).unwrap();
        let run = drive(&mut client, id, NOW, |_| refused(&headers));
        assert_eq!(run.sends, [NOW], "{what}: one attempt, then at once");
        let Some(Err(ClientError::GaveUp {
            reason,
            attempts: 1,
            last,
        })) = run.end
        else {
            panic!("{what}: a give-up after one attempt, got {run:?}")
        };
        assert_eq!(
            reason,
            GiveUpReason::RetryAfterTooLong {
                retry_at: UnixMillis::new(NOW + LATENCY + 86_400_000),
                wait_ms: 86_400_000,
                max_wait_ms: BOUND,
            },
            "{what}"
        );
        assert!(
            matches!(*last, ClientError::Api { status: 429, .. }),
            "{what}"
        );

        // A new call within the bound would wait for the server's day: it
        // fails at once, naming that time, and sends nothing.
        let failed_at = run.ended_at;
        let id = client.start(RequestSpec::list_table_records("t")).unwrap();
        let soon = drive(&mut client, id, failed_at + 1_000, |_| ok_empty());
        assert!(soon.sends.is_empty(), "{what}: {soon:?}");
        assert!(
            matches!(
                soon.end,
                Some(Err(ClientError::RateLimitedTooLong {
                    retry_at,
                    max_wait_ms: BOUND,
                    ..
                })) if retry_at == UnixMillis::new(NOW + LATENCY + 86_400_000)
            ),
            "{what}: {soon:?}"
        );

        // The model keeps no block past the bound: a call started once the
        // bound has passed goes out at once.
        let id = client.start(RequestSpec::list_table_records("t")).unwrap();
        let later = failed_at + BOUND;
        let next = drive(&mut client, id, later, |_| ok_empty());
        assert_eq!(next.end, Some(Ok(())), "{what}");
        assert_eq!(next.sends, [later], "{what}");
    }
}

#[test]
fn max_attempts_3_against_a_server_that_always_refuses_sends_exactly_3() {
    let mut client = client_with(RetryPolicy {
        max_attempts: 3,
        ..RetryPolicy::default()
    });
    let id = client.start(RequestSpec::list_table_records("t")).unwrap();
    let run = drive(&mut client, id, NOW, |_| refused(&[("Retry-After", "1")]));
    assert_eq!(run.sends.len(), 3, "{run:?}");
    let Some(Err(ClientError::GaveUp {
        reason,
        attempts,
        last,
    })) = run.end
    else {
        panic!("a give-up, got {run:?}")
    };
    assert_eq!(
        (reason, attempts),
        (GiveUpReason::MaxAttempts { attempts: 3 }, 3)
    );
    assert!(matches!(*last, ClientError::Api { status: 429, .. }));
}

#[test]
fn the_default_policy_against_a_server_that_always_refuses_ends_within_15_s() {
    for retry_after in ["1", "0"] {
        let mut client = client_with(RetryPolicy::default());
        let id = client.start(RequestSpec::list_table_records("t")).unwrap();
        let run = drive(&mut client, id, NOW, |_| {
            refused(&[("Retry-After", retry_after)])
        });
        assert_eq!(run.sends.len(), 5, "{run:?}");
        assert!(
            matches!(
                &run.end,
                Some(Err(ClientError::GaveUp {
                    reason: GiveUpReason::MaxAttempts { attempts: 5 },
                    ..
                }))
            ),
            "{run:?}"
        );
        println!(
            "Retry-After {retry_after} forever, default policy: {} requests, ended {} ms after the first",
            run.sends.len(),
            run.ended_at - NOW
        );
        assert!(run.ended_at <= NOW + 15_000, "{run:?}");
    }
}

#[test]
fn a_persistent_429_never_waits_for_the_clients_own_window_on_top() {
    // Twelve attempts at a limit the client models as 5 per 60 s: the
    // server's Retry-After (1 s) decides, not the model's window.
    let mut client = client_with(RetryPolicy {
        max_attempts: 12,
        deadline_ms: 600_000,
        ..RetryPolicy::default()
    });
    let id = client.start(RequestSpec::list_table_records("t")).unwrap();
    let run = drive(&mut client, id, NOW, |_| refused(&[("Retry-After", "1")]));
    assert_eq!(run.sends.len(), 12, "{run:?}");
    for pair in run.sends.windows(2) {
        // The answer, Retry-After, and the backoff of the first retry
        // (up to the base, 1 s) at most.
        assert!(pair[1] - pair[0] <= LATENCY + 1_000 + 1_000, "{run:?}");
    }
}

#[test]
fn no_attempt_starts_after_the_deadline_when_every_attempt_is_refused() {
    let mut client = client_with(RetryPolicy {
        max_attempts: 10,
        deadline_ms: 5_000,
        ..RetryPolicy::default()
    });
    let id = client.start(RequestSpec::list_table_records("t")).unwrap();
    let run = drive(&mut client, id, NOW, |_| refused(&[("Retry-After", "1")]));
    assert!(run.sends.len() >= 2, "{run:?}");
    assert!(run.sends.iter().all(|&at| at <= NOW + 5_000), "{run:?}");
    let Some(Err(ClientError::GaveUp {
        reason: GiveUpReason::Deadline { deadline_at, .. },
        ..
    })) = run.end
    else {
        panic!("a deadline give-up, got {run:?}")
    };
    assert_eq!(deadline_at, UnixMillis::new(NOW + 5_000));
}

#[test]
fn a_pager_spanning_many_windows_reads_every_row_with_a_single_attempt_per_page() {
    // 1,000 rows in pages of 50: 21 requests at 5 per minute. The waits
    // come from the client's own model: they are not failures.
    let mut reader = SimClientConfig::new("reader", ada()).task(table("orders", page_size(50)));
    reader.config.retry = RetryPolicy {
        max_attempts: 1,
        ..RetryPolicy::default()
    };
    let config = SimConfig {
        dataset: Dataset::default().with_table("orders", 1_000),
        naive_baseline: false,
        ..SimConfig::default()
    }
    .client(reader);
    let report = client_support::run("many windows", config).unwrap();
    assert_eq!(report.violations, Vec::<String>::new());
    assert!(report.completed);
    assert_eq!((report.requests_sent, report.responses_429), (21, 0));
    // 20 full pages; the 21st answer is empty and ends the pager without
    // a page of its own.
    assert_eq!(pages(&report, 0).len(), 20);
    assert!(!report
        .trace
        .iter()
        .any(|event| matches!(event.what, TraceKind::Failed { .. })));
}

#[test]
fn a_limit_of_0_reported_by_a_server_does_not_hold_a_call_forever() {
    // Found by the client_driver fuzz target: a model of a limit of 0 used
    // to look again a window later, forever, without sending. It now lets
    // one probe through per window, so the attempts (or the server) decide.
    let headers = [
        ("RateLimit-Limit", "0"),
        ("RateLimit-Remaining", "0"),
        ("RateLimit-Reset", "2"),
    ];
    let mut client = client_with(RetryPolicy::default());
    let id = client.start(RequestSpec::list_table_records("t")).unwrap();
    let run = drive(&mut client, id, NOW, |_| refused(&headers));
    assert_eq!(run.sends.len(), 5, "{run:?}");
    assert!(
        matches!(
            &run.end,
            Some(Err(ClientError::GaveUp {
                reason: GiveUpReason::MaxAttempts { attempts: 5 },
                ..
            }))
        ),
        "{run:?}"
    );

    // A pager whose pages all report a limit of 0 still reads every page.
    let mut client = client_with(RetryPolicy::default());
    let options = TablePagerOptions {
        page_size: 1,
        ..TablePagerOptions::default()
    };
    let id = client
        .start(CallSpec::table_pages("orders", options))
        .unwrap();
    let run = drive(&mut client, id, NOW, |n| {
        let body = if n < 2 {
            r#"{"data":[{"id":1}]}"#
        } else {
            r#"{"data":[]}"#
        };
        response(200, body, &headers)
    });
    assert_eq!((&run.end, run.sends.len()), (&Some(Ok(())), 3));
    assert_waits_within(&run, THROTTLE_JITTER);
}
