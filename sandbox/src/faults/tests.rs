//! Tests of fault rules, patterns, the seeded draws and `Prefer`.

use super::*;

fn rules(json: &str) -> Result<Faults, String> {
    let config: FaultsConfig = serde_json::from_str(json).map_err(|error| error.to_string())?;
    Faults::new(&config, &document()).map_err(|error| error.to_string())
}

/// A document with one operation, as `/openapi.json` has them.
fn document() -> Value {
    serde_json::json!({"paths": {"/api/v1/tables/{id}": {"get": {
    "operationId": "listTableRecords",
    "responses": {
        "200": {"content": {"application/json": {"example": {"data": [{"id": 1}]}}}},
        "401": {"content": {"application/json": {"example": {"status": 401}}}},
    }}}}})
}

fn plan(action: Action) -> Option<Plan> {
    Some(Plan {
        latency_ms: None,
        action,
        truncate: false,
    })
}

#[test]
fn patterns_match_within_and_across_segments() {
    let one = Pattern::parse("/api/v1/tables/*");
    assert!(one.matches("/api/v1/tables/orders"));
    assert!(one.matches("/api/v1/tables/"));
    assert!(!one.matches("/api/v1/tables/orders/x"));
    assert!(!one.matches("/api/v1/connections/crm/records"));
    let many = Pattern::parse("/api/**");
    assert!(many.matches("/api/v1/connections/crm/records"));
    assert!(!many.matches("/openapi.json"));
    let middle = Pattern::parse("/api/v1/*/crm/*");
    assert!(middle.matches("/api/v1/connections/crm/records"));
    assert!(!middle.matches("/api/v1/connections/erp/records"));
    assert!(Pattern::parse("/api/v1").matches("/api/v1"));
    assert!(!Pattern::parse("/api/v1").matches("/api/v10"));
}

#[test]
fn bad_rules_name_the_json_path() {
    let error = |json| rules(json).err().unwrap_or_default();
    assert_eq!(
        error(r#"{"rules": [{"path": "/x", "status": 503, "drop": true}]}"#),
        "at `faults.rules[0]`: give exactly one of status, latency_ms, drop: true or truncate: true"
    );
    assert_eq!(
        error(r#"{"rules": [{"path": "/x", "status": 200}]}"#),
        "at `faults.rules[0].status`: 200 is not an error status; use 400 to 599"
    );
    assert_eq!(
        error(r#"{"rules": [{"path": "x", "drop": true}]}"#),
        "at `faults.rules[0].path`: must be a path pattern starting with /, e.g. /api/v1/tables/*"
    );
    assert_eq!(
        error(r#"{"rules": [{"path": "/x", "drop": true, "probability": 1.5}]}"#),
        "at `faults.rules[0].probability`: must be from 0 to 1"
    );
    assert_eq!(
        error(r#"{"rules": [{"path": "/x", "latency_ms": 5, "retry_after": 1}]}"#),
        "at `faults.rules[0].retry_after`: goes with status only"
    );
}

fn draws(seed: u64, n: usize) -> Vec<bool> {
    let faults = rules(&format!(
        r#"{{"seed": {seed}, "rules": [{{"path": "/api/**", "probability": 0.5, "status": 503}}]}}"#
    ))
    .unwrap();
    (0..n)
        .map(|_| {
            faults
                .choose("GET", "/api/v1", std::iter::empty())
                .unwrap()
                .is_some()
        })
        .collect()
}

#[test]
fn the_same_seed_draws_the_same_faults() {
    let first = draws(7, 200);
    assert_eq!(first, draws(7, 200));
    assert_ne!(first, draws(8, 200));
    let fired = first.iter().filter(|fired| **fired).count();
    // 200 draws at p = 0.5: far outside 60..=140 is a broken generator.
    assert!((60..=140).contains(&fired), "{fired} of 200");
}

#[test]
fn rules_apply_to_matching_paths_only_and_never_to_admin_routes() {
    let faults = rules(r#"{"rules": [{"path": "/**", "drop": true}]}"#).unwrap();
    assert_eq!(
        faults.choose("GET", "/api/v1", std::iter::empty()),
        Ok(plan(Action::Drop))
    );
    assert_eq!(
        faults.choose("GET", "/_sandbox/clock", std::iter::empty()),
        Ok(None)
    );
    let none =
        rules(r#"{"rules": [{"path": "/api/v1/tables/*", "probability": 1, "truncate": true}]}"#)
            .unwrap();
    assert_eq!(none.choose("GET", "/api/v1", std::iter::empty()), Ok(None));
    assert_eq!(
        none.choose("GET", "/api/v1/tables/orders", std::iter::empty()),
        Ok(Some(Plan {
            latency_ms: None,
            action: Action::Route,
            truncate: true
        }))
    );
}

fn prefer(text: &str) -> Result<Preferences, PreferError> {
    parse_prefer([text.as_bytes()])
}

#[test]
fn prefer_reads_every_preference_prism_does() {
    assert_eq!(
        prefer("code=503"),
        Ok(Preferences {
            code: Some(503),
            ..Preferences::default()
        })
    );
    assert_eq!(
        prefer("code=429, retry-after=2"),
        Ok(Preferences {
            code: Some(429),
            retry_after: Some(2),
            ..Preferences::default()
        })
    );
    assert_eq!(
        prefer("return=minimal; Code=\"200\", LATENCY=250, truncate, example=empty"),
        Ok(Preferences {
            code: Some(200),
            latency_ms: Some(250),
            truncate: true,
            example: Some("empty".into()),
            ..Preferences::default()
        })
    );
    // Several fields are one list; the first of a name counts.
    assert_eq!(
        parse_prefer([b"drop".as_slice(), b"code=500, code=abc".as_slice()]),
        Ok(Preferences {
            code: Some(500),
            drop: true,
            ..Preferences::default()
        })
    );
    // Unknown preferences are ignored.
    assert_eq!(
        prefer("return=minimal, respond-async, wait=10, dynamic=true, @@"),
        Ok(Preferences::default())
    );
}

#[test]
fn a_malformed_preference_is_named() {
    let error = |text| prefer(text).err().map(|error| error.to_string());
    for (text, expected) in [
        (
            "code=abc",
            "Prefer code=abc: the value must be a status from 100 to 599",
        ),
        (
            "code=600",
            "Prefer code=600: the value must be a status from 100 to 599",
        ),
        (
            "code",
            "Prefer code: the value must be a status from 100 to 599",
        ),
        (
            "code=-1",
            "Prefer code=-1: the value must be a status from 100 to 599",
        ),
        (
            "latency=60001",
            "Prefer latency=60001: the value must be whole milliseconds from 0 to 60000",
        ),
        (
            "latency=1.5",
            "Prefer latency=1.5: the value must be whole milliseconds from 0 to 60000",
        ),
        (
            "code=429, retry-after=86401",
            "Prefer retry-after=86401: the value must be whole seconds from 0 to 86400",
        ),
        (
            "drop=1",
            "Prefer drop=1: it takes no value (write drop or truncate)",
        ),
        (
            "example=",
            "Prefer example=: the value must name an example of the configuration",
        ),
        (
            "retry-after=2",
            "Prefer retry-after needs a code too, e.g. code=429, retry-after=2",
        ),
    ] {
        assert_eq!(error(text).as_deref(), Some(expected), "{text}");
    }
    assert_eq!(
        parse_prefer([b"code=\xff".as_slice()]),
        Err(PreferError::NotUtf8)
    );
}

#[test]
fn prefer_plans_declared_statuses_examples_latency_and_drops() {
    let faults = rules(
        r#"{"examples": [{"name": "empty", "body": {"data": []}, "path": "/api/v1/tables/*"},
                         {"name": "teapot", "status": 418, "body": {"detail": "short and stout"}}]}"#,
    )
    .unwrap();
    let choose = |method, path, text: &str| {
        faults
            .choose(method, path, [text.as_bytes()])
            .map_err(|error| error.to_string())
    };
    assert_eq!(
        choose("GET", "/api/v1/tables/orders", "code=200"),
        Ok(plan(Action::Declared {
            status: 200,
            example: serde_json::json!({"data": [{"id": 1}]})
        }))
    );
    assert_eq!(
        choose("GET", "/api/v1/tables/orders", "code=503, latency=20"),
        Ok(Some(Plan {
            latency_ms: Some(20),
            action: Action::Status {
                status: 503,
                retry_after: None
            },
            truncate: false
        }))
    );
    assert_eq!(
        choose("GET", "/api/v1/tables/orders", "example=empty"),
        Ok(plan(Action::Example {
            status: 200,
            body: serde_json::json!({"data": []})
        }))
    );
    assert_eq!(
        choose("GET", "/anything", "example=teapot, code=418"),
        Ok(plan(Action::Example {
            status: 418,
            body: serde_json::json!({"detail": "short and stout"})
        }))
    );
    assert_eq!(
        choose("GET", "/api/v1/tables/orders", "drop, code=200"),
        Ok(plan(Action::Drop))
    );
    assert_eq!(
        choose("GET", "/api/v1/tables/orders", "respond-async"),
        Ok(None)
    );
    for (method, path, text, expected) in [
        ("GET", "/api/v1/tables/orders", "code=201",
         "Prefer code=201: listTableRecords (GET /api/v1/tables/{id}) declares 200, 401; any error status (400 to 599) can be asked for too"),
        ("POST", "/api/v1/tables/orders", "code=200",
         "Prefer code=200: no operation of the API is at POST /api/v1/tables/orders, so only an error status (400 to 599) can be asked for"),
        ("GET", "/api/v1/tables/orders", "example=nope",
         "Prefer example=nope: the configuration has no such example (its examples: empty, teapot)"),
        ("GET", "/api/v1", "example=empty",
         "Prefer example=empty: the example is for paths /api/v1/tables/*, not /api/v1"),
        ("GET", "/x", "example=teapot, code=200",
         "Prefer example=teapot: the example answers 418, not the code asked for"),
    ] {
        assert_eq!(choose(method, path, text), Err(expected.to_owned()), "{text}");
    }
}

#[test]
fn bad_examples_name_the_json_path() {
    let error = |json| rules(json).err().unwrap_or_default();
    assert_eq!(
        error(r#"{"examples": [{"name": "a b", "body": 1}]}"#),
        "at `faults.examples[0].name`: must be 1 to 128 visible ASCII characters without , or ; (it is written in a Prefer header), e.g. empty-orders"
    );
    assert_eq!(
        error(r#"{"examples": [{"name": "a", "body": 1}, {"name": "a", "body": 2}]}"#),
        "at `faults.examples[1].name`: names an earlier example too"
    );
    assert_eq!(
        error(r#"{"examples": [{"name": "a", "status": 204, "body": 1}]}"#),
        "at `faults.examples[0].status`: must be a status from 200 to 599 that has a body (not 204, 205 or 304)"
    );
    assert_eq!(
        error(r#"{"examples": [{"name": "a", "body": 1, "path": "x"}]}"#),
        "at `faults.examples[0].path`: must be a path pattern starting with /, e.g. /api/v1/tables/*"
    );
}
