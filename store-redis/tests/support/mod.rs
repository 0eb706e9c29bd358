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
    /// Holds the port while the server is stopped, so that no other test's
    /// server (or fake) takes it before `restart`.
    placeholder: Option<TcpListener>,
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
            placeholder: None,
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

    /// Stops the server (its data is gone: no persistence). The port stays
    /// reserved for `restart`: connections to it are accepted by the kernel
    /// and never answered (clients time out) until then.
    pub fn stop(&mut self) {
        self.kill();
        for _ in 0..50 {
            if let Ok(listener) = TcpListener::bind(("127.0.0.1", self.port)) {
                self.placeholder = Some(listener);
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Starts it again on the same port, empty.
    pub fn restart(&mut self) {
        self.kill();
        self.placeholder = None;
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

/// A Redis Cluster of three masters (no replicas) on loopback ports, joined
/// with `redis-cli --cluster create`; every server is stopped when dropped.
pub struct Cluster {
    /// The masters, in the order given to `redis-cli`.
    pub nodes: Vec<RedisServer>,
}

impl Cluster {
    /// Three `redis-server --cluster-enabled yes`, joined, with every slot
    /// served (`cluster_state:ok` on every node). A master that dies leaves
    /// its slots unserved but the others keep serving theirs
    /// (`cluster-require-full-coverage no`).
    pub fn start() -> Self {
        let nodes: Vec<RedisServer> = (0..3)
            .map(|_| {
                RedisServer::start_with(&[
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    "nodes.conf",
                    "--cluster-node-timeout",
                    "2000",
                    "--cluster-require-full-coverage",
                    "no",
                ])
            })
            .collect();
        let addresses: Vec<String> = nodes
            .iter()
            .map(|node| format!("127.0.0.1:{}", node.port))
            .collect();
        let cli = std::env::var("ACD_REDIS_CLI").unwrap_or_else(|_| "redis-cli".to_owned());
        let output = Command::new(&cli)
            .arg("--cluster")
            .arg("create")
            .args(&addresses)
            .args(["--cluster-replicas", "0", "--cluster-yes"])
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|error| {
                panic!("cannot run {cli} ({error}); install it with scripts/lib/install-redis.sh")
            });
        assert!(
            output.status.success(),
            "redis-cli --cluster create failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        let cluster = Self { nodes };
        let deadline = Instant::now() + Duration::from_secs(30);
        for node in &cluster.nodes {
            let mut con = node.connection();
            loop {
                let info: String = redis::cmd("CLUSTER").arg("INFO").query(&mut con).unwrap();
                if info.contains("cluster_state:ok") {
                    break;
                }
                assert!(
                    Instant::now() < deadline,
                    "the cluster never became ok: {info}"
                );
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        cluster
    }

    /// The position in `nodes` of the master serving `slot`.
    pub fn owner(&self, slot: u16) -> usize {
        let mut con = self.nodes[0].connection();
        let text: String = redis::cmd("CLUSTER").arg("NODES").query(&mut con).unwrap();
        for line in text.lines() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let Some(address) = fields.get(1) else {
                continue;
            };
            let port: u16 = address
                .split(['@', ':'])
                .nth(1)
                .and_then(|p| p.parse().ok())
                .unwrap_or(0);
            for range in fields.iter().skip(8) {
                let (low, high) = range.split_once('-').unwrap_or((range, range));
                let (Ok(low), Ok(high)) = (low.parse::<u16>(), high.parse::<u16>()) else {
                    continue;
                };
                if (low..=high).contains(&slot) {
                    return self
                        .nodes
                        .iter()
                        .position(|node| node.port == port)
                        .expect("the owner is one of ours");
                }
            }
        }
        panic!("no master serves slot {slot}: {text}");
    }
}

/// Waits (bounded: a hang guard) until the node behind `con` reports
/// `cluster_state:ok`.
pub fn wait_cluster_ok(con: &mut redis::Connection) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let info: String = redis::cmd("CLUSTER").arg("INFO").query(con).unwrap();
        if info.contains("cluster_state:ok") {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the cluster never became ok: {info}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
