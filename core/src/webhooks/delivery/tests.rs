use super::*;
use crate::webhooks::{verify, Secret};

fn secret() -> Secret {
    Secret::from_bytes(b"0123456789abcdef0123456789abcdef").unwrap()
}

fn planner(types: &[&str]) -> DeliveryPlanner {
    let mut p = DeliveryPlanner::new(PlannerConfig::default()).unwrap();
    p.add_endpoint(Endpoint {
        url: "http://127.0.0.1:9/hook".into(),
        secrets: vec![secret()],
        event_types: types.iter().map(|t| (*t).to_owned()).collect(),
    })
    .unwrap();
    p
}

fn event(id: &str, kind: &str) -> OutgoingEvent {
    OutgoingEvent {
        id: id.into(),
        event_type: kind.into(),
        body: Arc::from(br#"{"type":"run.queued","timestamp":"x","data":{}}"#.as_slice()),
    }
}

fn ms(n: u64) -> UnixMillis {
    UnixMillis::new(n)
}

#[test]
fn failures_follow_the_schedule_then_give_up() {
    let mut p = planner(&[]);
    let t0 = 1_000_000;
    p.enqueue(event("msg_1", "run.queued"), ms(t0));
    // Cumulative: 0, 5 s, 5 min 5 s, 35 min 5 s, 2 h 35 min 5 s, ...
    let expected = [
        0u64, 5_000, 305_000, 2_105_000, 9_305_000, 27_305_000, 63_305_000, 99_305_000,
    ];
    for (n, offset) in expected.iter().enumerate() {
        assert_eq!(p.poll_timeout(), Some(ms(t0 + offset)), "attempt {}", n + 1);
        if *offset > 0 {
            assert!(p.poll_transmit(ms(t0 + offset - 1)).is_none());
        }
        let tx = p.poll_transmit(ms(t0 + offset)).unwrap();
        assert_eq!(tx.number as usize, n + 1);
        assert_eq!(tx.event_id, "msg_1");
        verify(&[secret()], &tx.headers, &tx.body, ms(t0 + offset)).unwrap();
        assert!(p.handle(tx.attempt, AttemptOutcome::Response(500), ms(t0 + offset)));
        let record = p.poll_event().unwrap();
        assert_eq!(record.result, Some(AttemptResult::Failed { status: 500 }));
    }
    assert_eq!(p.poll_timeout(), None);
    assert_eq!(p.deliveries()[0].state, DeliveryState::GaveUp);
}

#[test]
fn success_is_2xx_within_the_timeout() {
    let mut p = planner(&[]);
    p.enqueue(event("msg_1", "run.queued"), ms(0));
    let tx = p.poll_transmit(ms(0)).unwrap();
    assert_eq!(tx.deadline, ms(DEFAULT_ATTEMPT_TIMEOUT_MS));
    // A 204 after the deadline is a timeout.
    assert!(p.handle(tx.attempt, AttemptOutcome::Response(204), ms(15_001)));
    assert_eq!(
        p.poll_event().unwrap().result,
        Some(AttemptResult::TimedOut)
    );
    let tx = p.poll_transmit(ms(15_001)).unwrap();
    assert_eq!(tx.number, 2);
    assert!(p.handle(tx.attempt, AttemptOutcome::Response(204), ms(15_002)));
    let record = p.poll_event().unwrap();
    assert_eq!(
        record.result,
        Some(AttemptResult::Succeeded { status: 204 })
    );
    assert_eq!(record.state, DeliveryState::Succeeded);
    assert_eq!(p.poll_timeout(), None);
    // A late outcome of an ended attempt is ignored.
    assert!(!p.handle(tx.attempt, AttemptOutcome::Response(500), ms(15_003)));
}

#[test]
fn no_answer_by_the_deadline_times_out() {
    let mut p = planner(&[]);
    p.enqueue(event("msg_1", "run.queued"), ms(0));
    let tx = p.poll_transmit(ms(0)).unwrap();
    assert_eq!(p.poll_timeout(), Some(ms(15_000)));
    assert!(p.poll_transmit(ms(15_000)).is_some());
    assert_eq!(
        p.poll_event().unwrap().result,
        Some(AttemptResult::TimedOut)
    );
    assert!(!p.handle(tx.attempt, AttemptOutcome::Response(200), ms(15_000)));
}

#[test]
fn redelivery_makes_one_more_attempt() {
    let mut p = planner(&[]);
    let ids = p.enqueue(event("msg_1", "run.queued"), ms(0));
    let tx = p.poll_transmit(ms(0)).unwrap();
    p.handle(tx.attempt, AttemptOutcome::Response(200), ms(0));
    assert_eq!(
        p.redeliver(99, ms(1)),
        Err(PlannerError::UnknownDelivery(99))
    );
    p.redeliver(ids[0], ms(10)).unwrap();
    let again = p.poll_transmit(ms(10)).unwrap();
    assert_eq!(again.event_id, "msg_1");
    assert_eq!(again.number, 2);
    assert_eq!(
        p.redeliver(ids[0], ms(10)),
        Err(PlannerError::InFlight(ids[0]))
    );
    p.handle(again.attempt, AttemptOutcome::Response(500), ms(10));
    // A failed redelivery is not retried.
    assert_eq!(p.poll_timeout(), None);
}

#[test]
fn filters_by_event_type() {
    let mut p = planner(&["run.succeeded"]);
    assert!(p.enqueue(event("msg_1", "run.queued"), ms(0)).is_empty());
    assert_eq!(p.enqueue(event("msg_2", "run.succeeded"), ms(0)).len(), 1);
}

#[test]
fn a_dead_endpoint_costs_bounded_memory() {
    let config = PlannerConfig {
        max_pending_per_endpoint: 3,
        max_in_flight_per_endpoint: 1,
        max_finished: 2,
        ..PlannerConfig::default()
    };
    let mut p = DeliveryPlanner::new(config).unwrap();
    p.add_endpoint(Endpoint {
        url: "http://x".into(),
        secrets: vec![secret()],
        event_types: vec![],
    })
    .unwrap();
    for n in 0..100 {
        p.enqueue(event(&format!("msg_{n}"), "run.queued"), ms(n));
        assert!(p.deliveries().len() <= 5);
    }
    let dropped = std::iter::from_fn(|| p.poll_event())
        .filter(|r| r.state == DeliveryState::Dropped)
        .count();
    assert_eq!(dropped, 97);
}
