//! Webhook verification and its header parsers on arbitrary bytes: the
//! first line is `webhook-id`, the second `webhook-timestamp`, the third
//! `webhook-signature`, the rest the body. Verifying must never panic, and
//! what verifies must be the body that was signed.
#![no_main]

use acd_core::webhooks::{
    parse_headers, parse_signatures, parse_timestamp, sign, Secret, Verifier,
};
use acd_core::UnixMillis;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let mut parts = bytes.splitn(4, |b| *b == b'\n');
    let text = |part: Option<&[u8]>| String::from_utf8_lossy(part.unwrap_or_default()).into_owned();
    let (id, timestamp, signature) = (text(parts.next()), text(parts.next()), text(parts.next()));
    let body = parts.next().unwrap_or_default();
    let _ = parse_timestamp(&timestamp);
    let _ = parse_signatures(&signature);
    let _ = Secret::parse(&signature);
    let headers = [
        ("webhook-id", id.as_str()),
        ("webhook-timestamp", timestamp.as_str()),
        ("webhook-signature", signature.as_str()),
    ];
    let _ = parse_headers(&headers);
    let Ok(secret) = Secret::from_bytes(b"fuzz-secret-fuzz-secret!") else {
        return;
    };
    let Ok(verifier) = Verifier::new(vec![secret.clone()]) else {
        return;
    };
    let now = UnixMillis::new(1_700_000_000_000);
    let _ = verifier.verify(&headers, body, now);
    // The fuzzed id and body, signed for real: verifies unless a header or
    // the payload is refused, and a flipped body byte never verifies.
    let signed = sign(&secret, &id, 1_700_000_000, body);
    let good = [
        ("webhook-id", id.as_str()),
        ("webhook-timestamp", "1700000000"),
        ("webhook-signature", signed.as_str()),
    ];
    if let Err(error) = verifier.verify(&good, body, now) {
        assert_ne!(error.code(), "no_matching_signature", "{error}");
    }
    if let Some((first, rest)) = body.split_first() {
        let mut tampered = vec![first ^ 1];
        tampered.extend_from_slice(rest);
        if let Err(error) = verifier.verify(&good, &tampered, now) {
            assert_ne!(error.code(), "bad_payload", "a tampered body was decoded");
        } else {
            panic!("a tampered body verified");
        }
    }
});
