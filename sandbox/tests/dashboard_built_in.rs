//! `--dashboard` with no directory: the dashboard built into the binary
//! (cargo feature `dashboard`, what scripts/dist ships), else the source
//! tree's built package, else one sentence, exit 2, that names no path of
//! the machine the binary was built on.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_acd-sandbox");

#[cfg(not(feature = "dashboard"))]
#[test]
fn without_a_built_in_dashboard_the_sentence_names_no_build_path() {
    let mut child = Command::new(BIN)
        .args(["--listen", "127.0.0.1:0", "--dashboard", "--log", "off"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    if first.starts_with("acd-sandbox listening on ") {
        // This source tree has its wasm package built: served from it.
        let _ = child.kill();
        let _ = child.wait();
        return;
    }
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with("acd-sandbox: --dashboard: this acd-sandbox has no dashboard built in"),
        "{stderr}"
    );
    assert!(stderr.contains("--dashboard WASM_DIR"), "{stderr}");
    assert!(!stderr.contains(env!("CARGO_MANIFEST_DIR")), "{stderr}");
    assert!(!stderr.contains("/tmp"), "{stderr}");
}

#[cfg(feature = "dashboard")]
#[test]
fn the_built_in_dashboard_is_served_from_a_directory_with_nothing_in_it() {
    let empty = std::env::temp_dir().join(format!("acd-sandbox-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let mut child = Command::new(BIN)
        .args(["--listen", "127.0.0.1:0", "--dashboard", "--log", "off"])
        .current_dir(&empty)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let base = first
        .trim()
        .strip_prefix("acd-sandbox listening on http://")
        .unwrap()
        .to_owned();
    let get = |path: &str| {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(&base).unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer
    };
    let page = get("/demo/");
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(page.contains("text/html"), "{page}");
    assert!(get("/demo/../Cargo.toml").starts_with("HTTP/1.1 404"));
    let _ = child.kill();
    let _ = child.wait();
    std::fs::remove_dir_all(&empty).unwrap();
}
