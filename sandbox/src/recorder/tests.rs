#![allow(clippy::unwrap_used)]

use super::*;
use crate::reqlog::LogFormat;

fn log() -> RequestLog {
    RequestLog::with_writer(
        LogFormat::Off,
        ["acd_live_".into(), "acd_oat_".into()],
        crate::reqlog::writer::LogWriter::to(Box::new(std::io::sink()), 1),
    )
}

fn prefixes() -> Vec<(String, CredentialKind)> {
    vec![
        ("acd_live_".into(), CredentialKind::ApiKey),
        ("acd_oat_".into(), CredentialKind::OAuthToken),
    ]
}

fn arrival(target: &str, headers: &[(&str, &str)]) -> Arrival {
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        map.append(
            axum::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
            value.parse().unwrap(),
        );
    }
    Recorder::arrival(
        &log(),
        &prefixes(),
        "GET",
        &target.parse().unwrap(),
        &map,
        7,
    )
}

#[test]
fn credentials_become_their_kind_and_a_fingerprint() {
    let recorded = arrival(
        "/api/v1/tables/%61cd_live_x?limit=2&key=acd_live_demo_ada&token_acd_oat_y",
        &[
            ("x-api-key", "acd_live_demo_ada"),
            ("authorization", "Bearer acd_oat_demo_ada_read"),
            ("cookie", "s=1"),
            ("x-trace", "acd_live_demo_ada"),
            ("accept", "application/json"),
        ],
    );
    assert_eq!(recorded.path, "/api/v1/tables/<redacted>");
    assert_eq!(
        recorded.query.as_deref(),
        Some("limit=2&key=<redacted>&<redacted>")
    );
    let shown = serde_json::to_value(&recorded.headers).unwrap();
    // sha256("acd_live_demo_ada") = c153deb4..., sha256("acd_oat_demo_ada_read") = c626ef56...,
    // sha256("s=1") = f1c25984... (worked out with `printf %s ... | sha256sum`).
    assert_eq!(
        shown,
        serde_json::json!([
            {"name": "x-api-key", "credential": {"kind": "api_key", "fingerprint": "sha256:c153deb4"}},
            {"name": "authorization", "scheme": "Bearer",
             "credential": {"kind": "oauth2", "fingerprint": "sha256:c626ef56"}},
            {"name": "cookie", "credential": {"kind": "unknown", "fingerprint": "sha256:f1c25984"}},
            {"name": "x-trace", "credential": {"kind": "api_key", "fingerprint": "sha256:c153deb4"}},
            {"name": "accept", "value": "application/json"},
        ])
    );
}

#[test]
fn the_ring_keeps_the_last_n_and_indexes_go_on() {
    let recorder = Recorder::new(2);
    for status in [200, 429, 404] {
        recorder.record(arrival("/a", &[]), Some(status));
    }
    let listing = recorder.list(0, None, usize::MAX);
    let statuses: Vec<_> = listing
        .requests
        .iter()
        .map(|r| (r.index, r.status))
        .collect();
    assert_eq!(statuses, [(1, Some(429)), (2, Some(404))]);
    assert_eq!((listing.next, listing.evicted, listing.capacity), (3, 1, 2));
    assert_eq!(recorder.clear(), 2);
    recorder.record(arrival("/b", &[]), None);
    let listing = recorder.list(3, Some(&crate::faults::Pattern::parse("/b")), usize::MAX);
    assert_eq!(listing.requests.len(), 1);
    assert_eq!(listing.requests[0].index, 3);
    assert_eq!(recorder.list(4, None, usize::MAX).requests.len(), 0);
    assert_eq!(Recorder::new(0).list(0, None, usize::MAX).requests.len(), 0);
}

#[test]
fn the_ring_is_bounded_by_bytes_oldest_first() {
    // GET /xxxx (4-byte path, no header): 160 + 3 + 5 = 168 bytes each.
    let one = arrival("/aaaa", &[]);
    assert_eq!(
        Recorded {
            index: 0,
            method: one.method.clone(),
            path: one.path.clone(),
            query: None,
            headers: Vec::new(),
            status: None,
            time_ms: 0,
        }
        .weight(),
        168
    );
    let recorder = Recorder::with_budget(100, 3 * 168);
    for _ in 0..5 {
        recorder.record(arrival("/aaaa", &[]), Some(200));
    }
    let listing = recorder.list(0, None, usize::MAX);
    let indexes: Vec<u64> = listing.requests.iter().map(|r| r.index).collect();
    assert_eq!(indexes, [2, 3, 4]);
    assert_eq!((listing.evicted, recorder.bytes()), (2, 3 * 168));
    assert_eq!(recorder.list(0, None, 2).requests.len(), 2);
}
