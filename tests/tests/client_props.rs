//! Property tests of the client's invariants: backoff bounds, Retry-After
//! authority, retry rules, budget arithmetic, header parsing that never
//! panics, and a throttle that never lets a lone client meet a 429 from the
//! real gate, whatever the timing.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use acd_core::client::{
    build_request, interpret, parse_deprecation, parse_rate_limit_headers, AttemptState,
    BackoffPolicy, BudgetPolicy, CallId, Client, ClientConfig, ClientCredential, ClientRequest,
    Entropy, Event, GiveUpReason, HttpResponse, KeyStream, Outcome, RequestSpec, RetryBudget,
    RetryDecision, RetryPlanner, RetryPolicy, SplitMix64, TransportFailure, MIN_RETRY_DELAY_MS,
};
use acd_core::gate::demo::{ADA_KEY, ADA_SECOND_KEY};
use acd_core::gate::{Decision, Gate, GateConfig, GateRequest, GateResponse, ResourceAnswer};
use acd_core::model::{Catalogue, ParamRole};
use acd_core::UnixMillis;
use proptest::prelude::*;
use std::collections::VecDeque;

const NOW: u64 = 1_700_000_000_000;

fn request(method: &str, key: bool) -> ClientRequest {
    let mut config =
        ClientConfig::default().with_credential(ClientCredential::api_key("main", ADA_KEY, "ada"));
    config.catalogue.add(Catalogue::create_agent_run()).unwrap();
    let spec = if method == "POST" {
        let spec = RequestSpec::new("createAgentRun").path("agent_id", "a");
        if key {
            spec.idempotency_key("k")
        } else {
            spec
        }
    } else {
        RequestSpec::list_table_records("t")
    };
    build_request(&config, &spec, &mut KeyStream::from_seed(0)).unwrap()
}

fn sent_once() -> AttemptState {
    AttemptState {
        attempts: 1,
        first_sent_at: Some(UnixMillis::new(NOW)),
        ..AttemptState::default()
    }
}

fn planner(seed: u64) -> RetryPlanner {
    RetryPlanner::new(
        RetryPolicy::default(),
        BudgetPolicy::default(),
        Box::new(SplitMix64::new(seed)),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn backoff_delays_stay_within_zero_and_the_cap(
        base in any::<u64>(), cap in any::<u64>(), retry in any::<u32>(), seed in any::<u64>()
    ) {
        let policy = BackoffPolicy { base_ms: base, cap_ms: cap };
        let mut random = SplitMix64::new(seed);
        let ceiling = policy.ceiling(retry);
        prop_assert!(ceiling <= cap);
        let delay = policy.delay(retry, &mut random);
        prop_assert!(delay <= ceiling);
    }

    #[test]
    fn retry_after_is_never_undercut_and_gets_the_backoff_on_top(
        seconds in 0u64..200, seed in any::<u64>(), throttled in any::<bool>()
    ) {
        let status = if throttled { 429 } else { 503 };
        let response = HttpResponse::new(status, "{}").with_header("Retry-After", seconds.to_string());
        let request = request("GET", false);
        let decision = planner(seed).on_outcome(&request, &mut sent_once(), &Outcome::Response(response), NOW);
        let wait = seconds * 1_000;
        if wait > RetryPolicy::default().max_retry_after_ms {
            prop_assert_eq!(decision, RetryDecision::GiveUp { reason: GiveUpReason::RetryAfterTooLong {
                retry_at: UnixMillis::new(NOW + wait), wait_ms: wait, max_wait_ms: 60_000 } });
        } else {
            let RetryDecision::Retry { at, attempt, cost, .. } = decision else {
                return Err(TestCaseError::fail("expected a retry"));
            };
            // Retry-After, then the first retry's full-jitter backoff
            // (at most 1 s), and never sooner than the floor.
            prop_assert!(at >= UnixMillis::new(NOW + wait.max(MIN_RETRY_DELAY_MS)));
            prop_assert!(
                at.saturating_since(UnixMillis::new(NOW + wait)) <= BackoffPolicy::default().ceiling(1)
            );
            prop_assert_eq!(attempt, 2);
            prop_assert_eq!(cost, if throttled { 1 } else { 5 });
        }
    }

    #[test]
    fn only_429_5xx_and_transport_failures_are_retried_and_never_unsafely(
        status in 100u16..600, post in any::<bool>(), key in any::<bool>(),
        attempts in 1u32..8, transport in proptest::option::of(0u8..3), seed in any::<u64>()
    ) {
        let request = request(if post { "POST" } else { "GET" }, key);
        let mut state = AttemptState { attempts, ..sent_once() };
        let outcome = match transport {
            Some(0) => Outcome::Transport(TransportFailure::Connect),
            Some(1) => Outcome::Transport(TransportFailure::Timeout),
            Some(_) => Outcome::Transport(TransportFailure::Interrupted),
            None => Outcome::Response(HttpResponse::new(status, "{}")),
        };
        let decision = planner(seed).on_outcome(&request, &mut state, &outcome, NOW);
        let refused = outcome.status() == Some(429);
        let never_sent = matches!(outcome, Outcome::Transport(TransportFailure::Connect));
        match (&outcome, &decision) {
            (_, RetryDecision::Retry { at, attempt, .. }) => {
                prop_assert!(*at >= UnixMillis::new(NOW + MIN_RETRY_DELAY_MS));
                prop_assert!(*at <= UnixMillis::new(NOW + RetryPolicy::default().backoff.cap_ms));
                prop_assert_eq!(*attempt, attempts + 1);
                prop_assert!(attempts < RetryPolicy::default().max_attempts);
                prop_assert!(!post || key || never_sent || refused, "unsafe retry of a POST");
                if let Outcome::Response(response) = &outcome {
                    prop_assert!(response.status == 429 || response.status >= 500);
                }
            }
            (Outcome::Response(response), RetryDecision::Done) => {
                prop_assert!((200..300).contains(&response.status));
            }
            (Outcome::Response(response), RetryDecision::GiveUp { reason: GiveUpReason::NotRetryable { .. } }) => {
                prop_assert!(response.status < 200 || (300..500).contains(&response.status) && response.status != 429);
            }
            (_, RetryDecision::GiveUp { .. }) => {}
            (Outcome::Transport(_), RetryDecision::Done) => {
                return Err(TestCaseError::fail("a transport failure is never done"));
            }
            (_, other) => {
                return Err(TestCaseError::fail(format!("an unknown decision {other:?}")));
            }
        }
    }

    #[test]
    fn the_budget_is_integer_exact_and_bounded(ops in proptest::collection::vec((any::<bool>(), 0u32..20), 0..300)) {
        let mut budget = RetryBudget::new(BudgetPolicy::default());
        for (spend, amount) in ops {
            let before = budget.available();
            if spend {
                let paid = budget.try_spend(amount);
                prop_assert_eq!(paid, amount <= before);
                prop_assert_eq!(budget.available(), if paid { before - amount } else { before });
            } else {
                budget.refund(amount);
                prop_assert_eq!(budget.available(), (before + amount).min(500));
            }
            prop_assert_eq!(
                u64::from(budget.available()),
                500 + budget.refunded_total() - budget.spent_total()
            );
        }
    }

    #[test]
    fn header_and_body_parsing_never_panics(
        values in proptest::collection::vec((0usize..12, ".{0,40}"), 0..12),
        status in 0u16..1000, body in proptest::collection::vec(any::<u8>(), 0..200)
    ) {
        const NAMES: [&str; 12] = [
            "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "x-ratelimit-limit",
            "x-ratelimit-remaining", "x-ratelimit-reset", "RateLimit", "RateLimit-Policy",
            "Retry-After", "Date", "Deprecation", "Link",
        ];
        let headers: Vec<(String, String)> =
            values.into_iter().map(|(name, value)| (NAMES[name].to_owned(), value)).collect();
        let parsed = parse_rate_limit_headers(&headers, NOW);
        for observation in &parsed.observations {
            prop_assert!(observation.reset_at >= UnixMillis::new(NOW));
        }
        prop_assert!(parsed.retry_at.is_none_or(|at| at >= UnixMillis::new(NOW)));
        let _ = parse_deprecation("op", &headers);
        for operation in Catalogue::standard().operations() {
            let _ = interpret(operation, &HttpResponse { status, headers: headers.clone(), body: body.clone() });
        }
    }
}

fn answer(gate: &Gate, request: &ClientRequest, now: u64) -> GateResponse {
    let gate_request = GateRequest {
        method: request.method.clone(),
        target: request.target().as_bytes().to_vec(),
        headers: request
            .headers
            .iter()
            .map(|(n, v)| (n.clone(), v.as_bytes().to_vec()))
            .collect(),
        client_ip: "203.0.113.5".into(),
    };
    match gate.decide(&gate_request, now) {
        Decision::Reply(response) => response,
        Decision::FetchResource(admitted) => {
            admitted.respond(ResourceAnswer::Found(b"[]".to_vec()))
        }
    }
}

struct Harness {
    client: Client,
    gate: Gate,
    now: u64,
    latency: u64,
    in_flight: VecDeque<(u64, CallId, GateResponse)>,
}

impl Harness {
    /// Moves time to `to`, delivering every response due on the way.
    fn advance(&mut self, to: u64) {
        while let Some((due, _, _)) = self.in_flight.front() {
            if *due > to {
                break;
            }
            let (due, id, response) = self.in_flight.pop_front().unwrap();
            self.now = self.now.max(due);
            self.client
                .handle(id, Outcome::Response(response.into()), due)
                .unwrap();
            while let Some((_, event)) = self.client.poll_event() {
                assert!(!matches!(event, Event::Failed(_)), "{event:?}");
            }
        }
        self.now = self.now.max(to);
    }

    /// Sends everything due now; whether `id` was among them.
    fn transmit(&mut self, id: CallId) -> Result<bool, TestCaseError> {
        let mut sent = false;
        while let Some(transmit) = self.client.poll_transmit(self.now) {
            let response = answer(&self.gate, &transmit.request, self.now);
            prop_assert_ne!(
                response.status,
                429,
                "avoidable 429 at {} for {}",
                self.now - NOW,
                transmit.request.url
            );
            sent |= transmit.id == id;
            self.in_flight
                .push_back((self.now + self.latency, transmit.id, response));
        }
        Ok(sent)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A lone client (two keys of one user, several requests in flight)
    /// driven by its own `poll_timeout` never receives a 429 from the real
    /// gate, and a wait that nothing interrupted was long enough.
    #[test]
    fn a_client_that_follows_its_plans_never_meets_a_429(
        ops in proptest::collection::vec((0u8..4, 0u64..20_000), 1..80),
        latency in 0u64..3_000,
        start in 0u64..120_000,
        seed in any::<u64>(),
    ) {
        let config = ClientConfig::default()
            .with_credential(ClientCredential::api_key("main", ADA_KEY, "ada"))
            .with_credential(ClientCredential::api_key("ci", ADA_SECOND_KEY, "ada"));
        let mut harness = Harness {
            client: Client::new(config, Entropy::from_seed(seed)).unwrap(),
            gate: Gate::demo(GateConfig::default()).unwrap(),
            now: NOW + start,
            latency,
            in_flight: VecDeque::new(),
        };
        for (kind, gap) in ops {
            let target = harness.now + gap;
            harness.advance(target);
            let spec = match kind {
                0 => RequestSpec::list_table_records("t"),
                1 => RequestSpec::list_table_records("t").credential("ci"),
                2 => RequestSpec::list_connection_records("c", "e").param(ParamRole::Limit, "5"),
                _ => RequestSpec::get_api_index(),
            };
            let id = harness.client.start(spec).unwrap();
            while !harness.transmit(id)? {
                let wake = harness.client.poll_timeout().expect("the call waits");
                prop_assert!(wake > UnixMillis::new(harness.now));
                let next_delivery = harness.in_flight.front().map(|(due, _, _)| *due);
                let delivered = next_delivery.is_some_and(|due| due <= u64::from(wake));
                harness.advance(next_delivery.map_or(u64::from(wake), |due| due.min(u64::from(wake))));
                if !delivered {
                    // Liveness: nothing changed, so the wait was enough.
                    prop_assert!(harness.transmit(id)?, "still waiting at {}", harness.now - NOW);
                    break;
                }
            }
        }
        harness.advance(u64::MAX);
        prop_assert!(harness.client.is_idle());
    }
}
