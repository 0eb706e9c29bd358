//! Properties of the gate over arbitrary input: it never panics, every
//! non-2xx body is an `Error` whose `status` is the HTTP status, and every
//! response carries the three `RateLimit-*` headers.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use acd_core::gate::{Decision, Gate, GateConfig, GateRequest, GateResponse, ResourceAnswer};
use acd_core::model::ErrorBody;
use proptest::prelude::*;

fn gate() -> Gate {
    Gate::demo(GateConfig::default()).unwrap()
}

fn target() -> impl Strategy<Value = Vec<u8>> {
    let prefix = prop_oneof![
        Just(b"/api/v1".to_vec()),
        Just(b"/api/v1/tables/".to_vec()),
        Just(b"/api/v1/connections/c/records".to_vec()),
        Just(b"/egress/v1/connections/".to_vec()),
        Just(b"/api/v2/".to_vec()),
        Just(Vec::new()),
    ];
    let tail = prop::collection::vec(
        prop_oneof![
            any::<u8>(),
            Just(b'%'),
            Just(b'&'),
            Just(b'='),
            Just(b'?'),
            Just(b'/'),
            Just(b'+'),
        ],
        0..80,
    );
    (prefix, tail).prop_map(|(mut prefix, tail)| {
        prefix.extend(tail);
        prefix
    })
}

fn headers() -> impl Strategy<Value = Vec<(String, Vec<u8>)>> {
    let name = prop_oneof![
        Just("X-API-Key".to_owned()),
        Just("Authorization".to_owned()),
        Just("X-Stable-Egress".to_owned()),
        "[a-zA-Z-]{1,12}",
    ];
    let value = prop_oneof![
        Just(b"acd_live_demo_ada".to_vec()),
        Just(b"Bearer acd_oat_demo_ada_tables".to_vec()),
        Just(b"Bearer acd_oat_demo_ada_noscope".to_vec()),
        Just(b"true".to_vec()),
        prop::collection::vec(any::<u8>(), 0..40),
    ];
    prop::collection::vec((name, value), 0..4)
}

fn answer() -> impl Strategy<Value = ResourceAnswer> {
    prop_oneof![
        Just(ResourceAnswer::Found(b"[]".to_vec())),
        Just(ResourceAnswer::NotFound),
        Just(ResourceAnswer::Forbidden),
        Just(ResourceAnswer::Invalid(vec![])),
    ]
}

fn check(response: &GateResponse) -> Result<(), TestCaseError> {
    for name in ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"] {
        let value = response.header(name);
        prop_assert!(value.is_some(), "{name} missing on {}", response.status);
        prop_assert!(value.unwrap_or_default().parse::<u64>().is_ok());
    }
    if !(200..300).contains(&response.status) {
        let body = ErrorBody::from_slice(&response.body);
        prop_assert!(body.is_ok(), "body is not an Error: {:?}", response.body);
        prop_assert_eq!(body.unwrap().status, Some(response.status));
    }
    if response.status == 429 {
        prop_assert!(response.header("Retry-After").is_some());
        prop_assert!(response.header("x-ratelimit-reset").is_some());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn any_request_gets_a_well_formed_response(
        method in prop_oneof![Just("GET".to_owned()), Just("POST".to_owned()), "[A-Za-z]{0,8}"],
        target in target(),
        headers in headers(),
        client_ip in "[0-9a-f.:]{0,20}",
        now in prop_oneof![Just(0u64), Just(u64::MAX), any::<u64>(), 1_600_000_000_000u64..1_800_000_000_000],
        answer in answer(),
        repeats in 1usize..8,
    ) {
        let gate = gate();
        let request = GateRequest { method, target, headers, client_ip };
        for _ in 0..repeats {
            let response = match gate.decide(&request, now) {
                Decision::Reply(response) => response,
                Decision::FetchResource(admitted) => admitted.respond(answer.clone()),
            };
            check(&response)?;
        }
    }
}
