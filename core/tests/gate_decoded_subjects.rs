//! Limits keyed by a path parameter count its DECODED value: however a
//! client spells an agent id (`a1`, `a%31`, `%61%31`), every spelling
//! shares the agent's one 30-per-60 s bucket.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use acd_core::gate::demo::{ADA_KEY, ADA_SECOND_KEY, BOB_KEY};
use acd_core::gate::{Decision, Gate, GateConfig, GateRequest, ResourceAnswer};
use acd_core::model::Catalogue;
use proptest::prelude::*;

const NOW: u64 = 1_699_999_980_000;

fn spell(id: &str, encode: &[bool]) -> String {
    id.bytes()
        .zip(encode.iter().cycle())
        .map(|(byte, &encoded)| {
            if encoded {
                format!("%{byte:02X}")
            } else {
                char::from(byte).to_string()
            }
        })
        .collect()
}

fn create(gate: &Gate, spelled: &str, key: &str, at: u64) -> u16 {
    let request = GateRequest {
        method: "POST".into(),
        ..GateRequest::get(format!("/api/v1/agents/{spelled}/runs"), "192.0.2.1")
            .with_header("X-API-Key", key)
    };
    match gate.decide(&request, at) {
        Decision::Reply(response) => response.status,
        Decision::FetchResource(admitted) => {
            let decoded = percent_decode(spelled);
            assert_eq!(admitted.path_param("agent_id"), Some(decoded.as_str()));
            admitted
                .respond(ResourceAnswer::Found(b"{}".to_vec()))
                .status
        }
    }
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            out.push(u8::from_str_radix(&text[at + 1..at + 3], 16).unwrap());
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn every_spelling_of_an_agent_shares_its_bucket(
        id in "[a-z0-9]{1,6}",
        spellings in prop::collection::vec(prop::collection::vec(any::<bool>(), 1..6), 31),
    ) {
        let mut config = GateConfig::default();
        config.catalogue.add(Catalogue::create_agent_run()).unwrap();
        let gate = Gate::demo(config).unwrap();
        // Three credentials of two users, so only the agent limit (30) can refuse.
        let keys = [ADA_KEY, ADA_SECOND_KEY, BOB_KEY];
        for (n, encode) in spellings.iter().enumerate() {
            let spelled = spell(&id, encode);
            let status = create(&gate, &spelled, keys[n % 3], NOW + n as u64);
            let expected = if n < 30 { 200 } else { 429 };
            prop_assert_eq!(status, expected, "request {} as {:?}", n + 1, spelled);
        }
    }
}
