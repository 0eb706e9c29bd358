//! The `ApiIndex` model: strict parsing with errors that name the field path,
//! and configuration errors that say what to fix.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use acd_core::gate::{GateConfig, GateConfigError};
use acd_core::model::ApiIndex;
use serde_json::{json, Value};

fn valid() -> Value {
    let index = GateConfig::default().build_index().unwrap();
    serde_json::from_slice(&index.to_bytes()).unwrap()
}

fn error_of(document: &Value) -> (String, String) {
    let error = ApiIndex::from_json(document.to_string().as_bytes()).unwrap_err();
    (error.path, error.problem)
}

#[test]
fn the_built_index_round_trips() {
    let document = valid();
    let parsed = ApiIndex::from_json(document.to_string().as_bytes()).unwrap();
    assert_eq!(parsed, GateConfig::default().build_index().unwrap());
}

#[test]
fn unknown_members_are_refused_with_their_path() {
    let mut document = valid();
    document["onboarding"]["trial"]["extra"] = json!(1);
    let (path, problem) = error_of(&document);
    assert_eq!(path, "onboarding.trial.extra");
    assert!(problem.contains("unknown field `extra`"), "{problem}");
}

#[test]
fn enum_values_are_fixed() {
    let mut document = valid();
    document["authentication"]["methods"][0]["type"] = json!("basic");
    let (path, problem) = error_of(&document);
    assert_eq!(path, "authentication.methods[0].type");
    assert!(problem.contains("unknown variant `basic`"), "{problem}");

    let mut document = valid();
    document["versioning"]["strategy"] = json!("header");
    assert_eq!(error_of(&document).0, "versioning.strategy");
}

#[test]
fn required_members_are_required() {
    let mut document = valid();
    document["rate_limits"]
        .as_object_mut()
        .unwrap()
        .remove("window_seconds");
    let (path, problem) = error_of(&document);
    assert_eq!(path, "rate_limits");
    assert!(
        problem.contains("missing field `window_seconds`"),
        "{problem}"
    );
}

#[test]
fn uris_must_be_absolute() {
    let mut document = valid();
    document["authentication"]["methods"][1]["documentation_url"] = json!("/docs");
    let (path, problem) = error_of(&document);
    assert_eq!(path, "authentication.methods[1].documentation_url");
    assert!(problem.contains("not an absolute URI"), "{problem}");

    let mut document = valid();
    document["resources"]["tables"] = json!("tables/{id}");
    assert_eq!(error_of(&document).0, "resources.tables");
}

#[test]
fn trial_lasts_at_least_a_day_and_versions_agree() {
    let mut document = valid();
    document["onboarding"]["trial"]["duration_days"] = json!(0);
    assert_eq!(error_of(&document).0, "onboarding.trial.duration_days");

    let mut document = valid();
    document["versioning"]["current_version"] = json!("v2");
    assert_eq!(error_of(&document).0, "versioning.current_version");
}

#[test]
fn trailing_garbage_and_non_objects_are_refused() {
    let text = format!("{} x", valid());
    assert!(ApiIndex::from_json(text.as_bytes()).is_err());
    assert_eq!(ApiIndex::from_json(b"[]").unwrap_err().path, "(document)");
}

#[test]
fn configuration_errors_name_the_field() {
    let config = GateConfig {
        oauth_token_prefix: "acd_live_x".into(),
        ..GateConfig::default()
    };
    let error = acd_core::gate::Gate::demo(config).unwrap_err();
    assert!(matches!(
        error,
        GateConfigError::Field {
            field: "oauth_token_prefix",
            ..
        }
    ));

    let config = GateConfig {
        stable_egress_url: Some("http://127.0.0.1:8080/api/egress".into()),
        ..GateConfig::default()
    };
    let error = acd_core::gate::Gate::demo(config).unwrap_err().to_string();
    assert!(error.contains("stable_egress_url"), "{error}");

    let mut config = GateConfig::default();
    config.index.documentation_url = "docs".into();
    let error = acd_core::gate::Gate::demo(config).unwrap_err().to_string();
    assert_eq!(
        error,
        "API index field `documentation_url`: \"docs\" is not an absolute URI (it needs a scheme such as https://)"
    );
}
