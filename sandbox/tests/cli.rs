//! The command-line contract: `--help`, the first stdout line, the demo
//! banner and its curl commands, configuration errors (exit 2), and a clean
//! shutdown on SIGTERM and Ctrl-C with in-flight requests finishing.
// A test crate: its helpers may unwrap and panic like the tests themselves.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Sandbox, TempFile, BIN};
use std::io::Read;
use std::process::Command;

#[test]
fn help_documents_every_option_the_config_and_the_bounds() {
    let output = Command::new(BIN).arg("--help").output().unwrap();
    assert!(output.status.success());
    let help = String::from_utf8(output.stdout).unwrap();
    for needle in [
        "--listen <ADDR:PORT>",
        "[default: 127.0.0.1:8080]",
        "--config <FILE>",
        "--static <DIR>",
        "--header-timeout <SECONDS>",
        "--idle-timeout <SECONDS>",
        "credentials",
        "stable_egress_url",
        "user_table_reads",
        "request head (request line + headers)  at most 32 KiB, else 431",
        "header fields per request              at most 100, else 431",
        "request bodies                         never read",
        "stalled response write                 connection dropped after 30 s",
        "concurrent connections                 at most 1024",
        "Exit status: 0 after a clean shutdown, 1 when the address cannot be listened on,",
    ] {
        assert!(help.contains(needle), "--help lacks {needle:?}:\n{help}");
    }
}

fn run_with_config(json: &str) -> (Option<i32>, String) {
    let file = TempFile::new("bad.json", json.as_bytes());
    let output = Command::new(BIN)
        .args(["--listen", "127.0.0.1:0", "--config"])
        .arg(&file.0)
        .output()
        .unwrap();
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    let shown = stderr.replace(&file.0.display().to_string(), "FILE");
    (output.status.code(), shown)
}

#[test]
fn a_bad_config_is_one_error_naming_the_json_path_and_exit_2() {
    for (json, message) in [
        (
            r#"{"tables": [{"id": "t", "owner": "ada", "records": [1]}]}"#,
            "acd-sandbox: config FILE: at `tables[0].records[0]`: invalid type: integer `1`, expected a map\n",
        ),
        (
            r#"{"credentials": [{"secret": "acd_live_x", "kind": "api_key"}]}"#,
            "acd-sandbox: config FILE: at `credentials[0]`: missing field `user`\n",
        ),
        (
            r#"{"limits": {"client_ip": {"requests": 0, "window_ms": 1000}}}"#,
            "acd-sandbox: config FILE: at `limits.client_ip.requests`: must be at least 1 (0 would refuse every request)\n",
        ),
        (
            r#"{"stable_egress_url": "http://127.0.0.1:1/api"}"#,
            "acd-sandbox: config FILE: at `stable_egress_url`: \"http://127.0.0.1:1/api\" needs a path of its own that does not start with /api (e.g. https://host/egress)\n",
        ),
        (
            "{\"base_url\": ",
            "acd-sandbox: config FILE: at `base_url`: EOF while parsing a value at line 1 column 13\n",
        ),
    ] {
        assert_eq!(run_with_config(json), (Some(2), message.to_owned()), "{json}");
    }
    let output = Command::new(BIN)
        .args(["--config", "/nonexistent/acd.json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "acd-sandbox: config /nonexistent/acd.json: at `(file)`: cannot read /nonexistent/acd.json: No such file or directory (os error 2)\n"
    );
}

#[test]
fn bad_arguments_exit_2_and_a_taken_port_exits_1() {
    let remote = Command::new(BIN)
        .args(["--listen", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert_eq!(remote.status.code(), Some(2));
    assert!(String::from_utf8(remote.stderr)
        .unwrap()
        .contains("is not a loopback address"));
    let unknown = Command::new(BIN).arg("--bogus").output().unwrap();
    assert_eq!(unknown.status.code(), Some(2));
    let sandbox = Sandbox::start();
    let taken = Command::new(BIN)
        .args(["--listen", &sandbox.addr.to_string()])
        .output()
        .unwrap();
    assert_eq!(taken.status.code(), Some(1));
    assert!(String::from_utf8(taken.stderr)
        .unwrap()
        .starts_with(&format!("acd-sandbox: cannot listen on {}: ", sandbox.addr)));
}

/// Splits a printed `curl -i [-H 'Name: value'] 'URL'` line.
fn parse_curl(line: &str) -> (&'static str, Vec<(String, String)>, String) {
    let mut rest = line.trim().strip_prefix("curl -i ").unwrap();
    let method = match rest.strip_prefix("-X POST ") {
        Some(after) => {
            rest = after;
            "POST"
        }
        None => "GET",
    };
    let mut headers = Vec::new();
    while let Some(after) = rest.strip_prefix("-H '") {
        let (header, tail) = after.split_once("' ").unwrap();
        let (name, value) = header.split_once(": ").unwrap();
        headers.push((name.to_owned(), value.to_owned()));
        rest = tail;
    }
    (method, headers, rest.trim_matches('\'').to_owned())
}

#[test]
fn the_banner_prints_credentials_urls_and_curl_commands_that_work() {
    let sandbox = Sandbox::start();
    let base = sandbox.base();
    assert_eq!(
        sandbox.first_line,
        format!("acd-sandbox listening on {base}")
    );
    let banner = sandbox.banner();
    assert_eq!(banner[0], format!("OpenAPI document: {base}/openapi.json"));
    assert_eq!(banner[1], format!("Stable-egress URL: {base}/egress"));
    for key in [
        "acd_live_demo_ada ",
        "acd_live_demo_ada_ci ",
        "acd_live_demo_bob ",
        "acd_oat_demo_ada_tables ",
        "acd_oat_demo_ada_noscope ",
        "acd_live_demo_expired ",
    ] {
        assert!(
            banner.iter().any(|line| line.trim_start().starts_with(key)),
            "{key}"
        );
    }
    let curls: Vec<&String> = banner
        .iter()
        .filter(|line| line.trim_start().starts_with("curl "))
        .collect();
    assert_eq!(curls.len(), 5);
    assert!(curls[2].contains(&format!("{base}/egress/v1/")));
    // In the order printed: the run created by the fourth is read by the fifth.
    for line in curls {
        let (method, headers, url) = parse_curl(line);
        let target = url.strip_prefix(&base).unwrap();
        let headers: Vec<(&str, &str)> = headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        let response = sandbox.request(method, target, &headers, "");
        assert_eq!(response.status, 200, "{line}");
    }
}

#[test]
fn a_configured_sandbox_reports_its_data_and_limits() {
    let sandbox = Sandbox::with_config(
        r#"{
            "base_url": "https://sandbox.example.com",
            "index": {"name": "My sandbox"},
            "limits": {"credential": {"requests": 50, "window_ms": 30000}},
            "extra_limits": {"user_table_reads": {"requests": 2, "window_ms": 5000}},
            "credentials": [{"secret": "acd_live_zoe", "kind": "api_key", "user": "zoe"}],
            "tables": [{"id": "notes", "owner": "zoe", "records": [{"n": 1}, {"n": 2}]}],
            "connections": []
        }"#,
    );
    let banner = sandbox.banner();
    assert_eq!(
        banner[1],
        "Stable-egress URL: https://sandbox.example.com/egress"
    );
    assert_eq!(
        banner[2],
        "Data from the configuration file (demo credentials: no, demo tables: no, demo connections: no)."
    );
    let index = sandbox.get("/api/v1", &[]).json();
    assert_eq!(index["name"], "My sandbox");
    assert_eq!(index["base_url"], "https://sandbox.example.com");
    assert_eq!(index["rate_limits"]["requests"], 50);
    assert_eq!(index["rate_limits"]["window_seconds"], 30);
    let notes = sandbox.get(
        "/api/v1/tables/notes?order_by=n&direction=desc",
        &[("X-API-Key", "acd_live_zoe")],
    );
    assert_eq!(notes.text(), r#"{"data":[{"n":2},{"n":1}]}"#);
    assert_eq!(notes.int("RateLimit-Limit"), 2);
    let egress = sandbox.get(
        "/egress/v1/connections/crm/records?entity_id=contacts",
        &[("X-API-Key", "acd_live_zoe")],
    );
    assert_eq!(egress.status, 404);
    let demo_key = sandbox.get(
        "/api/v1/tables/notes",
        &[("X-API-Key", "acd_live_demo_ada")],
    );
    assert_eq!(demo_key.status, 401);
}

#[test]
fn sigterm_lets_an_in_flight_response_finish_then_exits_0() {
    let payload = vec![b'x'; 24 * 1024 * 1024];
    let dir = std::env::temp_dir().join(format!("acd-sandbox-static-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("big.txt"), &payload).unwrap();
    let sandbox = Sandbox::start_with(None, &["--static", dir.to_str().unwrap()]);
    let mut idle = sandbox.connect();
    assert_eq!(idle.get("/api/v1", &[]).status, 200);
    let mut busy = sandbox.connect();
    busy.send(b"GET /demo/big.txt HTTP/1.1\r\nHost: x\r\n\r\n");
    let mut first = [0u8; 4096];
    let mut got = loop {
        match busy.stream.read(&mut first) {
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            other => break other.unwrap(),
        }
    };
    assert!(got > 0);
    let stopper = std::thread::spawn(move || sandbox.stop_with("TERM"));
    let mut rest = Vec::new();
    busy.stream.read_to_end(&mut rest).unwrap();
    got += rest.len();
    let head_len = [&first[..], &rest[..]]
        .concat()
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap()
        + 4;
    assert_eq!(got - head_len, payload.len(), "the whole body arrived");
    let (status, stderr) = stopper.join().unwrap();
    assert_eq!(status.code(), Some(0));
    assert!(stderr.contains("acd-sandbox: shutting down; letting in-flight requests finish"));
    assert!(
        idle.read_response().is_none(),
        "idle keep-alive connections are closed"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ctrl_c_exits_0() {
    let sandbox = Sandbox::start();
    assert_eq!(sandbox.get("/api/v1", &[]).status, 200);
    let (status, stderr) = sandbox.stop_with("INT");
    assert_eq!(status.code(), Some(0));
    assert!(stderr.contains("shutting down"));
}
