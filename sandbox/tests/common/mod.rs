//! The harness of the HTTP suites: start the real `acd-sandbox` binary on a
//! free loopback port and talk raw HTTP/1.1 to it, byte for byte, so that
//! malformed, oversized and half-sent requests can be sent too.
//!
//! The suites live in the sandbox crate (not in acd-tests) because Cargo
//! gives integration tests of a package the exact path of its binary,
//! `env!("CARGO_BIN_EXE_acd-sandbox")`, and builds it first, whatever the
//! profile or target directory: no guessing of `target/`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_acd-sandbox");
/// The last line of the banner.
pub const LAST_LINE: &str = "Stop with Ctrl-C or SIGTERM.";
/// Ada's API key.
pub const ADA: &str = "acd_live_demo_ada";
/// Limits large enough never to refuse a test.
pub const NO_LIMITS: &str = r#"{"limits": {
    "credential": {"requests": 1000000, "window_ms": 60000},
    "client_ip": {"requests": 1000000, "window_ms": 60000}},
  "extra_limits": {"user_table_reads": {"requests": 1000000, "window_ms": 60000}}}"#;

/// A safety net against a hung server, not a timing assertion.
const IO_TIMEOUT: Duration = Duration::from_secs(30);

static FILES: AtomicUsize = AtomicUsize::new(0);

/// A temporary file, removed on drop.
pub struct TempFile(pub PathBuf);

impl TempFile {
    /// Writes `bytes` to a fresh file named after `suffix`.
    pub fn new(suffix: &str, bytes: &[u8]) -> Self {
        let n = FILES.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "acd-sandbox-test-{}-{n}-{suffix}",
            std::process::id()
        ));
        std::fs::write(&path, bytes).unwrap();
        Self(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A running sandbox.
pub struct Sandbox {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
    /// The first stdout line.
    pub first_line: String,
    lines: Arc<Mutex<Vec<String>>>,
    stderr: Option<std::thread::JoinHandle<String>>,
    /// With [`Sandbox::start_unread_stderr`]: the pipe, held open and unread.
    unread_stderr: Option<std::process::ChildStderr>,
    _config: Option<TempFile>,
}

impl Sandbox {
    /// With the built-in demo data and default limits.
    pub fn start() -> Self {
        Self::start_with(None, &[])
    }

    /// With a configuration file holding `json`.
    pub fn with_config(json: &str) -> Self {
        Self::start_with(Some(json), &[])
    }

    /// With an optional configuration and extra arguments.
    pub fn start_with(config: Option<&str>, args: &[&str]) -> Self {
        Self::start_full(config, args, true)
    }

    /// As [`Sandbox::start_with`], with stderr on a pipe that nobody reads
    /// until [`Sandbox::stop_with`].
    pub fn start_unread_stderr(config: Option<&str>, args: &[&str]) -> Self {
        Self::start_full(config, args, false)
    }

    fn start_full(config: Option<&str>, args: &[&str], read_stderr: bool) -> Self {
        let config = config.map(|json| TempFile::new("config.json", json.as_bytes()));
        let mut command = Command::new(BIN);
        command.args(["--listen", "127.0.0.1:0"]);
        if let Some(file) = &config {
            command.arg("--config").arg(&file.0);
        }
        let mut child = command
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut first_line = String::new();
        stdout.read_line(&mut first_line).unwrap();
        let first_line = first_line.trim_end().to_owned();
        let port: u16 = first_line
            .strip_prefix("acd-sandbox listening on http://127.0.0.1:")
            .unwrap_or_else(|| panic!("unexpected first line {first_line:?}"))
            .parse()
            .unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = lines.clone();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                sink.lock().unwrap().push(line);
            }
        });
        let err = child.stderr.take().unwrap();
        let (stderr, unread_stderr) = if read_stderr {
            (Some(read_all(err)), None)
        } else {
            (None, Some(err))
        };
        Self {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
            first_line,
            lines,
            stderr,
            unread_stderr,
            _config: config,
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The stdout lines after the first, once the banner is complete.
    pub fn banner(&self) -> Vec<String> {
        for _ in 0..3_000 {
            let lines = self.lines.lock().unwrap().clone();
            if lines.iter().any(|line| line == LAST_LINE) {
                return lines;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("the banner never ended");
    }

    /// A new connection.
    pub fn connect(&self) -> Conn {
        Conn::open(self.addr)
    }

    /// One `GET` on a fresh connection.
    pub fn get(&self, target: &str, headers: &[(&str, &str)]) -> Response {
        self.connect().get(target, headers)
    }

    /// One request with `body` on a fresh connection.
    pub fn request(
        &self,
        method: &str,
        target: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> Response {
        self.connect().request(method, target, headers, body)
    }

    /// One `POST` with a JSON body on a fresh connection (admin routes).
    pub fn post_json(&self, target: &str, body: &str) -> Response {
        self.request(
            "POST",
            target,
            &[("Content-Type", "application/json")],
            body,
        )
    }

    /// One `GET` with Ada's API key.
    pub fn get_as_ada(&self, target: &str) -> Response {
        self.get(target, &[("X-API-Key", ADA)])
    }

    /// Sends `signal` (e.g. `TERM`), then waits for the exit; returns the
    /// status and what was written on stderr.
    pub fn stop_with(mut self, signal: &str) -> (ExitStatus, String) {
        // An unread stderr is read from now on (before the signal, so that
        // the exit never waits on a full pipe).
        if let Some(err) = self.unread_stderr.take() {
            self.stderr = Some(read_all(err));
        }
        let status = Command::new("kill")
            .args([&format!("-{signal}"), &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let exit = self.child.wait().unwrap();
        let stderr = self.stderr.take().unwrap().join().unwrap();
        (exit, stderr)
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the process is still running.
    pub fn is_running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }
}

fn read_all(mut err: std::process::ChildStderr) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = err.read_to_string(&mut text);
        text
    })
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One parsed response.
#[derive(Debug, Clone)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// Header names (lower case) and values, in order.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(candidate, _)| candidate.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// A header parsed as an integer.
    pub fn int(&self, name: &str) -> u64 {
        self.header(name)
            .unwrap_or_else(|| panic!("no {name} header in {self:?}"))
            .parse()
            .unwrap()
    }

    /// The body as text.
    pub fn text(&self) -> &str {
        std::str::from_utf8(&self.body).unwrap()
    }

    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

/// A raw HTTP/1.1 connection.
pub struct Conn {
    /// The socket.
    pub stream: TcpStream,
    buffer: Vec<u8>,
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

impl Conn {
    /// Connects to `addr`.
    pub fn open(addr: SocketAddr) -> Self {
        let stream = TcpStream::connect(addr).unwrap();
        stream.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
        stream.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
        Self {
            stream,
            buffer: Vec::new(),
        }
    }

    /// Writes raw bytes.
    pub fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).unwrap();
    }

    fn fill(&mut self) -> bool {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            return match self.stream.read(&mut chunk) {
                Ok(0) => false,
                Ok(n) => {
                    self.buffer.extend_from_slice(&chunk[..n]);
                    true
                }
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(error) if error.kind() == std::io::ErrorKind::ConnectionReset => false,
                Err(error) => panic!("read failed: {error}"),
            };
        }
    }

    /// Reads one response; `None` when the server closed the connection first.
    pub fn read_response(&mut self) -> Option<Response> {
        let head_end = loop {
            if let Some(at) = find(&self.buffer, b"\r\n\r\n") {
                break at;
            }
            if !self.fill() {
                assert!(self.buffer.is_empty(), "truncated head {:?}", self.buffer);
                return None;
            }
        };
        let head = String::from_utf8(self.buffer[..head_end].to_vec()).unwrap();
        let mut lines = head.split("\r\n");
        let status_line = lines.next().unwrap();
        let status: u16 = status_line.split(' ').nth(1).unwrap().parse().unwrap();
        let headers: Vec<(String, String)> = lines
            .map(|line| {
                let (name, value) = line.split_once(':').unwrap();
                (name.to_ascii_lowercase(), value.trim().to_owned())
            })
            .collect();
        self.buffer.drain(..head_end + 4);
        let length = headers
            .iter()
            .find(|(name, _)| name == "content-length")
            .map(|(_, value)| value.parse::<usize>().unwrap());
        let body = match length {
            Some(length) => {
                while self.buffer.len() < length {
                    assert!(self.fill(), "truncated body");
                }
                self.buffer.drain(..length).collect()
            }
            None if status == 204 || status == 304 => Vec::new(),
            None => {
                while self.fill() {}
                std::mem::take(&mut self.buffer)
            }
        };
        Some(Response {
            status,
            headers,
            body,
        })
    }

    /// Sends a `GET` (keep-alive) and reads its response.
    pub fn get(&mut self, target: &str, headers: &[(&str, &str)]) -> Response {
        self.request("GET", target, headers, "")
    }

    /// Sends a request with `body` (keep-alive) and reads its response.
    pub fn request(
        &mut self,
        method: &str,
        target: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> Response {
        let mut request = format!("{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        if method != "GET" {
            request.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        request.push_str("\r\n");
        request.push_str(body);
        self.send(request.as_bytes());
        self.read_response()
            .expect("the server closed the connection")
    }

    /// Everything the server sends until it closes the connection.
    pub fn read_to_end(&mut self) -> Vec<u8> {
        while self.fill() {}
        std::mem::take(&mut self.buffer)
    }

    /// Whether the server has closed the connection (reads end-of-file),
    /// after discarding anything it sent first.
    pub fn is_closed_by_server(&mut self) -> bool {
        while self.fill() {}
        true
    }
}

/// Unix seconds by the test's clock.
pub fn unix_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// Waits until a fresh fixed window has at least `margin` seconds left, so
/// that a burst of requests cannot straddle a window boundary.
pub fn wait_for_fresh_window(reset_seconds: u64, margin: u64) {
    if reset_seconds < margin {
        std::thread::sleep(Duration::from_secs(reset_seconds + 1));
    }
}
