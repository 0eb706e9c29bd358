//! Tests of the configuration file: JSON paths in errors, defaults, limits.

use super::*;
use acd_core::gate::{Decision, GateRequest};

fn local() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 4321))
}

fn error(json: &str) -> String {
    match parse(json.as_bytes()).and_then(|file| file.build(local())) {
        Ok(_) => panic!("{json} should be refused"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn empty_config_is_the_demo_on_the_listen_address() {
    let built = parse(b"{}").unwrap().build(local()).unwrap();
    let config = built.gate.config();
    assert_eq!(config.base_url, "http://127.0.0.1:4321");
    assert_eq!(
        config.stable_egress_url.as_deref(),
        Some("http://127.0.0.1:4321/egress")
    );
    assert!(built.demo.all());
}

#[test]
fn errors_name_the_json_path() {
    assert_eq!(
        error(r#"{"credentials":[{"secret":"acd_live_x","type":"apikey","user":"u"}]}"#),
        "at `credentials[0].type`: unknown variant `apikey`, expected `api_key` or `oauth2`"
    );
    assert_eq!(
        error(r#"{"limits":{"credential":{"requests":"many"}}}"#),
        "at `limits.credential.requests`: invalid type: string \"many\", expected u32"
    );
    assert_eq!(
        error(r#"{"limits":{"per_agent":{}}}"#),
        "at `limits.per_agent`: unknown field `per_agent`, expected one of `credential`, `client_ip`, `user_table_reads`"
    );
    assert_eq!(
        error(r#"{"trial":{"available":true,"duration_days":0,"invite_required":true}}"#),
        "at `trial.duration_days`: is 0 but must be at least 1 (index field `onboarding.trial.duration_days`)"
    );
    assert_eq!(
        error(r#"{"tables":[{"id":"t","owner":"a"},{"id":"t","owner":"b"}]}"#),
        "at `tables[1].id`: \"t\" is given twice; table ids must be unique"
    );
    assert_eq!(
        error(r#"{"credentials":[{"secret":"acd_oat_x","type":"api_key","user":"u"}]}"#),
        "at `credentials[0].secret`: a credential of type api_key must start with api_key_prefix \"acd_live_\""
    );
    assert_eq!(
        error(r#"{"limits":{"user_table_reads":{"window_seconds":0}}}"#),
        "at `limits.user_table_reads.window_seconds`: must be at least 1"
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
        "at `(document)`: the configuration must be a JSON object, e.g. {\"limits\": {\"credential\": {\"requests\": 1000}}}"
    );
    assert_eq!(
        error("{} x"),
        "at `(document)`: trailing characters at line 1 column 4"
    );
}

#[test]
fn limits_credentials_and_data_are_applied() {
    let json = r#"{
        "base_url": "https://sandbox.example.com",
        "limits": {"credential": {"requests": 7}, "user_table_reads": {"requests": 2, "window_seconds": 5}},
        "credentials": [
            {"secret": "acd_live_k1", "type": "api_key", "user": "zoe"},
            {"secret": "acd_oat_t1", "type": "oauth2", "user": "zoe", "scopes": ["tables:read"], "expires_at": 4102444800}
        ],
        "tables": [{"id": "t1", "owner": "zoe", "records": [{"a": 1}]}]
    }"#;
    let built = parse(json.as_bytes()).unwrap().build(local()).unwrap();
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
    assert_eq!(tables.extra_limits[0].quota, Quota::per_seconds(2, 5));
    assert_eq!(built.gate.index().rate_limits.requests, 7);
    let request = GateRequest::get("/api/v1/tables/t1", "127.0.0.1")
        .header("Authorization", "Bearer acd_oat_t1");
    let Decision::FetchResource(admitted) = built.gate.decide(&request, 1_700_000_000_000) else {
        panic!("the token should be admitted");
    };
    let response = built.store.respond(*admitted);
    assert_eq!(response.body, br#"{"data":[{"a":1}]}"#);
    assert_eq!(response.header("RateLimit-Limit"), Some("2"));
}

#[test]
fn index_settings_are_top_level_members() {
    let built = parse(br#"{"name": "Zoe's sandbox", "trial": {"available": false, "duration_days": 7, "invite_required": false}}"#)
        .unwrap()
        .build(local())
        .unwrap();
    assert_eq!(built.gate.index().name, "Zoe's sandbox");
    assert_eq!(built.gate.index().onboarding.trial.duration_days, 7);
    assert_eq!(
        error(r#"{"documentation_url": "not a url"}"#),
        "at `documentation_url`: \"not a url\" is not an absolute URI (it needs a scheme such as https://) (index field `documentation_url`)"
    );
    assert_eq!(
        error(r#"{"limits": {}, "index": {"name": "x"}}"#),
        "at `index`: is not a configuration member; the members are: base_url, stable_egress_url, \
         api_key_prefix, oauth_token_prefix, credentials, tables, connections, limits, \
         access_request_url, description, developers_url, documentation_url, llms_txt_url, \
         minimum_sunset_notice_days, name, oauth_metadata_url, openapi_url, \
         public_sandbox_available, scopes_supported, trial, webhooks_documentation_url"
    );
    assert_eq!(
        error(r#"{"trial": {"available": true}}"#),
        "at `trial`: missing field `duration_days`"
    );
}
