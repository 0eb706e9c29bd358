//! Unit tests of the scripts' arguments and replies (no server: the
//! scripts themselves run in `tests/`).

use super::*;
use acd_core::limit::{LimitStatus, Quota};

fn check<'a>(name: &'a str, subject: &'a str, requests: u32) -> LimitCheck<'a> {
    LimitCheck {
        name,
        quota: Quota::per_seconds(requests, 60),
        subject,
    }
}

fn argv(batch: &Batch) -> Vec<String> {
    batch.argv()
}

/// A fixed-window decision about `checks` at `now` ms, 2 ms of grace.
fn fixed(space: &KeySpace, checks: &[LimitCheck<'_>], now: u64) -> Prepared {
    Prepared::new(
        space,
        LimitAlgorithm::FixedWindow,
        checks,
        UnixMillis::new(now),
        2,
    )
    .unwrap()
}

#[test]
fn fixed_window_keys_name_their_window_and_repeats_share_an_index() {
    let space = KeySpace::new("t", LimitAlgorithm::FixedWindow).unwrap();
    let checks = [
        check("credential", "k", 100),
        check("user", "ada", 5),
        check("credential", "k", 100),
    ];
    let prepared = Prepared::new(
        &space,
        LimitAlgorithm::FixedWindow,
        &checks,
        UnixMillis::new(61_000),
        2,
    )
    .unwrap();
    assert_eq!(
        prepared.keys,
        [
            b"{t}:fw:credential:k:120000".to_vec(),
            b"{t}:fw:user:ada:120000".to_vec()
        ]
    );
    assert_eq!(prepared.args(), [61_000, 3, 1, 100, 2, 5, 1, 100]);
    // In a batch, keys are shared and indices renumbered; a decision in
    // the next window has keys of its own.
    let other = [check("user", "ada", 5), check("credential", "bob", 100)];
    let later = [check("user", "ada", 5)];
    let prepare = |checks: &[LimitCheck<'_>], now| {
        Prepared::new(
            &space,
            LimitAlgorithm::FixedWindow,
            checks,
            UnixMillis::new(now),
            2,
        )
        .unwrap()
    };
    let mut batch = prepared.batch();
    batch.push(&prepare(&other, 62_000));
    batch.push(&prepare(&later, 120_000));
    assert_eq!((batch.len(), batch.key_count()), (3, 4));
    assert_eq!(
        argv(&batch),
        [
            // grace; every key's end and TTL if created at its first
            // decision (one argument); the decision count, then every
            // decision (one argument)
            "2",
            "120000 59002 120000 59002 120000 58002 180000 60002",
            "3",
            "61000 3 1 100 2 5 1 100 62000 2 2 5 3 100 120000 1 4 5",
            // each key's group (a byte); per group: ceiling, demand. The
            // credential key has 2 checks of limit 100 (threshold 99 =
            // 100 - 1 before it): ceiling 101; ada's first key 2 of limit
            // 5: 6; bob's and ada's next window 1 each: 101 and 6.
            "\u{1}\u{2}\u{3}\u{4}",
            "101",
            "2",
            "6",
            "2",
            "101",
            "1",
            "6",
            "1"
        ]
    );
}

#[test]
fn gcra_keys_and_arguments_carry_the_window() {
    let space = KeySpace::new("t", LimitAlgorithm::Gcra).unwrap();
    let checks = [check("credential", "k", 100), check("credential", "k", 100)];
    let prepared = Prepared::new(
        &space,
        LimitAlgorithm::Gcra,
        &checks,
        UnixMillis::new(1_000),
        2,
    )
    .unwrap();
    assert_eq!(prepared.keys, [b"{t}:gcra:credential:k".to_vec()]);
    assert_eq!(
        argv(&prepared.batch()),
        ["gcra", "2", "1", "1000", "2", "1", "100", "60000", "1", "100", "60000"]
    );
}

#[test]
fn times_past_the_exact_range_are_refused() {
    for algorithm in [LimitAlgorithm::FixedWindow, LimitAlgorithm::Gcra] {
        let space = KeySpace::new("t", algorithm).unwrap();
        let checks = [check("credential", "k", 1)];
        let at = |checks: &[LimitCheck<'_>], now| {
            Prepared::new(&space, algorithm, checks, UnixMillis::new(now), 0)
        };
        assert!(at(&checks, MAX_EXACT_MS).is_ok());
        assert!(matches!(
            at(&checks, MAX_EXACT_MS + 1),
            Err(StoreError::OutOfDomain(_))
        ));
        let long = [LimitCheck {
            quota: Quota {
                requests: 1,
                window_ms: MAX_EXACT_MS + 1,
            },
            ..checks[0]
        }];
        assert!(matches!(at(&long, 0), Err(StoreError::OutOfDomain(_))));
    }
}

fn ints(v: &[i64]) -> Value {
    Value::Array(v.iter().map(|n| Value::Int(*n)).collect())
}

#[test]
fn fixed_window_replies_take_reset_and_retry_from_the_window() {
    let space = KeySpace::new("t", LimitAlgorithm::FixedWindow).unwrap();
    // Windows of 60 s and 1 s: at 61 500 they end at 120 000 and 62 000.
    let checks = [
        check("credential", "k", 100),
        LimitCheck {
            quota: Quota::per_seconds(5, 1),
            ..check("user", "ada", 5)
        },
    ];
    let prepared = Prepared::new(
        &space,
        LimitAlgorithm::FixedWindow,
        &checks,
        UnixMillis::new(61_500),
        0,
    )
    .unwrap();
    let status = |index, limit, remaining, reset| LimitStatus {
        index,
        limit,
        remaining,
        reset_at: UnixMillis::new(reset),
    };
    // Decided one by one in the script: the tightest check passed...
    assert_eq!(
        prepared.decision(&ints(&[0, 1, 1, 4]), &checks).unwrap(),
        StackDecision::Admitted {
            tightest: Some(status(1, 5, 4, 62_000))
        }
    );
    // ...or, every decision admitted, the counts before the call: 97
    // of 100 leaves 2, 1 of 5 leaves 3; the credential is tighter.
    assert_eq!(
        prepared.decision(&ints(&[1, 97, 1]), &checks).unwrap(),
        StackDecision::Admitted {
            tightest: Some(status(0, 100, 2, 120_000))
        }
    );
    // Equal remaining: the one that resets last (the credential).
    assert_eq!(
        prepared.decision(&ints(&[1, 96, 1]), &checks).unwrap(),
        StackDecision::Admitted {
            tightest: Some(status(0, 100, 3, 120_000))
        }
    );
    assert_eq!(
        prepared.decision(&ints(&[0, 0, 0, 0]), &checks).unwrap(),
        StackDecision::Refused {
            refusing: status(0, 100, 0, 120_000),
            retry_at: UnixMillis::new(120_000)
        }
    );
    let error = prepared
        .decision(&ints(&[0, -1, 1, 0]), &checks)
        .unwrap_err();
    assert!(error.is_bad_state(), "{error:?}");
    assert!(
        error.to_string().contains("{t}:fw:user:ada:62000"),
        "{error}"
    );
    for bad in [
        ints(&[0, 1, 2, 0]),
        ints(&[0, 0, -1, 0]),
        ints(&[0, 2, 0, 0]),
        ints(&[0, 0, 0, 3]),
        ints(&[0, 1, 0, -1]),
        ints(&[0, 1, 0, 0, 0]),
        // Counts that leave no room contradict "all admitted".
        ints(&[1, 100, 0]),
        ints(&[1, 0, -1]),
        ints(&[1, 0]),
        ints(&[2, 0, 0]),
        Value::Okay,
        Value::Array(vec![Value::Nil; 3]),
    ] {
        let error = prepared.decision(&bad, &checks).unwrap_err();
        assert!(matches!(error, StoreError::Garbage(_)), "{bad:?}");
    }
}

#[test]
fn gcra_replies_become_decisions_and_garbage_is_named() {
    let space = KeySpace::new("t", LimitAlgorithm::Gcra).unwrap();
    let checks = [check("credential", "k", 100), check("user", "ada", 5)];
    let prepared =
        Prepared::new(&space, LimitAlgorithm::Gcra, &checks, UnixMillis::new(7), 0).unwrap();
    assert_eq!(
        prepared
            .decision(&ints(&[1, 1, 4, 60_000, 7]), &checks)
            .unwrap(),
        StackDecision::Admitted {
            tightest: Some(LimitStatus {
                index: 1,
                limit: 5,
                remaining: 4,
                reset_at: UnixMillis::new(60_000)
            })
        }
    );
    assert_eq!(
        prepared
            .decision(&ints(&[0, 0, 0, 60_000, 60_000]), &checks)
            .unwrap(),
        StackDecision::Refused {
            refusing: LimitStatus {
                index: 0,
                limit: 100,
                remaining: 0,
                reset_at: UnixMillis::new(60_000)
            },
            retry_at: UnixMillis::new(60_000)
        }
    );
    for bad in [
        ints(&[1, 2, 0, 0, 0]),
        ints(&[1, -1, 0, 0, 0]),
        ints(&[2, 0, 0, 0, 0]),
        ints(&[0, 0, 3, 0, 0]),
        ints(&[1, 0, -1, 0, 0]),
        ints(&[1, 0, 0, -5, 0]),
        ints(&[1, 0, 0]),
        Value::Okay,
        Value::Array(vec![Value::Nil; 5]),
    ] {
        let error = prepared.decision(&bad, &checks).unwrap_err();
        assert!(matches!(error, StoreError::Garbage(_)), "{bad:?}");
    }
}

#[test]
fn more_than_255_groups_send_no_group_bytes() {
    let space = KeySpace::new("t", LimitAlgorithm::FixedWindow).unwrap();
    // One decision per limit in 1..=limits; `subject` names its key.
    let batch_of = |limits: u32, subject: &dyn Fn(u32) -> String| {
        let mut batch = Batch::new(LimitAlgorithm::FixedWindow, 2);
        for requests in 1..=limits {
            let subject = subject(requests);
            batch.push(&fixed(
                &space,
                &[check("credential", &subject, requests)],
                1_000,
            ));
        }
        batch
    };
    // Two keys, each checked with two limits: odd (1, then 3 at position
    // 1: threshold min(1, 2) = 1, demand 2, ceiling 3) and even (2, then
    // 4: min(2, 3) = 2, ceiling 4).
    let two = batch_of(4, &|n| if n % 2 == 0 { "even" } else { "odd" }.to_owned());
    assert_eq!(two.groups(), (vec![1, 2], vec![(3, 2), (4, 2)]));
    assert_eq!(
        argv(&two).get(4..).unwrap(),
        ["\u{1}\u{2}", "3", "2", "4", "2"]
    );
    // A key per limit: 255 groups fit in a byte each (limit n: ceiling
    // n + 1, demand 1) ...
    let (of, groups) = batch_of(255, &|n| n.to_string()).groups();
    assert_eq!(of, (1..=255).collect::<Vec<u8>>());
    assert_eq!(groups, (2..=256).map(|u| (u, 1)).collect::<Vec<_>>());
    // ... 256 do not: no group bytes and no groups (decided one by one).
    let many = batch_of(256, &|n| n.to_string());
    assert_eq!(many.groups(), (vec![], vec![]));
    assert_eq!(argv(&many).len(), 5);
}

#[test]
fn batches_are_equal_when_they_send_the_same_call() {
    let space = KeySpace::new("t", LimitAlgorithm::FixedWindow).unwrap();
    let batch_at = |now: u64| {
        let mut batch = Batch::new(LimitAlgorithm::FixedWindow, 2);
        for subject in ["ada", "bob", "ada"] {
            batch.push(&fixed(&space, &[check("credential", subject, 10)], now));
        }
        batch
    };
    // Each batch has its own hasher seed; equality ignores the index.
    assert_eq!(batch_at(1_000), batch_at(1_000));
    assert_ne!(batch_at(1_000), batch_at(1_001));
    let mut shorter = batch_at(1_000);
    shorter.push(&fixed(&space, &[check("credential", "cy", 10)], 1_000));
    assert_ne!(shorter, batch_at(1_000));
}
