//! A real `redis-server` for tests, on a free loopback port with a
//! throwaway data directory (`--save '' --appendonly no`), stopped by pid
//! when dropped.
//!
//! Tests that only need *a* server use [`shared`]: the URL in
//! `ACD_TEST_REDIS_URL` (set by `scripts/test-redis`), else a server of
//! their own. Tests that stop, pause or restart the server always start
//! their own. A missing `redis-server` fails the test with the command that
//! installs it: tests never skip silently.
#![allow(dead_code)]

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// One redis-server process.
pub struct RedisServer {
    child: Option<Child>,
    port: u16,
    dir: PathBuf,
    extra: Vec<String>,
    paused: bool,
}

static SERVERS: AtomicUsize = AtomicUsize::new(0);

fn binary() -> String {
    std::env::var("ACD_REDIS_SERVER").unwrap_or_else(|_| "redis-server".to_owned())
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    listener.local_addr().expect("local address").port()
}

impl RedisServer {
    /// A fresh server.
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// A fresh server with extra `redis-server` arguments.
    pub fn start_with(extra: &[&str]) -> Self {
        let n = SERVERS.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("acd-redis-test-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create the data directory");
        let mut server = Self {
            child: None,
            port: 0,
            dir,
            extra: extra.iter().map(|s| (*s).to_owned()).collect(),
            paused: false,
        };
        let mut last = String::new();
        for _ in 0..5 {
            server.port = free_port();
            match server.spawn() {
                Ok(()) => return server,
                Err(why) => last = why,
            }
        }
        panic!("redis-server did not start: {last}");
    }

    fn spawn(&mut self) -> Result<(), String> {
        let log = self.dir.join("redis.log");
        let child = Command::new(binary())
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
            .arg("--dir")
            .arg(&self.dir)
            .arg("--logfile")
            .arg(&log)
            .args(&self.extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|error| {
                panic!(
                    "cannot run {} ({error}); install it with scripts/lib/install-redis.sh \
                     or run the suite with scripts/test-redis",
                    binary()
                )
            });
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Some(child) = self.child.as_mut() {
                if let Ok(Some(status)) = child.try_wait() {
                    self.child = None;
                    let log = std::fs::read_to_string(&log).unwrap_or_default();
                    return Err(format!("exited with {status}: {log}"));
                }
            }
            if self.ping() {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        self.kill();
        Err("no PONG within 20 s".to_owned())
    }

    fn ping(&self) -> bool {
        let Ok(client) = redis::Client::open(self.url()) else {
            return false;
        };
        let Ok(mut con) = client.get_connection_with_timeout(Duration::from_millis(200)) else {
            return false;
        };
        redis::cmd("PING").query::<String>(&mut con).is_ok()
    }

    /// `redis://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// The pid of the running process.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// A plain connection for inspecting keys.
    pub fn connection(&self) -> redis::Connection {
        connect(&self.url())
    }

    fn signal(&self, signal: &str) {
        if let Some(pid) = self.pid() {
            let status = Command::new("kill")
                .args([signal, &pid.to_string()])
                .status()
                .expect("run kill");
            assert!(status.success(), "kill {signal} {pid} failed");
        }
    }

    /// Freezes the server (SIGSTOP): connections stay open, nothing answers.
    pub fn pause(&mut self) {
        self.signal("-STOP");
        self.paused = true;
    }

    /// Lets a paused server run again (SIGCONT).
    pub fn resume(&mut self) {
        self.signal("-CONT");
        self.paused = false;
    }

    fn kill(&mut self) {
        if self.paused {
            self.resume();
        }
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Stops the server (its data is gone: no persistence).
    pub fn stop(&mut self) {
        self.kill();
    }

    /// Starts it again on the same port, empty.
    pub fn restart(&mut self) {
        self.kill();
        let mut last = String::new();
        for _ in 0..50 {
            match self.spawn() {
                Ok(()) => return,
                Err(why) => last = why,
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("redis-server did not restart on port {}: {last}", self.port);
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A connection to `url`, or a loud failure.
pub fn connect(url: &str) -> redis::Connection {
    redis::Client::open(url)
        .and_then(|client| client.get_connection_with_timeout(Duration::from_secs(5)))
        .unwrap_or_else(|error| panic!("cannot connect to {url}: {error}"))
}

/// The server tests share: `ACD_TEST_REDIS_URL` if set (checked with a
/// PING), else a server of this test's own (kept alive by the guard).
pub fn shared() -> (String, Option<RedisServer>) {
    match std::env::var("ACD_TEST_REDIS_URL") {
        Ok(url) if !url.is_empty() => {
            let mut con = connect(&url);
            let pong: String = redis::cmd("PING").query(&mut con).unwrap_or_else(|error| {
                panic!("ACD_TEST_REDIS_URL={url} does not answer PING: {error}")
            });
            assert_eq!(pong, "PONG");
            (url, None)
        }
        _ => {
            let server = RedisServer::start();
            (server.url(), Some(server))
        }
    }
}

/// A namespace no other test (or run) uses.
pub fn unique_namespace(label: &str) -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        "{label}-{}-{nanos}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    )
}
