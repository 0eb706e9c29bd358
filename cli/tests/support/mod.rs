//! Test support for the `acd` binary: run it (`acd(...)`), start the real
//! `acd-sandbox` on a free port with a chosen table-read window (the
//! sandbox's configuration dialect lives in ONE place: [`sandbox_config`]),
//! and a scripted HTTP server that injects faults ([`FaultServer`]).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The binary under test.
pub const ACD: &str = env!("CARGO_BIN_EXE_acd");
/// Ada's demo API key (published demo data, not a secret).
pub const ADA: &str = "acd_live_demo_ada";

/// What one run of `acd` produced.
#[derive(Debug)]
pub struct Run {
    /// The exit status code (`None` if killed by a signal).
    pub code: Option<i32>,
    /// stdout.
    pub stdout: String,
    /// stderr.
    pub stderr: String,
}

impl Run {
    /// stdout's non-empty lines.
    pub fn lines(&self) -> Vec<&str> {
        self.stdout
            .lines()
            .filter(|line| !line.is_empty())
            .collect()
    }

    /// stdout's lines parsed as JSON.
    pub fn records(&self) -> Vec<Value> {
        self.lines()
            .iter()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }
}

/// `acd` with no `ACD_*` variable inherited, on a virtual clock
/// (`ACD_VIRTUAL_CLOCK=now`: the waits the core plans take no real time;
/// exchanges stay real). [`acd_real`] runs it on the real clock, for the
/// real sandbox (whose windows pass in real time) and Ctrl-C.
pub fn acd_command() -> Command {
    let mut command = Command::new(ACD);
    command.env("ACD_VIRTUAL_CLOCK", "now");
    for name in [
        "ACD_LOG",
        "ACD_BASE_URL",
        "ACD_API_KEY",
        "ACD_TOKEN",
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "ALL_PROXY",
        "all_proxy",
        "NO_PROXY",
        "no_proxy",
    ] {
        command.env_remove(name);
    }
    command.stdin(Stdio::null());
    command
}

/// `acd tables read t` against `server` with ada's key, then `extra`.
pub fn read_table_t(server: &FaultServer, extra: &[&str]) -> Run {
    let mut args = vec![
        "tables",
        "read",
        "t",
        "--base-url",
        &server.url,
        "--api-key",
        ADA,
    ];
    args.extend_from_slice(extra);
    acd(&args)
}

/// Runs `acd args...` to its end.
pub fn acd(args: &[&str]) -> Run {
    acd_env(args, &[])
}

/// Runs `acd args...` on the real clock.
pub fn acd_real(args: &[&str]) -> Run {
    acd_env(args, &[("ACD_VIRTUAL_CLOCK", "")])
}

/// Runs `acd args...` with extra environment variables.
pub fn acd_env(args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut command = acd_command();
    command.args(args);
    for (name, value) in env {
        command.env(name, value);
    }
    finish(command.output().unwrap())
}

fn finish(output: Output) -> Run {
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The sandbox configuration of the tests: Ada's demo credentials, the
/// `tables` given (owner `ada`) and a table-read limit of `reads` per
/// `window_seconds`; the other limits are out of the way.
pub fn sandbox_config(tables: &[(&str, Vec<Value>)], reads: u32, window_seconds: u64) -> Value {
    let tables: Vec<Value> = tables
        .iter()
        .map(|(id, records)| json!({"id": id, "owner": "ada", "records": records}))
        .collect();
    let mut config = json!({
        "limits": {
            "credential": {"requests": 1_000_000, "window_ms": 60_000},
            "client_ip": {"requests": 1_000_000, "window_ms": 60_000}
        },
        "extra_limits": {
            "user_table_reads": {"requests": reads, "window_ms": window_seconds * 1000}
        }
    });
    if !tables.is_empty() {
        config["tables"] = Value::Array(tables);
    }
    config
}

/// The acd-sandbox binary: next to `acd` in the same target directory
/// (built there by `cargo test --workspace`), or built now.
fn sandbox_binary() -> PathBuf {
    let path =
        Path::new(ACD).with_file_name(format!("acd-sandbox{}", std::env::consts::EXE_SUFFIX));
    if !path.exists() {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut build = Command::new(cargo);
        build.args(["build", "--quiet", "-p", "acd-sandbox", "--manifest-path"]);
        build.arg(&manifest);
        if path.parent().is_some_and(|dir| dir.ends_with("release")) {
            build.arg("--release");
        }
        assert!(
            build.status().unwrap().success(),
            "building acd-sandbox failed"
        );
    }
    path
}

static FILES: AtomicUsize = AtomicUsize::new(0);

/// A running acd-sandbox, stopped on drop.
pub struct Sandbox {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    config: PathBuf,
}

impl Sandbox {
    /// Starts the sandbox with `config` on a free loopback port.
    pub fn start(config: &Value) -> Self {
        Self::start_with(config, &[])
    }

    /// Starts the sandbox with `config` and the extra arguments `args`.
    pub fn start_with(config: &Value, args: &[&str]) -> Self {
        let file = std::env::temp_dir().join(format!(
            "acd-cli-test-{}-{}.json",
            std::process::id(),
            FILES.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&file, config.to_string()).unwrap();
        let mut child = Command::new(sandbox_binary())
            .args(["--listen", "127.0.0.1:0", "--config"])
            .arg(&file)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        stdout.read_line(&mut first).unwrap();
        let url = first
            .trim_end()
            .strip_prefix("acd-sandbox listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {first:?}"))
            .to_owned();
        std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
        Self {
            child,
            url,
            config: file,
        }
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.config);
    }
}

/// What the fault server does with one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// Answer with this status, headers and body (and close the connection).
    Respond {
        /// Status code.
        status: u16,
        /// Extra headers.
        headers: Vec<(String, String)>,
        /// Body.
        body: String,
    },
    /// Read the request, then close the connection without answering.
    Drop,
    /// Read the request, then say nothing for this long.
    Hang(Duration),
    /// A 200 announcing this many bytes of body, written until the client
    /// stops reading.
    Huge(usize),
    /// A chunked 200 of this many bytes, written until the client stops.
    HugeChunked(usize),
    /// A 200 announcing a body of `length` bytes, then written one byte
    /// every `every` (until the client goes away).
    Trickle {
        /// The announced and eventual body length.
        length: usize,
        /// The pause before each byte.
        every: Duration,
    },
}

impl Reply {
    /// A JSON answer.
    pub fn json(status: u16, body: Value) -> Self {
        Reply::Respond {
            status,
            headers: Vec::new(),
            body: body.to_string(),
        }
    }

    /// A `{"data": records}` page.
    pub fn page(records: Value) -> Self {
        Self::json(200, json!({ "data": records }))
    }

    /// An Error body.
    pub fn error(status: u16, detail: &str) -> Self {
        Self::json(status, json!({"detail": detail, "status": status}))
    }

    /// Adds a header (builder form).
    pub fn header(mut self, name: &str, value: &str) -> Self {
        if let Reply::Respond { headers, .. } = &mut self {
            headers.push((name.to_owned(), value.to_owned()));
        }
        self
    }
}

/// One request the fault server saw.
#[derive(Debug, Clone)]
pub struct Seen {
    /// `GET /api/v1/... HTTP/1.1`.
    pub line: String,
    /// Header lines as received.
    pub headers: Vec<(String, String)>,
    /// When it arrived.
    pub at: Instant,
    /// The body, as text.
    pub body: String,
}

impl Seen {
    /// The request target (path and query).
    pub fn target(&self) -> &str {
        self.line.split(' ').nth(1).unwrap_or("")
    }

    /// A header's value (case-insensitive name).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(candidate, _)| candidate.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// An HTTP/1.1 server on a free loopback port answering request `n` with
/// `script[n]` (the last entry repeats), recording every request.
pub struct FaultServer {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    written: Arc<AtomicUsize>,
}

impl FaultServer {
    /// Starts serving `script`.
    pub fn start(script: Vec<Reply>) -> Self {
        assert!(!script.is_empty());
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let written = Arc::new(AtomicUsize::new(0));
        let counter = written.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let index = {
                    let log = log.lock().unwrap();
                    log.len()
                };
                let reply = script[index.min(script.len() - 1)].clone();
                let log = log.clone();
                let counter = counter.clone();
                std::thread::spawn(move || serve(stream, &reply, &log, &counter));
            }
        });
        Self { url, seen, written }
    }

    /// Body bytes written by the huge replies so far.
    pub fn written(&self) -> usize {
        self.written.load(Ordering::Relaxed)
    }

    /// Every request so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// Waits until `n` requests arrived.
    pub fn wait_for(&self, n: usize) {
        while self.count() < n {
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The bodies of every request so far.
    pub fn bodies(&self) -> Vec<String> {
        self.seen().into_iter().map(|seen| seen.body).collect()
    }

    /// How many requests arrived.
    pub fn count(&self) -> usize {
        self.seen.lock().unwrap().len()
    }
}

fn serve(mut stream: TcpStream, reply: &Reply, log: &Mutex<Vec<Seen>>, written: &AtomicUsize) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut headers = Vec::new();
    let mut length = 0usize;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.trim_end().split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
            headers.push((name.to_owned(), value.trim().to_owned()));
        }
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    log.lock().unwrap().push(Seen {
        line: line.trim_end().to_owned(),
        headers,
        at: Instant::now(),
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    match reply {
        Reply::Drop => {
            let _ = stream.shutdown(Shutdown::Both);
        }
        Reply::Hang(duration) => std::thread::sleep(*duration),
        Reply::Trickle { length, every } => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n"
            );
            if stream.write_all(head.as_bytes()).is_err() {
                return;
            }
            for _ in 0..*length {
                std::thread::sleep(*every);
                if stream
                    .write_all(b" ")
                    .and_then(|()| stream.flush())
                    .is_err()
                {
                    return;
                }
                written.fetch_add(1, Ordering::Relaxed);
            }
        }
        Reply::Huge(size) | Reply::HugeChunked(size) => {
            let chunked = matches!(reply, Reply::HugeChunked(_));
            let head = if chunked {
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n".to_owned()
            } else {
                format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {size}\r\nConnection: close\r\n\r\n")
            };
            if stream.write_all(head.as_bytes()).is_err() {
                return;
            }
            let block = vec![b' '; 64 * 1024];
            let mut sent = 0;
            while sent < *size {
                let result = if chunked {
                    stream
                        .write_all(format!("{:x}\r\n", block.len()).as_bytes())
                        .and_then(|()| stream.write_all(&block))
                        .and_then(|()| stream.write_all(b"\r\n"))
                } else {
                    stream.write_all(&block)
                };
                if result.is_err() {
                    return;
                }
                sent += block.len();
                written.fetch_add(block.len(), Ordering::Relaxed);
            }
        }
        Reply::Respond {
            status,
            headers,
            body,
        } => {
            let mut head = format!(
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
                body.len()
            );
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body.as_bytes());
            let _ = stream.flush();
        }
    }
}

/// Unix seconds now.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// Starts `acd args...` with piped stdout and stderr.
pub fn spawn(args: &[&str]) -> Child {
    acd_command()
        .env("ACD_VIRTUAL_CLOCK", "")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Sends SIGINT to `child`.
pub fn interrupt(child: &Child) {
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Waits for `child` and collects what it wrote.
pub fn collect(child: Child) -> Run {
    finish(child.wait_with_output().unwrap())
}

/// Runs `acd args... --base-url URL --api-key ADA`.
pub fn as_ada(url: &str, args: &[&str]) -> Run {
    let mut all = args.to_vec();
    all.extend_from_slice(&["--base-url", url, "--api-key", ADA]);
    acd(&all)
}

/// [`as_ada`] on the real clock.
pub fn as_ada_real(url: &str, args: &[&str]) -> Run {
    let mut all = args.to_vec();
    all.extend_from_slice(&["--base-url", url, "--api-key", ADA]);
    acd_real(&all)
}

/// An HTTP CONNECT proxy on a free loopback port that records the first
/// line and headers of every request it gets and tunnels CONNECTs to their
/// target.
pub struct RecordingProxy {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl RecordingProxy {
    /// Starts the proxy.
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let log = log.clone();
                std::thread::spawn(move || tunnel(stream, &log));
            }
        });
        Self { url, seen }
    }

    /// Every request so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn tunnel(mut client: TcpStream, log: &Mutex<Vec<Seen>>) {
    let mut reader = BufReader::new(client.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.trim_end().split_once(':') {
            headers.push((name.to_owned(), value.trim().to_owned()));
        }
    }
    let line = line.trim_end().to_owned();
    log.lock().unwrap().push(Seen {
        line: line.clone(),
        headers,
        at: Instant::now(),
        body: String::new(),
    });
    let target = line.split(' ').nth(1).unwrap_or("").to_owned();
    let Ok(mut upstream) = TcpStream::connect(&target) else {
        let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n");
        return;
    };
    let _ = client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n");
    let mut upstream_reader = upstream.try_clone().unwrap();
    let mut client_writer = client.try_clone().unwrap();
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut upstream_reader, &mut client_writer);
        let _ = client_writer.shutdown(Shutdown::Both);
    });
    // What the reader already buffered belongs to the tunnel too.
    let buffered = reader.buffer().to_vec();
    let _ = upstream.write_all(&buffered);
    let mut rest = reader.into_inner();
    let _ = std::io::copy(&mut rest, &mut upstream);
    let _ = upstream.shutdown(Shutdown::Write);
}
