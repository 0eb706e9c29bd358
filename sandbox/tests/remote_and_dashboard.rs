//! Where users run the sandbox: a non-loopback address only with
//! `--allow-remote` (and a warning), and `--dashboard` serving the page and
//! the built package with no folder to assemble.
// A test crate: its helpers may unwrap and panic like the tests themselves.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Conn, Sandbox, BIN};
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Command, Stdio};

#[test]
fn a_non_loopback_address_is_refused_without_allow_remote() {
    let output = Command::new(BIN)
        .args(["--listen", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "acd-sandbox: --listen 0.0.0.0:0 is not a loopback address; the sandbox serves published \
         demo credentials and listens on loopback only (e.g. 127.0.0.1:8080 or [::1]:8080) unless \
         --allow-remote is given\n"
    );
}

/// Starts a sandbox on 0.0.0.0 with `extra` arguments; returns it, its
/// port and the banner line after the first.
fn start_remote(extra: &[&str]) -> (std::process::Child, u16, String) {
    start_remote_env(extra, &[])
}

/// As [`start_remote`], with environment variables.
fn start_remote_env(extra: &[&str], env: &[(&str, &str)]) -> (std::process::Child, u16, String) {
    let mut child = Command::new(BIN)
        .args(["--listen", "0.0.0.0:0", "--allow-remote", "--log", "off"])
        .args(extra)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let port: u16 = first
        .trim_end()
        .strip_prefix("acd-sandbox listening on http://0.0.0.0:")
        .unwrap_or_else(|| panic!("{first:?}"))
        .parse()
        .unwrap();
    let mut warning = String::new();
    stdout.read_line(&mut warning).unwrap();
    // Keep reading stdout so the sandbox never blocks on a full pipe.
    std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
    (child, port, warning)
}

#[test]
fn allow_remote_listens_and_warns_that_the_demo_credentials_are_public() {
    let (mut child, port, warning) = start_remote(&[]);
    assert_eq!(
        warning.trim_end(),
        format!(
            "WARNING: listening on a non-loopback address (--allow-remote). Anyone who can reach \
             http://0.0.0.0:{port} can use the server with the demo credentials below: they are \
             published, not secret."
        )
    );
    let mut conn = Conn::open(SocketAddr::from(([127, 0, 0, 1], port)));
    assert_eq!(conn.get("/api/v1", &[]).status, 200);
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn the_dashboard_is_served_from_the_page_and_the_built_package() {
    let wasm = std::env::temp_dir().join(format!("acd-sandbox-wasm-{}", std::process::id()));
    std::fs::create_dir_all(wasm.join("demo")).unwrap();
    std::fs::write(wasm.join("demo").join("index.html"), "<h1>dashboard</h1>").unwrap();
    let wasm_arg = format!("--dashboard={}", wasm.display());

    // Not built yet: a clear sentence and status 2.
    let output = Command::new(BIN)
        .args(["--listen", "127.0.0.1:0", &wasm_arg])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with("acd-sandbox: --dashboard: the browser package is not built (")
            && stderr.ends_with(
                "has no index.js); build it with scripts/lib/install-wasm-toolchain.sh && \
                 scripts/lib/build-wasm.sh\n"
            ),
        "{stderr}"
    );

    std::fs::create_dir_all(wasm.join("pkg")).unwrap();
    std::fs::write(wasm.join("pkg").join("index.js"), "export default 1;").unwrap();
    let sandbox = Sandbox::start_with(None, &[&wasm_arg]);
    assert!(sandbox
        .banner()
        .contains(&format!("Dashboard: {}/demo/", sandbox.base())));
    let page = sandbox.get("/demo/", &[]);
    assert_eq!(page.status, 200);
    assert_eq!(page.text(), "<h1>dashboard</h1>");
    let package = sandbox.get("/demo/pkg/index.js", &[]);
    assert_eq!(package.status, 200);
    assert_eq!(
        package.header("Content-Type"),
        Some("text/javascript; charset=utf-8")
    );
    assert_eq!(package.text(), "export default 1;");
    assert_eq!(sandbox.get("/demo/pkg/../index.html", &[]).status, 404);
    drop(sandbox);
    std::fs::remove_dir_all(&wasm).unwrap();
}

/// This machine's address on its default route (no packet is sent).
fn non_loopback_ip() -> std::net::IpAddr {
    let socket = std::net::UdpSocket::bind("0.0.0.0:0").unwrap();
    socket
        .connect("192.0.2.1:9")
        .expect("the tests need a non-loopback IPv4 address (a default route)");
    let ip = socket.local_addr().unwrap().ip();
    assert!(!ip.is_loopback(), "{ip}");
    ip
}

#[test]
fn admin_routes_answer_loopback_clients_only() {
    let (mut child, port, _) = start_remote(&["--admin"]);
    let mut remote = Conn::open(SocketAddr::new(non_loopback_ip(), port));
    let refused = remote.request("POST", "/_sandbox/reset", &[], "");
    assert_eq!(refused.status, 404);
    assert_eq!(refused.json()["status"], 404);
    assert_eq!(remote.get("/_sandbox/clock", &[]).status, 404);
    let mut local = Conn::open(SocketAddr::from(([127, 0, 0, 1], port)));
    assert_eq!(
        local.request("POST", "/_sandbox/reset", JSON, "").status,
        200
    );
    let _ = child.kill();
    let _ = child.wait();
}

const JSON: &[(&str, &str)] = &[("Content-Type", "application/json")];
const TOKEN: &str = "4f1c2a9e0b7d4e31a8c6f5d2e9b0a7c3";

/// The admin token's checks, from another host: the sandbox started with
/// `extra` (which gives it the token TOKEN one way or another).
fn remote_admin_with_token(mut child: std::process::Child, port: u16) {
    let remote = SocketAddr::new(non_loopback_ip(), port);
    let send = |method: &str, target: &str, headers: &[(&str, &str)], body: &str| {
        Conn::open(remote).request(method, target, headers, body)
    };
    let bearer = format!("Bearer {TOKEN}");
    let with_token = [
        ("Content-Type", "application/json"),
        ("Authorization", bearer.as_str()),
    ];
    // Without the token, or with another one: 401, saying what to send.
    for headers in [
        JSON.to_vec(),
        vec![
            ("Content-Type", "application/json"),
            ("Authorization", "Bearer not-the-token"),
        ],
        vec![
            ("Content-Type", "application/json"),
            ("Authorization", "Bearer 4f1c2a9e0b7d4e31a8c6f5d2e9b0a7c"),
        ],
    ] {
        let refused = send("POST", "/_sandbox/reset", &headers, "");
        assert_eq!(refused.status, 401, "{headers:?}");
        assert_eq!(
            refused.header("www-authenticate"),
            Some("Bearer realm=\"acd-sandbox admin\"")
        );
        assert!(refused.json()["detail"]
            .as_str()
            .unwrap()
            .contains("Authorization: Bearer"));
    }
    assert_eq!(send("GET", "/_sandbox/clock", &[], "").status, 401);
    // With it: the admin routes, under the same rules as on loopback.
    let clock = send("GET", "/_sandbox/clock", &with_token[1..], "");
    assert_eq!(clock.status, 200);
    assert_eq!(clock.json()["clock"], "manual");
    let before = clock.json()["now_ms"].as_u64().unwrap();
    let moved = send(
        "POST",
        "/_sandbox/clock",
        &with_token,
        r#"{"advance_ms": 61000}"#,
    );
    assert_eq!(moved.status, 200);
    assert_eq!(moved.json()["now_ms"].as_u64(), Some(before + 61_000));
    assert_eq!(send("POST", "/_sandbox/reset", &with_token, "").status, 200);
    assert_eq!(
        send("POST", "/_sandbox/reset", &with_token[1..], "").status,
        415
    );
    // Loopback needs no token.
    let mut local = Conn::open(SocketAddr::from(([127, 0, 0, 1], port)));
    assert_eq!(
        local.request("POST", "/_sandbox/reset", JSON, "").status,
        200
    );
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn the_admin_token_opens_the_admin_routes_to_other_hosts() {
    let (child, port, _) = start_remote(&["--clock", "manual", "--admin-token", TOKEN]);
    remote_admin_with_token(child, port);
}

#[test]
fn the_admin_token_can_come_from_the_environment() {
    let (child, port, _) = start_remote_env(
        &["--clock", "manual"],
        &[("ACD_SANDBOX_ADMIN_TOKEN", TOKEN)],
    );
    remote_admin_with_token(child, port);
}

#[test]
fn a_malformed_admin_token_is_a_usage_error() {
    let out = Command::new(BIN)
        .args(["--listen", "127.0.0.1:0", "--admin-token", "two words"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("the admin token must be 1 to 4096 visible ASCII characters"),
        "{stderr}"
    );
}
