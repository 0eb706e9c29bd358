//! Tests of the configuration file: JSON paths in errors, defaults, limits,
//! and the one dialect shared with core's `GateConfig`.

use super::*;
use acd_core::gate::{Decision, GateRequest};
use acd_core::model::ids;
use acd_core::model::USER_TABLE_READS_NAME;

fn local() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 4321))
}

fn built(json: &str) -> Built {
    parse(json.as_bytes()).unwrap().build(local()).unwrap()
}

fn error(json: &str) -> String {
    match parse(json.as_bytes()).and_then(|file| file.build(local())) {
        Ok(_) => panic!("{json} should be refused"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn empty_config_is_the_demo_on_the_listen_address() {
    let built = built("{}");
    let config = built.gate.config();
    assert_eq!(config.base_url, "http://127.0.0.1:4321");
    assert_eq!(
        config.stable_egress_url.as_deref(),
        Some("http://127.0.0.1:4321/egress")
    );
    assert!(built.demo.all());
    assert!(config.catalogue.get(ids::CREATE_AGENT_RUN).is_some());
    assert!(config
        .catalogue
        .get(acd_core::model::ids::GET_RUN)
        .is_some());
}

#[test]
fn stable_egress_url_moves_with_base_url_unless_set_too() {
    let moved = built(r#"{"base_url": "https://sandbox.example.com"}"#);
    assert_eq!(
        moved.gate.config().stable_egress_url.as_deref(),
        Some("https://sandbox.example.com/egress")
    );
    let both = built(
        r#"{"base_url": "https://sandbox.example.com", "stable_egress_url": "https://egress.example.com/out"}"#,
    );
    assert_eq!(
        both.gate.config().stable_egress_url.as_deref(),
        Some("https://egress.example.com/out")
    );
    let none = built(r#"{"stable_egress_url": null}"#);
    assert_eq!(none.gate.config().stable_egress_url, None);
}

#[test]
fn a_gate_config_document_is_a_configuration_as_it_is() {
    let mut gate = GateConfig::default();
    gate.limits.credential = Quota {
        requests: 3,
        window_ms: 1_500,
    };
    gate.index.name = "Shared".into();
    let json = serde_json::to_string(&gate).unwrap();
    let built = built(&json);
    let config = built.gate.config();
    assert_eq!(config.limits.credential, gate.limits.credential);
    assert_eq!(config.index.name, "Shared");
    // Written with the sandbox's default base URL, the file's own wins.
    assert_eq!(config.base_url, gate.base_url);
}

#[test]
fn errors_name_the_json_path() {
    assert_eq!(
        error(r#"{"credentials":[{"secret":"acd_live_x","kind":"apikey","user":"u"}]}"#),
        "at `credentials[0].kind`: unknown variant `apikey`, expected `api_key` or `oauth2`"
    );
    assert_eq!(
        error(r#"{"limits":{"credential":{"requests":"many","window_ms":1}}}"#),
        "at `limits.credential.requests`: invalid type: string \"many\", expected u32"
    );
    assert_eq!(
        error(r#"{"limits":{"credential":{"requests":5,"window_seconds":60}}}"#),
        "at `limits.credential.window_seconds`: unknown field `window_seconds`, expected \
         `requests` or `window_ms`"
    );
    assert_eq!(
        error(r#"{"limits":{"per_agent":{}}}"#),
        "at `limits.per_agent`: unknown field `per_agent`, expected `credential` or `client_ip`"
    );
    assert_eq!(
        error(r#"{"index":{"trial":{"available":true,"duration_days":0,"invite_required":true}}}"#),
        "at `index.trial.duration_days`: is 0 but must be at least 1 (index field `onboarding.trial.duration_days`)"
    );
    assert_eq!(
        error(r#"{"tables":[{"id":"t","owner":"a"},{"id":"t","owner":"b"}]}"#),
        "at `tables[1].id`: \"t\" is given twice; table ids must be unique"
    );
    assert_eq!(
        error(r#"{"credentials":[{"secret":"acd_oat_x","kind":"api_key","user":"u"}]}"#),
        "at `credentials[0].secret`: a credential of type api_key must start with api_key_prefix \"acd_live_\""
    );
    assert_eq!(
        error(r#"{"extra_limits":{"user_table_reads":{"requests":1,"window_ms":0}}}"#),
        "at `extra_limits.user_table_reads.window_ms`: must be at least 1"
    );
    assert_eq!(
        error(r#"{"limits":{"client_ip":{"requests":0,"window_ms":10}}}"#),
        "at `limits.client_ip.requests`: must be at least 1 (0 would refuse every request)"
    );
    assert_eq!(
        error(r#"{"extra_limits":{"per_planet":{"requests":1,"window_ms":1}}}"#),
        "at `extra_limits.per_planet`: names no limit of the catalogue; its operation limits are: user_table_reads, agent_runs"
    );
    assert_eq!(
        error(r#"{"base_url":"http://x/"}"#),
        "at `base_url`: must not end with '/'"
    );
    assert_eq!(
        error(r#"{"api_key_prefix":"k_"}"#),
        "at `api_key_prefix`: the built-in demo credentials need the prefixes acd_live_ and acd_oat_; with api_key_prefix \"k_\", give `credentials` too"
    );
    assert_eq!(
        error("[]"),
        "at `(document)`: the configuration must be a JSON object, e.g. {\"limits\": {\"credential\": {\"requests\": 1000, \"window_ms\": 60000}}}"
    );
    assert_eq!(
        error("{} x"),
        "at `(document)`: trailing characters at line 1 column 4"
    );
    assert_eq!(
        error(r#"{"name": "x"}"#),
        "at `name`: is not a configuration member; the members are: api_key_prefix, base_url, \
         catalogue, index, limits, oauth_token_prefix, realm, stable_egress_header, \
         stable_egress_url, version, version_deprecation, credentials, tables, connections, \
         extra_limits, runs, faults, webhooks"
    );
    assert_eq!(
        error(r#"{"runs": {"lifecycle": [{"status": "queued", "duration_ms": 10}]}}"#),
        "at `runs.lifecycle[0].status`: the last step must be terminal: one of succeeded, failed, cancelled"
    );
    assert_eq!(
        error(r#"{"faults": {"rules": [{"path": "/x"}]}}"#),
        "at `faults.rules[0]`: give exactly one of status, latency_ms, drop: true or truncate: true"
    );
}

#[test]
fn limits_credentials_and_data_are_applied() {
    let json = r#"{
        "base_url": "https://sandbox.example.com",
        "limits": {"credential": {"requests": 7, "window_ms": 60000}},
        "extra_limits": {"user_table_reads": {"requests": 2, "window_ms": 5000}},
        "credentials": [
            {"secret": "acd_live_k1", "kind": "api_key", "user": "zoe"},
            {"secret": "acd_oat_t1", "kind": "oauth2", "user": "zoe", "scopes": ["tables:read"], "expires_at": 4102444800000}
        ],
        "tables": [{"id": "t1", "owner": "zoe", "records": [{"a": 1}]}]
    }"#;
    let built = built(json);
    assert_eq!(
        built.demo,
        DemoParts {
            credentials: false,
            tables: false,
            connections: true
        }
    );
    let config = built.gate.config();
    assert_eq!(config.limits.credential, Quota::per_seconds(7, 60));
    let tables = config.catalogue.get(ids::LIST_TABLE_RECORDS).unwrap();
    assert_eq!(tables.extra_limits[0].name, USER_TABLE_READS_NAME);
    assert_eq!(tables.extra_limits[0].quota, Quota::per_seconds(2, 5));
    assert_eq!(built.gate.index().rate_limits.requests, 7);
    let request = GateRequest::get("/api/v1/tables/t1", "127.0.0.1")
        .with_header("Authorization", "Bearer acd_oat_t1");
    let Decision::FetchResource(admitted) = built.gate.decide(&request, 1_700_000_000_000) else {
        panic!("the token should be admitted");
    };
    let response = built.store.respond(*admitted);
    assert_eq!(response.body, br#"{"data":[{"a":1}]}"#);
    assert_eq!(response.header("RateLimit-Limit"), Some("2"));
    // expires_at is Unix milliseconds, as in core's CredentialRecord.
    let Decision::Reply(expired) = built.gate.decide(&request, 4_102_444_800_000) else {
        panic!("the token has expired");
    };
    assert_eq!(expired.status, 401);
}

#[test]
fn index_settings_are_the_index_member() {
    let built = built(
        r#"{"index": {"name": "Zoe's sandbox", "trial": {"available": false, "duration_days": 7, "invite_required": false}}}"#,
    );
    assert_eq!(built.gate.index().name, "Zoe's sandbox");
    assert_eq!(built.gate.index().onboarding.trial.duration_days, 7);
    assert_eq!(
        error(r#"{"index": {"documentation_url": "not a url"}}"#),
        "at `index.documentation_url`: \"not a url\" is not an absolute URI (it needs a scheme such as https://) (index field `documentation_url`)"
    );
    assert_eq!(
        error(r#"{"index": {"trial": {"available": true}}}"#),
        "at `index.trial`: missing field `duration_days`"
    );
}

#[test]
fn agent_run_limits_can_be_changed() {
    let built = built(r#"{"extra_limits": {"agent_runs": {"requests": 2, "window_ms": 1000}}}"#);
    let runs = built
        .gate
        .config()
        .catalogue
        .get(ids::CREATE_AGENT_RUN)
        .unwrap();
    assert_eq!(
        runs.extra_limits[0].quota,
        Quota {
            requests: 2,
            window_ms: 1_000
        }
    );
}

#[test]
fn the_published_schema_names_exactly_the_members_read_here() {
    let schema: Value = serde_json::from_str(include_str!("../../config.schema.json")).unwrap();
    let named: std::collections::BTreeSet<String> = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    let mut read: std::collections::BTreeSet<String> = gate_members().into_iter().collect();
    read.extend(SANDBOX_MEMBERS.iter().map(|member| (*member).to_owned()));
    assert_eq!(named, read);
}

#[test]
fn a_member_with_an_empty_name_is_named_too() {
    // Found by the sandbox_config fuzz target: the path was empty.
    for bytes in [&b"{\"\": 1}"[..], &b"\n{\"\":\x06\x00\x00\x04\xac"[..]] {
        let error = parse(bytes).err().unwrap();
        assert_eq!(error.path, "(member \"\")", "{error:?}");
        assert!(!error.problem.is_empty());
    }
    assert_eq!(
        parse(br#"{"credentials": [{"": 1}]}"#).err().unwrap().path,
        "credentials[0]."
    );
}
