//! Tests of the configuration and its defaults, expected values written by
//! hand from `docs/driver-protocol.md` and `docs/client-defaults.md`.

use super::*;
use crate::client::ErrorCategory;

fn read(json: &str) -> Result<ClientConfig, ClientError> {
    ClientConfig::from_json(json.as_bytes())
}

fn refusal(json: &str) -> (String, String) {
    match read(json) {
        Err(ClientError::InvalidConfig { field, problem }) => (field, problem),
        other => panic!("expected a config error for {json}, got {other:?}"),
    }
}

#[test]
fn checks_urls_and_credentials() {
    assert!(ClientConfig::default().check().is_ok());
    let bad = ClientConfig {
        base_url: "http://h/".into(),
        ..ClientConfig::default()
    };
    assert_eq!(
        bad.check(),
        Err(ClientError::InvalidConfig {
            field: "base_url".into(),
            problem: "\"http://h/\" must not end with '/'".into()
        })
    );
    let twice = ClientConfig::default()
        .with_credential(ClientCredential::api_key("a", "acd_live_x", "ada"))
        .with_credential(ClientCredential::api_key("a", "acd_live_y", "ada"));
    assert!(twice.check().is_err());
    let shown = format!(
        "{:?}",
        ClientCredential::api_key("a", "acd_live_secret", "ada")
    );
    assert!(!shown.contains("acd_live_secret"));
}

#[test]
fn an_empty_document_is_the_default_configuration() {
    let config = read("{}").unwrap();
    assert_eq!(config, ClientConfig::default());
    assert_eq!(config.base_url, "http://127.0.0.1:8080");
    assert_eq!(
        config.stable_egress_url.as_deref(),
        Some("http://127.0.0.1:8080/egress")
    );
    assert!(config.credentials.is_empty());
}

#[test]
fn a_bare_key_is_the_default_credential_of_every_language() {
    let config = read(r#"{"api_key": "acd_live_demo_ada"}"#).unwrap();
    assert_eq!(config.credentials.len(), 1);
    let credential = &config.credentials[0];
    assert_eq!(
        (
            credential.id.as_str(),
            credential.user.as_str(),
            credential.kind
        ),
        ("default", "default", CredentialKind::ApiKey)
    );
    assert_eq!(credential.secret.expose(), "acd_live_demo_ada");
    assert_eq!(
        serde_json::to_value(credential).unwrap(),
        serde_json::json!({"id": "default", "type": "api_key", "secret": "acd_live_demo_ada", "user": "default"})
    );
    // Beside listed credentials it comes first, so it is the one used when
    // a request names none.
    let both = read(
        r#"{"api_key": "acd_live_a",
            "credentials": [{"id": "ci", "type": "api_key", "secret": "acd_live_b", "user": "ci"}]}"#,
    )
    .unwrap();
    let ids: Vec<&str> = both.credentials.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["default", "ci"]);
}

#[test]
fn a_bad_bare_key_is_refused_without_showing_it() {
    let (field, problem) = refusal(r#"{"api_key": "acd live"}"#);
    assert_eq!(field, "api_key");
    assert_eq!(
        problem,
        "the key must be 1 to 4096 visible ASCII characters without quotes, commas or backslashes"
    );
    let (field, problem) = refusal(r#"{"env": {"ACD_API_KEY": "acd,live"}}"#);
    assert_eq!(field, "api_key");
    assert!(problem.ends_with("(read from ACD_API_KEY)"), "{problem}");
    assert!(!problem.contains("acd,live"), "{problem}");
}

#[test]
fn credentials_read_the_type_member_and_still_the_older_kind() {
    let config = read(
        r#"{"credentials": [
            {"id": "a", "type": "oauth2", "secret": "acd_oat_x", "user": "ada"},
            {"id": "b", "kind": "api_key", "secret": "acd_live_y", "user": "bob"}]}"#,
    )
    .unwrap();
    let kinds: Vec<CredentialKind> = config.credentials.iter().map(|c| c.kind).collect();
    assert_eq!(kinds, [CredentialKind::OAuthToken, CredentialKind::ApiKey]);
}

#[test]
fn the_environment_fills_only_what_the_document_leaves_unset() {
    let env =
        r#""env": {"ACD_API_KEY": "acd_live_env", "ACD_BASE_URL": "https://env.example.com/"}"#;
    let only_env = read(&format!("{{{env}}}")).unwrap();
    assert_eq!(only_env.base_url, "https://env.example.com");
    assert_eq!(
        only_env.stable_egress_url.as_deref(),
        Some("https://env.example.com/egress")
    );
    assert_eq!(only_env.credentials[0].id, "default");
    assert_eq!(only_env.credentials[0].user, "default");
    assert_eq!(only_env.credentials[0].secret.expose(), "acd_live_env");

    let given = read(&format!(
        r#"{{"base_url": "https://api.example.com", "api_key": "acd_live_given", {env}}}"#
    ))
    .unwrap();
    assert_eq!(given.base_url, "https://api.example.com");
    assert_eq!(given.credentials.len(), 1);
    assert_eq!(given.credentials[0].secret.expose(), "acd_live_given");

    // Listed credentials are a credential set too: the variable stays unused.
    let listed = read(&format!(
        r#"{{"credentials": [{{"id": "ci", "type": "api_key", "secret": "acd_live_ci", "user": "ci"}}], {env}}}"#
    ))
    .unwrap();
    let ids: Vec<&str> = listed.credentials.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["ci"]);

    // Empty or null variables are unset.
    let empty = read(r#"{"env": {"ACD_API_KEY": "", "ACD_BASE_URL": null}}"#).unwrap();
    assert_eq!(empty.base_url, "http://127.0.0.1:8080");
    assert!(empty.credentials.is_empty());
    let (field, problem) = refusal(r#"{"env": {"ACD_BASE_URL": "ftp://files.example.com"}}"#);
    assert_eq!(field, "base_url");
    assert_eq!(
        problem,
        "\"ftp://files.example.com\" must start with http:// or https:// (read from ACD_BASE_URL)"
    );
}

#[test]
fn one_trailing_slash_is_removed_and_only_http_urls_pass() {
    assert_eq!(
        normalise_base_url("https://api.example.com/").unwrap(),
        "https://api.example.com"
    );
    assert_eq!(
        normalise_base_url("https://api.example.com/acd/").unwrap(),
        "https://api.example.com/acd"
    );
    assert_eq!(
        normalise_base_url("http://127.0.0.1:8080").unwrap(),
        "http://127.0.0.1:8080"
    );
    // One slash, not every one: the rest is still refused.
    assert_eq!(
        normalise_base_url("https://api.example.com//").unwrap_err(),
        ClientError::InvalidConfig {
            field: "base_url".into(),
            problem: "\"https://api.example.com/\" must not end with '/'".into()
        }
    );
    for (given, problem) in [
        (
            "ftp://h.example",
            "\"ftp://h.example\" must start with http:// or https://",
        ),
        (
            "api.example.com",
            "\"api.example.com\" is not a URL (RFC 3986); write it like https://api.example.com",
        ),
        (
            "https://h.example/?x=1",
            "\"https://h.example/?x=1\" must not have a query or fragment",
        ),
    ] {
        let error = normalise_base_url(given).unwrap_err();
        assert_eq!(error.category(), ErrorCategory::Config);
        assert_eq!(
            error,
            ClientError::InvalidConfig {
                field: "base_url".into(),
                problem: problem.into()
            },
            "{given}"
        );
    }
}

#[test]
fn a_refused_url_is_named_without_its_user_info() {
    let (field, problem) = refusal(r#"{"base_url": "https://ada:s3cret@api.example.com/"}"#);
    assert_eq!(field, "base_url");
    assert_eq!(
        problem,
        "\"https://api.example.com\" must not carry user info (user@ or user:password@)"
    );
    let error = read(r#"{"base_url": "ftp://ada:s3cret@files.example.com"}"#).unwrap_err();
    let message = error.to_string();
    assert_eq!(
        message,
        "configuration `base_url`: \"ftp://files.example.com\" must start with http:// or https://"
    );
    assert_eq!(error.category(), ErrorCategory::Config);
}

#[test]
fn the_stable_egress_url_follows_the_base_url_unless_set() {
    let derived = read(r#"{"base_url": "https://api.example.com/"}"#).unwrap();
    assert_eq!(
        derived.stable_egress_url.as_deref(),
        Some("https://api.example.com/egress")
    );
    assert_eq!(stable_egress_url_for("https://h"), "https://h/egress");
    let set = read(
        r#"{"base_url": "https://api.example.com", "stable_egress_url": "https://egress.example.com/out/"}"#,
    )
    .unwrap();
    assert_eq!(
        set.stable_egress_url.as_deref(),
        Some("https://egress.example.com/out")
    );
    let none = read(r#"{"stable_egress_url": null}"#).unwrap();
    assert_eq!(none.stable_egress_url, None);
    let (field, _) = refusal(r#"{"stable_egress_url": "mailto:ops@example.com"}"#);
    assert_eq!(field, "stable_egress_url");
    // The request a caller sends by URL goes to the derived host.
    let config = ClientConfig::from_json(
        br#"{"base_url": "https://api.example.com", "api_key": "acd_live_demo_ada"}"#,
    )
    .unwrap();
    let spec = crate::client::RequestSpec::list_connection_records("crm", "contacts")
        .egress(crate::client::EgressMode::Url);
    let request =
        crate::client::build_request(&config, &spec, &mut crate::client::KeyStream::from_seed(0))
            .unwrap();
    assert_eq!(
        request.url,
        "https://api.example.com/egress/v1/connections/crm/records?entity_id=contacts"
    );
}

#[test]
fn serde_reads_a_config_with_the_same_defaults() {
    let config: ClientConfig = serde_json::from_str(
        r#"{"base_url": "https://api.example.com/", "api_key": "acd_live_k"}"#,
    )
    .unwrap();
    assert_eq!(config.base_url, "https://api.example.com");
    assert_eq!(
        config.stable_egress_url.as_deref(),
        Some("https://api.example.com/egress")
    );
    assert_eq!(config.credentials[0].id, "default");
    // What serde writes reads back as the same configuration.
    let written = serde_json::to_string(&config).unwrap();
    let back: ClientConfig = serde_json::from_str(&written).unwrap();
    assert_eq!(back, config);
}

#[test]
fn unknown_or_malformed_members_are_config_errors_naming_them() {
    assert_eq!(
        refusal(r#"{"retry": {"max_attempts": "five"}}"#).0,
        "retry.max_attempts"
    );
    let (field, problem) = refusal(r#"{"base_ur1": "https://h"}"#);
    assert_eq!(field, "base_ur1");
    assert!(problem.starts_with("unknown field `base_ur1`"), "{problem}");
    assert_eq!(refusal(r#"{"env": {"ACD_TOKN": "x"}}"#).0, "env.ACD_TOKN");
    assert_eq!(refusal(r#""a string""#).0, "(document)");
    assert_eq!(refusal(r#"{} {}"#).0, "(document)");
    assert_eq!(
        refusal(r#"{"retry": {"max_attempts": 0}}"#).0,
        "retry.max_attempts"
    );
}

#[test]
fn the_version_is_the_core_crate_version() {
    let parts: Vec<&str> = CLIENT_VERSION.split('.').collect();
    assert_eq!(parts.len(), 3, "{CLIENT_VERSION}");
    assert!(parts.iter().all(|part| part.parse::<u32>().is_ok()));
    assert_eq!(USER_AGENT, format!("acd/{CLIENT_VERSION}"));
    assert_eq!(crate::client::CLIENT_VERSION, CLIENT_VERSION);
}

#[test]
fn a_bare_token_is_the_default_oauth_credential_and_not_with_a_key() {
    let config = read(r#"{"token": "acd_oauth_demo_token_1"}"#).unwrap();
    assert_eq!(
        config.credentials,
        vec![ClientCredential::oauth_token(
            "default",
            "acd_oauth_demo_token_1",
            "default"
        )]
    );
    let (field, problem) =
        refusal(r#"{"token": "acd_oauth_demo_token_1", "api_key": "acd_live_demo_ada"}"#);
    assert_eq!(field, "token");
    assert!(
        problem.contains("an API key or an OAuth token, not both"),
        "{problem}"
    );
}

#[test]
fn an_acd_token_variable_is_the_credential_only_when_nothing_else_is() {
    let config = read(r#"{"env": {"ACD_TOKEN": "acd_oat_demo_ada", "ACD_API_KEY": ""}}"#).unwrap();
    assert_eq!(
        config.credentials,
        [ClientCredential::default_oauth_token("acd_oat_demo_ada")]
    );
    // A key given in the document wins over the variable.
    let config =
        read(r#"{"api_key": "acd_live_demo_ada", "env": {"ACD_TOKEN": "acd_oat_demo_ada"}}"#)
            .unwrap();
    assert_eq!(
        config.credentials,
        [ClientCredential::default_api_key("acd_live_demo_ada")]
    );
    // Both variables set, nothing in the document: refused, naming both.
    let (field, problem) = refusal(
        r#"{"env": {"ACD_TOKEN": "acd_oat_demo_ada", "ACD_API_KEY": "acd_live_demo_ada"}}"#,
    );
    assert_eq!(field, "env");
    assert!(
        problem.starts_with("ACD_API_KEY and ACD_TOKEN are both set"),
        "{problem}"
    );
    // A malformed one is named by its variable, never shown.
    let (field, problem) = refusal(r#"{"env": {"ACD_TOKEN": "bad\"quote"}}"#);
    assert_eq!(field, "token");
    assert!(problem.ends_with("(read from ACD_TOKEN)"), "{problem}");
    assert!(!problem.contains("bad\""), "{problem}");
}
