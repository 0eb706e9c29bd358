//! One configuration dialect: the sandbox reads core's `GateConfig` JSON
//! as it is (the same file a binding's `GateConfig.from_json` reads, see
//! `bindings/tests/python/test_sandbox_config.py`), and
//! `sandbox/config.schema.json` names exactly what the sandbox accepts.
// A test crate: its helpers may unwrap and panic like the tests themselves.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use acd_core::gate::GateConfig;
use common::Sandbox;
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::path::PathBuf;

fn file(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

fn schema() -> Value {
    serde_json::from_str(&file("config.schema.json")).unwrap()
}

/// The schema that applies at `schema`, following `$ref` and `anyOf`
/// branches that are objects.
fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        return resolve(
            root,
            root.pointer(reference.trim_start_matches('#')).unwrap(),
        );
    }
    if let Some(branches) = schema.get("anyOf").and_then(Value::as_array) {
        if let Some(object) = branches
            .iter()
            .map(|branch| resolve(root, branch))
            .find(|branch| branch.get("properties").is_some())
        {
            return object;
        }
    }
    schema
}

/// Every member path of `value` has a schema (objects with `properties`
/// must name each member; `additionalProperties` schemas cover maps).
fn assert_described(root: &Value, schema: &Value, value: &Value, at: &str) {
    let schema = resolve(root, schema);
    match value {
        Value::Object(members) => {
            if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                for (name, member) in members {
                    let Some(described) = properties.get(name) else {
                        panic!("the schema does not describe `{at}.{name}`");
                    };
                    assert_described(root, described, member, &format!("{at}.{name}"));
                }
            } else if let Some(each) = schema.get("additionalProperties").filter(|v| v.is_object())
            {
                for (name, member) in members {
                    assert_described(root, each, member, &format!("{at}.{name}"));
                }
            }
        }
        Value::Array(items) => {
            if let Some(each) = schema.get("items") {
                for (n, item) in items.iter().enumerate() {
                    assert_described(root, each, item, &format!("{at}[{n}]"));
                }
            }
        }
        _ => {}
    }
}

/// Every property the schema names at `schema` is used by `value`.
fn assert_used(root: &Value, schema: &Value, value: &Value, at: &str) {
    let schema = resolve(root, schema);
    match value {
        Value::Object(members) => {
            if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                for (name, described) in properties {
                    let Some(member) = members.get(name) else {
                        panic!("the example does not use `{at}.{name}`");
                    };
                    assert_used(root, described, member, &format!("{at}.{name}"));
                }
            }
        }
        Value::Array(items) => {
            let Some(each) = schema.get("items").map(|each| resolve(root, each)) else {
                return;
            };
            match each.get("properties").and_then(Value::as_object) {
                // Some item uses each property (rules use one fault each).
                Some(properties) => {
                    for (name, described) in properties {
                        let Some(item) = items.iter().find(|item| item.get(name).is_some()) else {
                            panic!("no item of the example uses `{at}[].{name}`");
                        };
                        assert_used(root, described, &item[name], &format!("{at}[].{name}"));
                    }
                }
                None => {
                    if let Some(first) = items.first() {
                        assert_used(root, each, first, &format!("{at}[0]"));
                    }
                }
            }
        }
        _ => {}
    }
}

#[test]
fn the_schema_names_every_gate_config_member_and_the_sandbox_members() {
    let schema = schema();
    assert_eq!(schema["additionalProperties"], false);
    let named: BTreeSet<&str> = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    // GateConfig's members, and the sandbox's own as the full example (which
    // the sandbox reads, below) uses them.
    let gate = serde_json::to_value(GateConfig::default()).unwrap();
    let example: Value = serde_json::from_str(&file("examples/full-config.json")).unwrap();
    let mut expected: BTreeSet<&str> = gate
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    expected.extend(example.as_object().unwrap().keys().map(String::as_str));
    assert_eq!(named, expected);
    // Every nested member of a GateConfig as core writes it.
    let mut deprecated = GateConfig {
        version_deprecation: Some(acd_core::model::DeprecationNotice {
            deprecated_at: 1,
            sunset_at: Some(2),
        }),
        ..GateConfig::default()
    };
    deprecated
        .catalogue
        .add(acd_core::model::Catalogue::create_agent_run())
        .unwrap();
    let written = serde_json::to_value(deprecated).unwrap();
    assert_described(&schema, &schema, &written, "");
    assert_eq!(
        schema["$defs"]["quota"]["required"],
        serde_json::json!(["requests", "window_ms"])
    );
}

#[test]
fn the_full_example_uses_every_member_the_schema_names_and_the_sandbox_reads_it() {
    let schema = schema();
    let example: Value = serde_json::from_str(&file("examples/full-config.json")).unwrap();
    assert_described(&schema, &schema, &example, "");
    // The catalogue is core's own serialisation, checked against the schema
    // above; every other member the schema names is used by the example.
    let mut rest = schema.clone();
    let properties: &mut Map<String, Value> = rest["properties"].as_object_mut().unwrap();
    properties.remove("catalogue");
    assert_used(&rest, &rest, &example, "");
    let sandbox = Sandbox::with_config(&example.to_string());
    let index = sandbox.get("/api/v1", &[]).json();
    assert_eq!(index["name"], "My sandbox");
}

#[test]
fn a_gate_config_file_is_read_by_the_sandbox_as_by_core() {
    let text = file("examples/gate-config.json");
    let gate: GateConfig = serde_json::from_str(&text).unwrap();
    assert_eq!(gate.limits.credential.requests, 3);
    assert_eq!(gate.limits.credential.window_ms, 2_000);
    let sandbox = Sandbox::start_with(Some(&text), &["--clock", "manual"]);
    let index = sandbox.get("/api/v1", &[]).json();
    assert_eq!(index["name"], "Shared-config sandbox");
    assert_eq!(index["rate_limits"]["requests"], 3);
    assert_eq!(index["rate_limits"]["window_seconds"], 2);
    assert_eq!(index["onboarding"]["trial"]["duration_days"], 7);
    // A limit of 3 per 2000 ms is what the sandbox enforces: start on a
    // window boundary of the manual clock.
    let now = sandbox.get("/_sandbox/clock", &[]).json()["now_ms"]
        .as_u64()
        .unwrap();
    let advance = format!(r#"{{"advance_ms": {}}}"#, 2_000 - now % 2_000);
    assert_eq!(sandbox.post_json("/_sandbox/clock", &advance).status, 200);
    let responses: Vec<_> = (0..4)
        .map(|_| sandbox.get_as_ada("/api/v1/connections/crm/records?entity_id=contacts"))
        .collect();
    let statuses: Vec<u16> = responses.iter().map(|response| response.status).collect();
    assert_eq!(statuses, [200, 200, 200, 429]);
    assert_eq!(responses[0].int("RateLimit-Limit"), 3);
    assert_eq!(responses[3].int("Retry-After"), 2);
}
