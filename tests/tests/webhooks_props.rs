//! Invariants of webhook signing: what `sign` makes, `verify` accepts at
//! any time within the tolerance, and any change to the id, the
//! timestamp, the body or the secret is refused.

use acd_core::webhooks::{run_event_body, signed_headers, verify, RunEventType, Secret};
use acd_core::UnixMillis;
use proptest::prelude::*;

fn headers(secret: &Secret, id: &str, ts: u64, body: &[u8]) -> Vec<(String, String)> {
    signed_headers(std::slice::from_ref(secret), id, ts, body)
}

proptest! {
    #[test]
    fn sign_then_verify_roundtrips(
        key in proptest::collection::vec(any::<u8>(), 1..64),
        id in "[a-zA-Z0-9_]{1,40}",
        ts in 0u64..4_000_000_000,
        skew in -300_000i64..=300_999,
        kind in 0usize..5,
        run_id in "[a-z0-9_]{1,20}",
    ) {
        let secret = Secret::from_bytes(&key).unwrap();
        let kind = RunEventType::ALL[kind];
        let run = serde_json::json!({"id": run_id, "status": kind.as_str().trim_start_matches("run.")});
        let body = run_event_body(kind, &run, UnixMillis::new(ts * 1000));
        let now = UnixMillis::new(ts * 1000).saturating_add_signed(skew);
        let event = verify(std::slice::from_ref(&secret), &headers(&secret, &id, ts, &body), &body, now).unwrap();
        prop_assert_eq!(&event.id, &id);
        prop_assert_eq!(event.webhook_timestamp, ts);
        let decoded = event.run_event().unwrap();
        prop_assert_eq!(decoded.kind, kind);
        prop_assert_eq!(decoded.run.id, run_id);
        // The secret survives its text form.
        prop_assert_eq!(Secret::parse(&secret.to_whsec()).unwrap(), secret);
    }

    #[test]
    fn any_tamper_fails(
        key in proptest::collection::vec(any::<u8>(), 1..64),
        other_key in proptest::collection::vec(any::<u8>(), 1..64),
        id in "[a-z0-9_]{1,20}",
        ts in 1_000u64..4_000_000_000,
        flip in any::<proptest::sample::Index>(),
        bit in 0u8..8,
        which in 0usize..4,
    ) {
        let secret = Secret::from_bytes(&key).unwrap();
        let body = run_event_body(RunEventType::Queued, &serde_json::json!({"id": "run_1", "status": "queued"}), UnixMillis::new(ts * 1000));
        let now = UnixMillis::new(ts * 1000);
        let mut hs = headers(&secret, &id, ts, &body);
        let mut tampered = body.clone();
        let mut secrets = vec![secret.clone()];
        match which {
            0 => { let n = flip.index(tampered.len()); tampered[n] ^= 1 << bit; }
            1 => hs[0].1.push('x'),
            2 => hs[1].1 = (ts - 1).to_string(),
            _ => {
                prop_assume!(other_key != key);
                secrets = vec![Secret::from_bytes(&other_key).unwrap()];
            }
        }
        let error = verify(&secrets, &hs, &tampered, now).unwrap_err();
        prop_assert_eq!(error.code(), "no_matching_signature");
    }
}
