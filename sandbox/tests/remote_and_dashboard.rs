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
    let mut child = Command::new(BIN)
        .args(["--listen", "0.0.0.0:0", "--allow-remote", "--log", "off"])
        .args(extra)
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
        local.request("POST", "/_sandbox/reset", &[], "").status,
        200
    );
    let _ = child.kill();
    let _ = child.wait();
}
