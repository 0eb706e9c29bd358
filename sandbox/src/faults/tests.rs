//! Tests of fault rules, patterns, the seeded draws and `Prefer`.

use super::*;

fn rules(json: &str) -> Result<Faults, String> {
    let config: FaultsConfig = serde_json::from_str(json).map_err(|error| error.to_string())?;
    Faults::new(&config).map_err(|error| error.to_string())
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
                .choose("/api/v1", std::iter::empty())
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
        faults.choose("/api/v1", std::iter::empty()),
        Ok(Some(Fault::Drop))
    );
    assert_eq!(
        faults.choose("/_sandbox/clock", std::iter::empty()),
        Ok(None)
    );
    let none =
        rules(r#"{"rules": [{"path": "/api/v1/tables/*", "probability": 1, "truncate": true}]}"#)
            .unwrap();
    assert_eq!(none.choose("/api/v1", std::iter::empty()), Ok(None));
    assert_eq!(
        none.choose("/api/v1/tables/orders", std::iter::empty()),
        Ok(Some(Fault::Truncate))
    );
}

#[test]
fn prefer_asks_for_a_status_and_a_retry_after() {
    assert_eq!(
        parse_prefer(b"code=503"),
        Ok(Some(Fault::Status {
            status: 503,
            retry_after: None
        }))
    );
    assert_eq!(
        parse_prefer(b"code=429, retry-after=2"),
        Ok(Some(Fault::Status {
            status: 429,
            retry_after: Some(2)
        }))
    );
    assert_eq!(
        parse_prefer(b"return=minimal; Code=\"500\""),
        Ok(Some(Fault::Status {
            status: 500,
            retry_after: None
        }))
    );
    assert_eq!(parse_prefer(b"return=minimal"), Ok(None));
    assert_eq!(
        parse_prefer(b"code=200"),
        Err("Prefer code: 200 is not an error status; use 400 to 599".into())
    );
    assert_eq!(
        parse_prefer(b"code=abc"),
        Err("Prefer code=\"abc\": the value must be a whole number".into())
    );
    assert_eq!(
        parse_prefer(b"retry-after=2"),
        Err("Prefer retry-after needs a code too, e.g. code=429, retry-after=2".into())
    );
}
