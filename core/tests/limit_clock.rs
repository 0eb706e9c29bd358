//! One wrong clock reading costs at most one window (issue 39, item 4).
//!
//! A check stamped a day ahead (a manual clock set wrong, a host clock
//! that jumped) used to move the shard's clock and the key's window a day
//! ahead, so every later check at the right time was refused for a day. A
//! stored state more than one window ahead of `now` is now discarded, and a
//! shard's clock that is more than one window ahead of `now` is set back to
//! it. Going back by at most one window still counts into the stored window
//! (nothing is admitted twice).
//!
//! Times: `T` is 30 s into a minute, so with 60 s windows its window ends at
//! `T + 30 s`; `DAY` is a whole number of minutes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use acd_core::gate::demo::ADA_KEY;
use acd_core::gate::{Decision, Gate, GateConfig, GateRequest, GateResponse, ResourceAnswer};
use acd_core::limit::{
    Algorithm, FixedWindow, Gcra, InMemoryLimiter, KeyedLimiter, LimitCheck, LimitStatus,
    LimiterConfig, Quota, RateLimiter, StackDecision, Verdict,
};
use acd_core::UnixMillis;

const T: u64 = 1_700_000_010_000;
const T_WINDOW_END: u64 = 1_700_000_040_000;
const DAY: u64 = 86_400_000;

fn at(ms: u64) -> UnixMillis {
    UnixMillis::new(ms)
}

fn admitted(remaining: u32, reset_at: u64, now: u64) -> Verdict {
    Verdict {
        admitted: true,
        remaining,
        reset_at: at(reset_at),
        retry_at: at(now),
    }
}

#[test]
fn fixed_window_a_day_ahead_then_the_present_is_admitted_at_once() {
    let limiter: KeyedLimiter<u64, FixedWindow> =
        KeyedLimiter::new(LimiterConfig::with_max_keys(16));
    let rule = FixedWindow::rule(Quota::per_seconds(2, 60));
    // The wrong reading: admitted in the window a day ahead.
    assert_eq!(
        limiter.check(&1, &rule, at(T + DAY)),
        admitted(1, T_WINDOW_END + DAY, T + DAY)
    );
    // Back at the right time: the day-ahead window is discarded, the present
    // window starts empty.
    assert_eq!(
        limiter.check(&1, &rule, at(T)),
        admitted(1, T_WINDOW_END, T)
    );
    assert_eq!(
        limiter.check(&1, &rule, at(T + 1)),
        admitted(0, T_WINDOW_END, T + 1)
    );
    // The limit holds in the present window; Retry-After is 30 s, not a day.
    assert_eq!(
        limiter.check(&1, &rule, at(T + 2)),
        Verdict::refused(at(T_WINDOW_END), at(T_WINDOW_END))
    );
    assert_eq!(
        limiter.check(&1, &rule, at(T_WINDOW_END)),
        admitted(1, T_WINDOW_END + 60_000, T_WINDOW_END)
    );
}

#[test]
fn gcra_a_day_ahead_then_the_present_is_admitted_at_once() {
    // 2 per 60 s: burst 2, one back every 30 s.
    let limiter: KeyedLimiter<u64, Gcra> = KeyedLimiter::new(LimiterConfig::with_max_keys(16));
    let rule = Gcra::rule(Quota::per_seconds(2, 60));
    assert_eq!(
        limiter.check(&1, &rule, at(T + DAY)),
        admitted(1, T + DAY + 30_000, T + DAY)
    );
    // The theoretical arrival time a day ahead is discarded.
    assert_eq!(limiter.check(&1, &rule, at(T)), admitted(1, T + 30_000, T));
    assert_eq!(limiter.check(&1, &rule, at(T)), admitted(0, T + 60_000, T));
    // Full again at T + 60 s; the next request fits at T + 30 s.
    assert_eq!(
        limiter.check(&1, &rule, at(T)),
        Verdict::refused(at(T + 60_000), at(T + 30_000))
    );
}

#[test]
fn fixed_window_one_window_ahead_is_kept_so_nothing_is_admitted_twice() {
    // Going back by at most one window counts into the stored window.
    let limiter: KeyedLimiter<u64, FixedWindow> =
        KeyedLimiter::new(LimiterConfig::with_max_keys(16));
    let rule = FixedWindow::rule(Quota::per_seconds(2, 60));
    let next = T + 60_000; // 30 s into the next window
    assert!(limiter.check(&1, &rule, at(next)).admitted);
    assert!(limiter.check(&1, &rule, at(next)).admitted);
    // 60 s back: the next window's two requests still count.
    let next_end = T_WINDOW_END + 60_000;
    assert_eq!(
        limiter.check(&1, &rule, at(T)),
        Verdict::refused(at(next_end), at(next_end))
    );
}

#[test]
fn the_stacked_path_discards_a_day_ahead_window_too() {
    let limiter = InMemoryLimiter::<FixedWindow>::with_config(LimiterConfig::with_max_keys(64));
    let checks = [
        LimitCheck {
            name: "credential",
            quota: Quota::per_seconds(2, 60),
            subject: "key-ada",
        },
        LimitCheck {
            name: "user",
            quota: Quota::per_seconds(3, 60),
            subject: "ada",
        },
    ];
    let status = |index, limit, remaining, reset_at| LimitStatus {
        index,
        limit,
        remaining,
        reset_at: at(reset_at),
    };
    assert_eq!(
        limiter.acquire(&checks, at(T + DAY)),
        StackDecision::Admitted {
            tightest: Some(status(0, 2, 1, T_WINDOW_END + DAY))
        }
    );
    assert_eq!(
        limiter.acquire(&checks, at(T)),
        StackDecision::Admitted {
            tightest: Some(status(0, 2, 1, T_WINDOW_END))
        }
    );
    assert_eq!(
        limiter.acquire(&checks, at(T)),
        StackDecision::Admitted {
            tightest: Some(status(0, 2, 0, T_WINDOW_END))
        }
    );
    assert_eq!(
        limiter.acquire(&checks, at(T)),
        StackDecision::Refused {
            refusing: status(0, 2, 0, T_WINDOW_END),
            retry_at: at(T_WINDOW_END),
        }
    );
}

fn table_read(gate: &Gate, now: u64) -> GateResponse {
    let request =
        GateRequest::get("/api/v1/tables/orders", "203.0.113.7").with_header("X-API-Key", ADA_KEY);
    match gate.decide(&request, now) {
        Decision::Reply(response) => response,
        Decision::FetchResource(admitted) => {
            admitted.respond(ResourceAnswer::Found(b"[]".to_vec()))
        }
    }
}

fn header<'a>(response: &'a GateResponse, name: &str) -> &'a str {
    response.header(name).unwrap_or("")
}

#[test]
fn the_gate_refuses_for_at_most_one_window_after_a_day_ahead_reading() {
    // Table reads: 5 per 60 s per user. NOW is 40 s into a minute.
    const NOW: u64 = 1_700_000_080_000;
    let gate = Gate::demo(GateConfig::default()).unwrap();
    let ahead = table_read(&gate, NOW + DAY);
    assert_eq!(ahead.status, 200);
    assert_eq!(header(&ahead, "RateLimit-Remaining"), "4");
    for expected in ["4", "3", "2", "1", "0"] {
        let response = table_read(&gate, NOW);
        assert_eq!(response.status, 200);
        assert_eq!(header(&response, "RateLimit-Remaining"), expected);
        assert_eq!(header(&response, "RateLimit-Reset"), "20");
    }
    let refused = table_read(&gate, NOW);
    assert_eq!(refused.status, 429);
    assert_eq!(header(&refused, "Retry-After"), "20");
    assert_eq!(header(&refused, "x-ratelimit-reset"), "1700000100");
    // The next window admits again.
    let next = table_read(&gate, 1_700_000_100_000);
    assert_eq!(next.status, 200);
    assert_eq!(header(&next, "RateLimit-Remaining"), "4");
}
