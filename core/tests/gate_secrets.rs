//! No Debug, Display, response or error of the gate shows a secret: every
//! way a credential can be sent (valid, unknown, malformed, in the wrong
//! header, twice) is decided and everything printable is searched for it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use acd_core::gate::demo::{ADA_KEY, ADA_TOKEN};
use acd_core::gate::{Decision, Gate, GateConfig, GateRequest, ResourceAnswer};

const NOW: u64 = 1_700_000_000_000;
const UNKNOWN: &str = "acd_live_SECRETunknown";
const WRONG_PREFIX: &str = "zzz_SECRETwrongprefix";
const TOKEN_IN_KEY_HEADER: &str = "acd_oat_SECRETtoken";

fn requests() -> Vec<(GateRequest, &'static str)> {
    let get = |target: &str| GateRequest::get(target, "192.0.2.1");
    vec![
        (
            get("/api/v1/tables/t").with_header("X-API-Key", ADA_KEY),
            ADA_KEY,
        ),
        (
            get("/api/v1/tables/t").with_header("authorization", format!("Bearer {ADA_TOKEN}")),
            ADA_TOKEN,
        ),
        (
            get("/api/v1/tables/t").with_header("X-API-Key", UNKNOWN),
            UNKNOWN,
        ),
        (
            get("/api/v1/tables/t").with_header("X-API-Key", WRONG_PREFIX),
            WRONG_PREFIX,
        ),
        (
            get("/api/v1/tables/t").with_header("Authorization", format!("Bearer {WRONG_PREFIX}")),
            WRONG_PREFIX,
        ),
        (
            get("/api/v1/tables/t").with_header("Authorization", format!("Basic {WRONG_PREFIX}")),
            WRONG_PREFIX,
        ),
        (
            get("/api/v1/tables/t").with_header("x-api-key", TOKEN_IN_KEY_HEADER),
            TOKEN_IN_KEY_HEADER,
        ),
        (
            get("/api/v1/tables/t")
                .with_header("X-API-Key", ADA_KEY)
                .with_header("Authorization", format!("Bearer {ADA_TOKEN}")),
            ADA_KEY,
        ),
        (
            get("/api/v1/connections/c/records?entity_id=e")
                .with_header("Authorization", format!("Bearer {ADA_KEY}")),
            ADA_KEY,
        ),
        (
            get("/api/v1/nowhere").with_header("X-API-Key", ADA_KEY),
            ADA_KEY,
        ),
        (
            get("/api/v1?x=1").with_header("X-API-Key", ADA_KEY),
            ADA_KEY,
        ),
    ]
}

#[test]
fn request_debug_redacts_both_credential_headers() {
    let request = GateRequest::get("/api/v1/tables/t", "192.0.2.1")
        .with_header("X-API-Key", ADA_KEY)
        .with_header("Authorization", format!("Bearer {ADA_TOKEN}"))
        .with_header("Accept", "application/json");
    assert_eq!(
        format!("{request:?}"),
        "GateRequest { method: \"GET\", target: \"/api/v1/tables/t\", headers: \
         [(\"X-API-Key\", \"<redacted>\"), (\"Authorization\", \"<redacted>\"), \
         (\"Accept\", \"application/json\")], client_ip: \"192.0.2.1\" }"
    );
    assert_eq!(format!("{request:#?}").matches("<redacted>").count(), 2);
}

#[test]
fn nothing_the_gate_prints_or_answers_shows_the_secret() {
    let gate = Gate::demo(GateConfig::default()).unwrap();
    for (request, secret) in requests() {
        let mut shown = vec![
            format!("{request:?}"),
            format!("{request:#?}"),
            request.to_string(),
        ];
        let pending = gate.prepare(&request, NOW);
        shown.push(format!("{pending:?}"));
        let decision = pending.run(
            &*acd_core::limit::in_memory(Default::default(), Default::default()),
            NOW,
        );
        shown.push(format!("{decision:?}"));
        let response = match decision {
            Decision::Reply(response) => response,
            Decision::FetchResource(admitted) => {
                shown.push(format!("{admitted:?}"));
                admitted.respond(ResourceAnswer::NotFound)
            }
        };
        shown.push(format!("{response:?}"));
        shown.push(String::from_utf8_lossy(&response.body).into_owned());
        let secret_part = secret
            .trim_start_matches("acd_live_")
            .trim_start_matches("acd_oat_");
        for text in shown {
            assert!(
                !text.contains(secret_part),
                "{secret_part:?} shown in {text}"
            );
        }
    }
}
