//! One wrong clock reading costs at most one window in Redis too (issue 39,
//! item 4): a decision stamped a day ahead, then decisions at the right
//! time.
//!
//! A fixed-window key names its window's end, so the day-ahead decision
//! counts on a key of its own (which expires by itself) and the present
//! window's key never sees it. GCRA keeps one state per key; the script
//! discards a TAT more than two windows ahead, as the core does.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use acd_core::limit::{LimitAlgorithm, LimitCheck, LimitStatus, Quota, StackDecision};
use acd_core::UnixMillis;
use acd_redis::{RedisConfig, RedisLimiter};

/// 30 s into a minute: its 60 s window ends at `END`.
const NOW: u64 = 1_700_000_010_000;
const END: u64 = 1_700_000_040_000;
const DAY: u64 = 86_400_000;

fn limiter(url: &str, algorithm: LimitAlgorithm) -> RedisLimiter {
    RedisLimiter::new(RedisConfig {
        namespace: support::unique_namespace("clock"),
        algorithm,
        ..RedisConfig::new(url)
    })
    .unwrap()
}

const CHECKS: [LimitCheck<'static>; 1] = [LimitCheck {
    name: "credential",
    quota: Quota::per_seconds(2, 60),
    subject: "key-ada",
}];

fn status(remaining: u32, reset_at: u64) -> LimitStatus {
    LimitStatus {
        index: 0,
        limit: 2,
        remaining,
        reset_at: UnixMillis::new(reset_at),
    }
}

fn decide(redis: &RedisLimiter, now: u64) -> StackDecision {
    redis.decide(&CHECKS, UnixMillis::new(now)).unwrap()
}

fn admitted(remaining: u32, reset_at: u64) -> StackDecision {
    StackDecision::Admitted {
        tightest: Some(status(remaining, reset_at)),
    }
}

#[test]
fn fixed_window_a_day_ahead_decision_counts_on_its_own_windows_key() {
    let (url, _server) = support::shared();
    let mut con = support::connect(&url);
    let redis = limiter(&url, LimitAlgorithm::FixedWindow);
    assert_eq!(decide(&redis, NOW + DAY), admitted(1, END + DAY));
    // The present window's counter is another key: both requests fit.
    assert_eq!(decide(&redis, NOW), admitted(1, END));
    assert_eq!(decide(&redis, NOW + 1), admitted(0, END));
    assert_eq!(
        decide(&redis, NOW + 2),
        StackDecision::Refused {
            refusing: status(0, END),
            retry_at: UnixMillis::new(END),
        }
    );
    let space = redis.key_space();
    let count = |con: &mut redis::Connection, end: u64| -> Option<String> {
        redis::cmd("GET")
            .arg(space.window_key("credential", "key-ada", end))
            .query(con)
            .unwrap()
    };
    assert_eq!(count(&mut con, END).as_deref(), Some("2"));
    assert_eq!(count(&mut con, END + DAY).as_deref(), Some("1"));
    // The day-ahead key expires by itself: its TTL is its window's rest at
    // the decision that made it (30 s) plus the grace, not a day.
    let ttl: i64 = redis::cmd("PTTL")
        .arg(space.window_key("credential", "key-ada", END + DAY))
        .query(&mut con)
        .unwrap();
    let grace = i64::try_from(RedisConfig::new(&url).ttl_grace.as_millis()).unwrap();
    assert!(ttl > 0 && ttl <= 30_000 + grace, "ttl {ttl}");
    // The next window admits its full limit.
    assert_eq!(decide(&redis, END), admitted(1, END + 60_000));
}

#[test]
fn gcra_a_day_ahead_tat_is_discarded_by_the_script() {
    // 2 per 60 s: burst 2, one back every 30 s.
    let (url, _server) = support::shared();
    let redis = limiter(&url, LimitAlgorithm::Gcra);
    assert_eq!(decide(&redis, NOW + DAY), admitted(1, NOW + DAY + 30_000));
    assert_eq!(decide(&redis, NOW), admitted(1, NOW + 30_000));
    assert_eq!(decide(&redis, NOW), admitted(0, NOW + 60_000));
    assert_eq!(
        decide(&redis, NOW),
        StackDecision::Refused {
            refusing: status(0, NOW + 60_000),
            retry_at: UnixMillis::new(NOW + 30_000),
        }
    );
}

#[test]
fn gcra_one_window_behind_keeps_the_state() {
    // Time going back by one window (a skewed instance) counts into the
    // stored state: nothing is admitted twice.
    let (url, _server) = support::shared();
    let redis = limiter(&url, LimitAlgorithm::Gcra);
    let later = NOW + 60_000;
    assert_eq!(decide(&redis, later), admitted(1, later + 30_000));
    assert_eq!(decide(&redis, later), admitted(0, later + 60_000));
    // TAT is later + 60 s = NOW + 2 windows: kept; the next request fits
    // at TAT + 30 s - 60 s.
    assert_eq!(
        decide(&redis, NOW),
        StackDecision::Refused {
            refusing: status(0, later + 60_000),
            retry_at: UnixMillis::new(later + 30_000),
        }
    );
}
