//! Simulation scenarios: client instances against the real gate in virtual
//! time (see `acd_core::sim`). Each asserts exact figures and that every
//! invariant the harness checks held. Run with `--nocapture` for summaries.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use acd_core::client::{
    ClientCredential, ConnectionPagerOptions, PollOptions, RequestSpec, RetryPolicy,
    TablePagerOptions,
};
use acd_core::gate::demo::{ADA_SECOND_KEY, ADA_TOKEN, BOB_KEY};
use acd_core::model::ParamRole;
use acd_core::sim::{
    self, Dataset, FaultKind, FaultRule, SimClientConfig, SimConfig, SimReport, SimTask, TraceKind,
};
use acd_tests::client_support::{self, ada, page_size, pages, table};

fn run(name: &str, config: SimConfig) -> SimReport {
    client_support::run(name, config).expect("the simulation is configured correctly")
}

#[test]
fn the_sixth_table_page_in_a_minute_waits_instead_of_failing() {
    let config = SimConfig {
        dataset: Dataset::default().with_table("orders", 550),
        ..SimConfig::default()
    }
    .client(SimClientConfig::new("reader", ada()).task(table("orders", page_size(100))));
    let report = run("six pages", config);
    assert_eq!(report.violations, Vec::<String>::new());
    assert!(report.completed);
    assert_eq!(
        (report.requests_sent, report.responses_429, report.retries),
        (6, 0, 0)
    );
    // The start is 20 s into an epoch-aligned minute: the window the first
    // five pages used ends 40 s later; the sixth page waits until 40.1 s (the
    // 100 ms of the five round trips, plus RateLimit-Reset rounded up) plus a
    // throttle jitter of at most the backoff base (1 s).
    let sixth = report
        .trace
        .iter()
        .filter(|event| matches!(event.what, TraceKind::Send { .. }))
        .nth(5)
        .expect("six sends");
    assert!((40_100..=41_100).contains(&sixth.at_ms), "{}", sixth.at_ms);
    assert_eq!(report.elapsed_ms, sixth.at_ms + 20);
    assert_eq!(
        pages(&report, 0).iter().map(|p| p.1).collect::<Vec<_>>(),
        [100, 100, 100, 100, 100, 50]
    );
}

#[test]
fn keyset_and_descending_pagers_deliver_every_record_once_in_order() {
    let keyset = TablePagerOptions {
        page_size: 40,
        order_by: Some("name".into()),
        unique_order: true,
        ..TablePagerOptions::default()
    };
    let descending = TablePagerOptions {
        page_size: 40,
        order_by: Some("score".into()),
        descending: true,
        ..TablePagerOptions::default()
    };
    let config = SimConfig {
        dataset: Dataset::default().with_table("items", 120),
        ..SimConfig::default()
    }
    .client(
        SimClientConfig::new("keyset", ada())
            .task(table("items", keyset))
            .task(table("items", descending)),
    );
    let report = run("keyset + desc", config);
    assert_eq!(report.violations, Vec::<String>::new());
    assert!(report.completed);
    // 120 rows in pages of 40: 3 full pages and an empty last page, twice;
    // both pagers share Ada's 5 table reads per minute, so 3 wait a window.
    assert_eq!((report.requests_sent, report.responses_429), (8, 0));
    let keyset_targets: Vec<String> = report
        .trace
        .iter()
        .filter_map(|event| match (&event.what, event.job) {
            (TraceKind::Send { target, .. }, 0) => Some(target.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        keyset_targets,
        [
            "/api/v1/tables/items?order_by=name&limit=40",
            "/api/v1/tables/items?order_by=name&limit=40&after=row-00040",
            "/api/v1/tables/items?order_by=name&limit=40&after=row-00080",
            "/api/v1/tables/items?order_by=name&limit=40&after=row-00120",
        ]
    );
}

#[test]
fn a_burst_of_150_connection_reads_never_meets_a_429() {
    let spec =
        RequestSpec::list_connection_records("crm", "contacts").param(ParamRole::Limit, "10");
    let mut client = SimClientConfig::new("burst", ada())
        .task(SimTask::Burst { spec, count: 150 })
        .task(SimTask::Connection {
            connection: "crm".into(),
            entity: "contacts".into(),
            options: ConnectionPagerOptions {
                page_size: 100,
                ..ConnectionPagerOptions::default()
            },
        });
    // A clock 90 s ahead of the server's changes nothing: every reset is
    // read as a delta, or against the response's Date header.
    client.clock_skew_ms = 90_000;
    let config = SimConfig {
        dataset: Dataset::default().with_connection("crm", "contacts", 250),
        ..SimConfig::default()
    }
    .client(client);
    let report = run("burst 150 + pager", config);
    assert_eq!(report.violations, Vec::<String>::new());
    assert!(report.completed);
    // 150 calls + 3 pages = 153 requests, 100 per credential per minute.
    assert_eq!(
        (report.requests_sent, report.responses_429, report.retries),
        (153, 0, 0)
    );
    // The first 100 go at once; the server's window ends 40 s after the
    // start (the start is 20 s into an epoch-aligned minute), learned from the
    // first response's RateLimit-Reset, so the other 53 go from 40.02 s on,
    // each after its own throttle jitter of at most 1 s.
    let sends: Vec<u64> = report
        .trace
        .iter()
        .filter(|event| matches!(event.what, TraceKind::Send { .. }))
        .map(|event| event.at_ms)
        .collect();
    assert_eq!(sends.iter().filter(|&&at| at == 0).count(), 100);
    let later: Vec<u64> = sends.iter().copied().filter(|&at| at > 0).collect();
    assert_eq!(later.len(), 53);
    assert!(
        later.iter().all(|at| (40_020..=41_100).contains(at)),
        "{later:?}"
    );
    assert!(
        later.windows(2).filter(|pair| pair[0] != pair[1]).count() > 20,
        "the jitter spreads the waiting calls apart"
    );
}

#[test]
fn a_run_poller_polls_about_once_a_second_until_terminal() {
    let config = SimConfig {
        dataset: Dataset::default()
            .with_table("orders", 30)
            .with_run("run-1", 7_500, "succeeded"),
        ..SimConfig::default()
    }
    .client(
        SimClientConfig::new("poller", ada())
            .task(SimTask::PollRun {
                run_id: "run-1".into(),
                options: PollOptions::default(),
            })
            .task(table("orders", page_size(10))),
    );
    let report = run("poller + pager", config);
    assert_eq!(report.violations, Vec::<String>::new());
    assert!(report.completed);
    let polls: Vec<u64> = report
        .trace
        .iter()
        .filter(|event| event.job == 0 && matches!(event.what, TraceKind::Send { .. }))
        .map(|event| event.at_ms)
        .collect();
    for pair in polls.windows(2) {
        let gap = pair[1] - pair[0];
        assert!((920..=1_120).contains(&gap), "poll gap {gap} ms");
    }
    assert_eq!(polls.len(), 9);
    assert_eq!(report.retries, 0);
    assert_eq!(report.clients[0].budget_spent, 0);
}

#[test]
fn injected_failures_are_retried_and_pages_still_arrive_once_in_order() {
    let config = SimConfig {
        dataset: Dataset::default()
            .with_table("orders", 400)
            .with_connection("crm", "contacts", 900),
        faults: vec![
            FaultRule {
                from_ms: 0,
                until_ms: 600_000,
                per_mille: 150,
                kind: FaultKind::ServerError { status: 503 },
                client: None,
            },
            FaultRule {
                from_ms: 0,
                until_ms: 600_000,
                per_mille: 60,
                kind: FaultKind::Timeout,
                client: None,
            },
            FaultRule {
                from_ms: 0,
                until_ms: 600_000,
                per_mille: 60,
                kind: FaultKind::Connect,
                client: None,
            },
        ],
        ..SimConfig::default()
    }
    .client(
        SimClientConfig::new("flaky", ada())
            .task(table("orders", page_size(50)))
            .task(SimTask::Connection {
                connection: "crm".into(),
                entity: "contacts".into(),
                options: ConnectionPagerOptions {
                    page_size: 50,
                    ..ConnectionPagerOptions::default()
                },
            }),
    );
    let report = run("faults", config);
    assert_eq!(report.violations, Vec::<String>::new());
    assert!(report.completed);
    assert_eq!(report.responses_429, 0);
    assert!(report.faults_injected > 0 && report.retries == report.faults_injected);
    assert_eq!(
        report.requests_sent,
        9 + 19 + report.retries,
        "27 pages + the empty last ones, plus one retry per fault"
    );
}

#[test]
fn a_failure_burst_is_capped_by_the_retry_budget() {
    // Every request fails for the whole run: without a budget, 200 calls
    // with 5 attempts each would send 1000 requests.
    let config = SimConfig {
        faults: vec![FaultRule {
            from_ms: 0,
            until_ms: u64::MAX,
            per_mille: 1_000,
            kind: FaultKind::ServerError { status: 503 },
            client: None,
        }],
        ..SimConfig::default()
    }
    .client(SimClientConfig::new("storm", ada()).task(SimTask::Burst {
        spec: RequestSpec::list_connection_records("crm", "contacts"),
        count: 200,
    }));
    let report = run("failure burst", config);
    assert_eq!(report.violations, Vec::<String>::new());
    assert!(!report.completed, "every call fails");
    // 500 tokens at 5 per 5xx retry: exactly 100 retries, then give-ups.
    assert_eq!(report.retries, 100);
    assert_eq!(report.requests_sent, 300);
    assert_eq!(report.clients[0].budget_spent, 500);
    assert_eq!(report.responses_429, 0);
    let budget_give_ups = report
        .trace
        .iter()
        .filter(|event| matches!(&event.what, TraceKind::Failed { error } if error.contains("retry budget is exhausted")))
        .count();
    assert!(budget_give_ups > 0);
}

/// Ada's three instances (different credentials, IPs and clocks: 0,
/// +2 min and -30 s, so resets are read as deltas or against the Date
/// header) share her 5 table reads per minute; Bob reads alongside.
fn three_instances(seed: u64) -> SimConfig {
    let instance = |name: &str, credential: ClientCredential, ip: &str, skew: i64| {
        let mut client =
            SimClientConfig::new(name, credential).task(table("orders", page_size(100)));
        client.client_ip = ip.into();
        client.clock_skew_ms = skew;
        client
    };
    SimConfig {
        seed,
        dataset: Dataset::default().with_table("orders", 1_000),
        ..SimConfig::default()
    }
    .client(instance(
        "ci",
        ClientCredential::api_key("ci", ADA_SECOND_KEY, "ada"),
        "198.51.100.1",
        0,
    ))
    .client(instance("laptop", ada(), "198.51.100.2", 120_000))
    .client(instance(
        "dashboard",
        ClientCredential::oauth_token("dash", ADA_TOKEN, "ada"),
        "198.51.100.3",
        -30_000,
    ))
    .client(
        SimClientConfig::new("bob", ClientCredential::api_key("bob", BOB_KEY, "bob"))
            .task(table("orders", page_size(100))),
    )
}

#[test]
fn three_instances_sharing_one_users_table_limit_converge_and_finish() {
    // The default retry policy: an instance refused with a 429 must not
    // starve behind the ones that are merely throttled.
    let mut finished = Vec::new();
    for seed in 1..=12 {
        let config = three_instances(seed);
        assert_eq!(config.clients[0].config.retry, RetryPolicy::default());
        let report = run(
            &format!("3 instances share ada's table limit (seed {seed})"),
            config,
        );
        assert_eq!(report.violations, Vec::<String>::new(), "seed {seed}");
        assert!(
            report.completed,
            "seed {seed}: {:?}",
            report
                .trace
                .iter()
                .filter(|e| matches!(e.what, TraceKind::Failed { .. }))
                .collect::<Vec<_>>()
        );
        assert_eq!(report.avoidable_429, 0);
        assert!(
            report.responses_429 > 0,
            "uncoordinated instances do collide"
        );
        assert_eq!(report.clients[3].responses_429, 0, "bob's limit is his own");
        // 33 of ada's page reads at 5 per window: the first window ends 40 s
        // after the start, so the 7th (and last needed) opens at 340 s.
        assert!(report.elapsed_ms > 340_000);
        // 10 full pages each; the 11th read is empty and ends the pager
        // without a page.
        for client in 0..3 {
            assert_eq!(pages(&report, client).len(), 10);
        }
        finished.push(report.elapsed_ms);
    }
    println!("virtual ms to finish, per seed: {finished:?}");
}

#[test]
fn the_same_seed_gives_the_same_trace() {
    let config = |seed| {
        SimConfig {
            seed,
            dataset: Dataset::default().with_table("orders", 300),
            faults: vec![FaultRule {
                from_ms: 0,
                until_ms: 300_000,
                per_mille: 300,
                kind: FaultKind::ServerError { status: 500 },
                client: None,
            }],
            ..SimConfig::default()
        }
        .client(SimClientConfig::new("a", ada()).task(table("orders", page_size(50))))
        .client(
            SimClientConfig::new("b", ClientCredential::api_key("ci", ADA_SECOND_KEY, "ada"))
                .task(table("orders", page_size(50))),
        )
    };
    let first = sim::run(config(7)).unwrap();
    let second = sim::run(config(7)).unwrap();
    assert_eq!(first.trace, second.trace);
    assert_eq!(first.trace_digest(), second.trace_digest());
    let other = sim::run(config(8)).unwrap();
    assert_ne!(first.trace_digest(), other.trace_digest());
}

#[test]
fn a_poller_sharing_its_credential_honours_retry_after_and_backs_off() {
    // Another instance with the same key spends the credential's 100
    // requests per minute; the poller's next poll meets a 429.
    let burst = RequestSpec::list_connection_records("crm", "contacts");
    let config = SimConfig {
        dataset: Dataset::default()
            .with_connection("crm", "contacts", 5)
            .with_run("run-7", 50_000, "failed"),
        ..SimConfig::default()
    }
    .client(
        SimClientConfig::new("poller", ada()).task(SimTask::PollRun {
            run_id: "run-7".into(),
            options: PollOptions::default(),
        }),
    )
    .client({
        let mut other = SimClientConfig::new("batch", ada()).task(SimTask::Burst {
            spec: burst,
            count: 120,
        });
        other.start_offset_ms = 2_500;
        other
    });
    let report = run("poller vs burst on one key", config);
    assert_eq!(report.violations, Vec::<String>::new());
    assert!(report.completed);
    let poller = &report.clients[0];
    assert_eq!(poller.responses_429, 1);
    assert_eq!(poller.avoidable_429, 0);
    let events: Vec<&TraceKind> = report
        .trace
        .iter()
        .filter(|event| event.client == 0)
        .map(|event| &event.what)
        .collect();
    let throttled = events
        .iter()
        .position(|what| matches!(what, TraceKind::Response { status: 429, .. }))
        .expect("a 429");
    let TraceKind::Retry { at_ms, .. } = events[throttled + 1] else {
        panic!("a retry follows the 429")
    };
    let refused_at = report
        .trace
        .iter()
        .filter(|event| event.client == 0)
        .nth(throttled)
        .map(|event| event.at_ms)
        .expect("the 429's time");
    // Retry-After counts to the end of the server's window (40 s after the
    // start); the retry is never earlier, and at most 10 % (≤ 5 s) later.
    assert!(*at_ms >= 40_000 && *at_ms <= 40_000 + 5_000, "{at_ms}");
    assert!(refused_at < 40_000);
    // Polls resume and the run's terminal state ends the job.
    assert!(matches!(events.last(), Some(TraceKind::Done)));
    let last_polls: Vec<u64> = report
        .trace
        .iter()
        .filter(|event| event.client == 0 && matches!(event.what, TraceKind::Send { .. }))
        .map(|event| event.at_ms)
        .filter(|&at| at > 40_000)
        .collect();
    // After the 429 the interval doubled (about 2 s), then halved back.
    assert!((1_800..=2_200).contains(&(last_polls[1] - last_polls[0])));
    assert!((900..=1_100).contains(&(last_polls[2] - last_polls[1])));
}
