//! Property tests of the rate-limit algorithms and the stacked rule: exact
//! fixed windows, the GCRA bound, exact retry times, all-or-none, and no
//! panic or over-admission at the edges of time and quota.

use acd_core::limit::{
    decide_stack, Algorithm, FixedWindow, FixedWindowState, Gcra, GcraState, KeyedLimiter,
    LimiterConfig, PackedState, Quota, StackDecision,
};
use acd_core::UnixMillis;
use proptest::prelude::*;
use std::collections::BTreeMap;

fn windows() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(1u64),
        Just(7),
        Just(1_000),
        Just(60_000),
        Just(86_400_000),
        1u64..5_000
    ]
}

/// A sorted timeline starting at `base`, with gaps up to `max_gap`.
fn timeline(max_gap: u64) -> impl Strategy<Value = Vec<u64>> {
    (
        prop_oneof![Just(0u64), Just(1_700_000_000_000), 0u64..1 << 50],
        prop::collection::vec(0..=max_gap, 1..200),
    )
        .prop_map(|(base, gaps)| {
            let mut now = base;
            gaps.into_iter()
                .map(|gap| {
                    now = now.saturating_add(gap);
                    now
                })
                .collect()
        })
}

/// Runs `times` through the pure transition of `A`; returns admitted flags.
fn run_pure<A: Algorithm>(quota: Quota, times: &[u64]) -> Vec<bool> {
    let rule = A::rule(quota);
    let mut state = A::State::default();
    times
        .iter()
        .map(|&now| {
            let (verdict, next) = A::decide(&rule, state, UnixMillis::new(now));
            state = next;
            verdict.admitted
        })
        .collect()
}

/// Runs `times` for one key through the keyed engine.
fn run_keyed<A: Algorithm>(quota: Quota, times: &[u64]) -> Vec<bool> {
    let limiter: KeyedLimiter<u64, A> = KeyedLimiter::new(LimiterConfig::with_max_keys(16));
    let rule = A::rule(quota);
    times
        .iter()
        .map(|&now| limiter.check(&9, &rule, UnixMillis::new(now)).admitted)
        .collect()
}

/// `times` with every reading at most one window behind the latest before
/// it (an earlier one is moved up to that bound): time may go backwards,
/// but by at most one window.
fn within_one_window(times: &[u64], window: u64) -> Vec<u64> {
    let mut latest = 0u64;
    times
        .iter()
        .map(|&t| {
            let t = t.max(latest.saturating_sub(window));
            latest = latest.max(t);
            t
        })
        .collect()
}

/// Runs `times` through the pure transition and the keyed engine; returns,
/// per run, each refusal as `(now, retry_at)`.
fn refusals<A: Algorithm>(quota: Quota, times: &[u64]) -> Vec<Vec<(u64, u64)>> {
    let rule = A::rule(quota);
    let mut state = A::State::default();
    let limiter: KeyedLimiter<u64, A> = KeyedLimiter::new(LimiterConfig::with_max_keys(16));
    let mut pure = Vec::new();
    let mut keyed = Vec::new();
    for &now in times {
        let (verdict, next) = A::decide(&rule, state, UnixMillis::new(now));
        state = next;
        if !verdict.admitted {
            pure.push((now, verdict.retry_at.as_millis()));
        }
        let verdict = limiter.check(&5, &rule, UnixMillis::new(now));
        if !verdict.admitted {
            keyed.push((now, verdict.retry_at.as_millis()));
        }
    }
    vec![pure, keyed]
}

fn per_window(times: &[u64], admitted: &[bool], window: u64) -> BTreeMap<u64, (u64, u64)> {
    let mut counts = BTreeMap::new();
    for (&now, &ok) in times.iter().zip(admitted) {
        let entry = counts.entry(now / window).or_insert((0, 0));
        entry.0 += 1;
        entry.1 += u64::from(ok);
    }
    counts
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn fixed_window_admits_exactly_min_of_limit_and_requests(
        requests in 1u32..6, window in windows(), times in timeline(400),
    ) {
        let quota = Quota { requests, window_ms: window };
        for admitted in [run_pure::<FixedWindow>(quota, &times), run_keyed::<FixedWindow>(quota, &times)] {
            for (seen, passed) in per_window(&times, &admitted, window).into_values() {
                prop_assert_eq!(passed, seen.min(u64::from(requests)));
            }
        }
    }

    /// Time going backwards by at most one window never admits extra: every
    /// request counts in the window of the latest instant seen so far, and
    /// no such window admits more than the limit. (A reading more than one
    /// window back is believed; see the next property.)
    #[test]
    fn fixed_window_never_over_admits_when_time_goes_back_by_at_most_one_window(
        requests in 1u32..6, window in windows(),
        times in prop::collection::vec(prop_oneof![0u64..20_000, Just(u64::MAX), Just(u64::MAX - 1)], 1..200),
    ) {
        let quota = Quota { requests, window_ms: window };
        let times = within_one_window(&times, window);
        // Effective time: the latest instant seen so far.
        let mut latest = 0;
        let effective: Vec<u64> = times.iter().map(|&t| { latest = latest.max(t); latest }).collect();
        for admitted in [run_pure::<FixedWindow>(quota, &times), run_keyed::<FixedWindow>(quota, &times)] {
            for (_, passed) in per_window(&effective, &admitted, window).into_values() {
                prop_assert!(passed <= u64::from(requests));
            }
        }
    }

    /// Whatever came before (readings in any order, jumps to the end of
    /// time and back), a refusal's retry time is at most two windows after
    /// `now` in the pure transition (a state more than one window beyond
    /// what `now` can write is discarded), and at most three in the keyed
    /// engine (whose clock counts `now` as up to one window later): one
    /// wrong reading costs at most one window.
    #[test]
    fn a_refusal_never_waits_more_than_two_windows_past_a_wrong_reading(
        requests in 1u32..6, window in windows(), gcra in any::<bool>(),
        times in prop::collection::vec(
            prop_oneof![0u64..20_000, 1u64 << 40..(1 << 40) + 20_000, Just(u64::MAX), Just(u64::MAX - 1)],
            1..100,
        ),
    ) {
        let quota = Quota { requests, window_ms: window };
        let runs = if gcra { refusals::<Gcra>(quota, &times) } else { refusals::<FixedWindow>(quota, &times) };
        for (run, windows) in runs.iter().zip([2u64, 3]) {
            for &(now, retry_at) in run {
                prop_assert!(
                    retry_at <= now.saturating_add(window.saturating_mul(windows)),
                    "refused at {} until {} (window {})", now, retry_at, window
                );
            }
        }
    }

    #[test]
    fn gcra_admits_at_most_burst_plus_rate_times_t(
        requests in 1u32..6, window in windows(), sorted in any::<bool>(),
        times in timeline(300), shuffle in any::<u64>(),
    ) {
        let quota = Quota { requests, window_ms: window };
        let mut times = times;
        if !sorted {
            // Any order, each reading at most one window behind the latest
            // before it: the bound holds on stated times.
            let len = times.len() as u64;
            for i in 0..times.len() {
                let j = ((shuffle.rotate_left(i as u32) ^ (i as u64 * 0x9E37)) % len) as usize;
                times.swap(i, j);
            }
            times = within_one_window(&times, window);
        }
        let mut runs = vec![run_pure::<Gcra>(quota, &times)];
        if sorted {
            runs.push(run_keyed::<Gcra>(quota, &times));
        }
        for admitted in runs {
            let passed: Vec<u64> = times.iter().zip(&admitted).filter(|(_, ok)| **ok).map(|(t, _)| *t).collect();
            for &a in &passed {
                for &b in &passed {
                    if a <= b {
                        let inside = passed.iter().filter(|&&t| a <= t && t <= b).count() as u128;
                        // count <= n + (b - a) * n / w
                        let bound = u128::from(requests) * u128::from(window) + u128::from(b - a) * u128::from(requests);
                        prop_assert!(inside * u128::from(window) <= bound);
                    }
                }
            }
        }
    }

    #[test]
    fn retry_time_is_exact(
        requests in 1u32..6, window in windows(), times in timeline(200), gcra in any::<bool>(),
    ) {
        let quota = Quota { requests, window_ms: window };
        if gcra {
            exact_retry::<Gcra>(quota, &times)?;
        } else {
            exact_retry::<FixedWindow>(quota, &times)?;
        }
    }

    #[test]
    fn extremes_never_panic_and_limit_zero_never_admits(
        requests in prop_oneof![Just(0u32), Just(1), Just(u32::MAX), any::<u32>()],
        window in prop_oneof![Just(0u64), Just(1), Just(86_400_000), Just(u64::MAX), any::<u64>()],
        time in any::<u64>(), extra in any::<u32>(),
        nows in prop::collection::vec(prop_oneof![Just(0u64), Just(u64::MAX), any::<u64>()], 1..20),
    ) {
        let quota = Quota { requests, window_ms: window };
        let fw = FixedWindow::rule(quota);
        let gc = Gcra::rule(quota);
        let (mut a, mut b) = (FixedWindowState::unpack(time, extra), GcraState::unpack(time, extra));
        let limiter: KeyedLimiter<u64, Gcra> = KeyedLimiter::new(LimiterConfig::with_max_keys(4));
        for now in nows {
            let (va, na) = FixedWindow::decide(&fw, a, UnixMillis::new(now));
            let (vb, nb) = Gcra::decide(&gc, b, UnixMillis::new(now));
            let vc = limiter.check(&1, &gc, UnixMillis::new(now));
            for verdict in [va, vb, vc] {
                prop_assert!(!(requests == 0 && verdict.admitted));
                prop_assert!(verdict.admitted || verdict.remaining == 0);
                prop_assert!(verdict.remaining < requests.max(1));
            }
            if !va.admitted { prop_assert_eq!(na, a); }
            if !vb.admitted { prop_assert_eq!(nb, b); }
            a = na;
            b = nb;
        }
    }

    #[test]
    fn stacked_refusal_changes_nothing_and_admission_charges_every_limit(
        checks in prop::collection::vec((0usize..3, 0u32..4, windows(), any::<bool>()), 1..5),
        history in prop::collection::vec((0usize..3, 0u64..50), 0..20),
        gcra in any::<bool>(),
    ) {
        if gcra {
            stacked::<Gcra>(&checks, &history)?;
        } else {
            stacked::<FixedWindow>(&checks, &history)?;
        }
    }
}

fn exact_retry<A: Algorithm>(quota: Quota, times: &[u64]) -> Result<(), TestCaseError> {
    let rule = A::rule(quota);
    let mut state = A::State::default();
    for &now in times {
        let (verdict, next) = A::decide(&rule, state, UnixMillis::new(now));
        if !verdict.admitted {
            let retry = verdict.retry_at;
            prop_assert!(retry > UnixMillis::new(now));
            prop_assert!(A::decide(&rule, state, retry).0.admitted);
            prop_assert!(!A::decide(&rule, state, retry.saturating_sub(1)).0.admitted);
        }
        state = next;
    }
    Ok(())
}

/// Keys 0..3 with some history; then one stacked request (key, quota, window, reuse).
fn stacked<A: Algorithm>(
    checks: &[(usize, u32, u64, bool)],
    history: &[(usize, u64)],
) -> Result<(), TestCaseError> {
    let probe = A::rule(Quota {
        requests: 3,
        window_ms: 100,
    });
    let mut keys = [A::State::default(); 3];
    for &(key, now) in history {
        let (_, next) = A::decide(&probe, keys[key], UnixMillis::new(now));
        keys[key] = next;
    }
    let now = 50;
    let rules: Vec<A::Rule> = checks
        .iter()
        .map(|&(_, n, w, _)| {
            A::rule(Quota {
                requests: n,
                window_ms: w,
            })
        })
        .collect();
    let ids: Vec<usize> = checks.iter().map(|c| c.0).collect();
    let same: Vec<usize> = ids
        .iter()
        .enumerate()
        .map(|(i, k)| ids[..i].iter().position(|j| j == k).unwrap_or(i))
        .collect();
    let before: Vec<A::State> = ids.iter().map(|&k| keys[k]).collect();
    let mut states = before.clone();
    let decision = decide_stack::<A>(&rules, &same, &mut states, UnixMillis::new(now));
    // The sequential model: each check against the key's running state.
    let mut running = keys;
    let mut all = true;
    for (i, rule) in rules.iter().enumerate() {
        let (verdict, next) = A::decide(rule, running[ids[i]], UnixMillis::new(now));
        all &= verdict.admitted;
        if verdict.admitted {
            running[ids[i]] = next;
        }
    }
    match decision {
        StackDecision::Refused { refusing, retry_at } => {
            prop_assert!(!all);
            prop_assert_eq!(&states, &before);
            prop_assert!(retry_at > UnixMillis::new(now) || refusing.limit == 0);
        }
        StackDecision::Admitted { tightest } => {
            prop_assert!(all);
            let expected: Vec<A::State> = ids.iter().map(|&k| running[k]).collect();
            prop_assert_eq!(states, expected);
            prop_assert!(tightest.is_some());
        }
    }
    Ok(())
}
