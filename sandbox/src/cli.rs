//! The command line: `acd-sandbox [--listen ADDR] [--config FILE] [--static DIR]`
//! and the two timeouts; `--help` documents every option, the configuration
//! file's members and the server's bounds.

use crate::bounds::{self, Timeouts};
use crate::reqlog::LogFormat;
use clap::Parser;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

const CONFIG_HELP: &str = "\
Configuration file (--config FILE, JSON; every member optional; JSON Schema:
sandbox/config.schema.json). Every member of core's GateConfig, with the same
names and units as in every binding:
  version, base_url (default http://<listen address>), stable_egress_url
  (default <base_url>/egress: it moves with base_url unless set too),
  api_key_prefix, oauth_token_prefix, stable_egress_header, realm,
  limits      {\"credential\"|\"client_ip\": {\"requests\": N, \"window_ms\": MS}}
  catalogue, version_deprecation,
  index       {\"name\", \"trial\", \"documentation_url\", ...}
and the sandbox's own:
  credentials [{\"secret\", \"kind\": \"api_key\"|\"oauth2\", \"user\", \"scopes\": [..],
                \"expires_at\": <Unix ms>, \"id\"}]        (default: the demo credentials)
  tables      [{\"id\", \"owner\", \"records\": [{..}]}]          (default: the demo tables)
  connections [{\"id\", \"owner\", \"entities\": {\"<entity_id>\": [{..}]}}]
                                                        (default: the demo connections)
  extra_limits {\"user_table_reads\"|\"agent_runs\": {\"requests\": N, \"window_ms\": MS}}
  runs        {\"lifecycle\": [{\"status\", \"duration_ms\"}, .., {\"status\": \"succeeded\"}],
               \"agents\": {\"<agent_id>\": [..]}}   (default: queued 1 s, running 2 s,
               succeeded; agent failing-agent ends failed)
  faults      {\"seed\": N, \"rules\": [{\"path\": \"/api/v1/tables/*\", \"probability\": P,
               one of \"status\": S (+ \"retry_after\": s) | \"latency_ms\": MS |
               \"drop\": true | \"truncate\": true}],
               \"examples\": [{\"name\", \"status\": 200, \"body\": {..}, \"path\"}]}
                                        (applied with --faults only)
A bad file is reported once, with the JSON path of the problem, and exits with status 2.";

/// The `wasm/` directory of the source tree the binary was built from.
pub const DEFAULT_WASM_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../wasm");

/// Where the sandbox's time comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ClockMode {
    /// The system clock.
    System,
    /// A manual clock, moved by POST /_sandbox/clock only.
    Manual,
}

/// A local HTTP/1.1 server for the Agent and Connected-Data API whose every
/// rule comes from acd-core.
#[derive(Debug, Parser)]
#[command(
    name = "acd-sandbox",
    version,
    about = "A local HTTP/1.1 server for the Agent and Connected-Data API; every rule comes \
             from acd-core.",
    long_about = "A local HTTP/1.1 server for the Agent and Connected-Data API; every rule \
                  comes from acd-core.\n\nServes GET /api/v1, GET /api/v1/tables/{id}, \
                  GET /api/v1/connections/{connection_id}/records (also under the \
                  stable-egress URL), POST /api/v1/agents/{agent_id}/runs, \
                  GET /api/v1/runs/{run_id}, and GET /openapi.json. The first line on stdout is \
                  `acd-sandbox listening on http://ADDR:PORT`; with the built-in demo data, \
                  demo credentials and ready-to-paste curl commands follow.",
    after_help = "Run with --help for the configuration file and the server's bounds.",
    after_long_help = long_help()
)]
pub struct Args {
    /// Address to listen on (loopback unless --allow-remote); port 0 picks a free port.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,

    /// Allow a non-loopback --listen address (the demo credentials are public).
    #[arg(long)]
    pub allow_remote: bool,

    /// Honour `Prefer` as Prism reads it (code=N, example=NAME, latency=MS,
    /// drop, truncate, retry-after=S) and the configuration's fault rules.
    #[arg(long)]
    pub faults: bool,

    /// Send signed run lifecycle webhooks to URL (repeatable; an http://
    /// URL). The secret is --webhook-secret, or one generated at start and
    /// printed in the banner.
    #[arg(long = "webhook", value_name = "URL")]
    pub webhooks: Vec<String>,

    /// The whsec_... secret that signs the deliveries to every --webhook URL.
    #[arg(
        long,
        value_name = "WHSEC",
        env = "ACD_SANDBOX_WEBHOOK_SECRET",
        hide_env_values = true
    )]
    pub webhook_secret: Option<String>,

    /// Where time comes from: the system clock, or a manual clock moved only
    /// by POST /_sandbox/clock (turns the admin routes on).
    #[arg(long, value_enum, default_value_t = ClockMode::System)]
    pub clock: ClockMode,

    /// Serve the admin routes (GET/POST /_sandbox/clock, POST /_sandbox/reset)
    /// to loopback clients.
    #[arg(long)]
    pub admin: bool,

    /// Also let other hosts use the admin routes with `Authorization: Bearer
    /// TOKEN` (e.g. from the host into a container); turns them on.
    #[arg(long, value_name = "TOKEN", env = "ACD_SANDBOX_ADMIN_TOKEN", hide_env_values = true,
          value_parser = parse_admin_token)]
    pub admin_token: Option<acd_core::model::Secret>,

    /// With the admin routes on: how many of the latest requests
    /// GET /_sandbox/requests shows (0: none are kept).
    #[arg(
        long,
        value_name = "N",
        default_value_t = crate::recorder::DEFAULT_CAPACITY,
        value_parser = clap::value_parser!(u32).range(0..=i64::from(crate::recorder::MAX_CAPACITY))
    )]
    pub recorded_requests: u32,

    /// The request log on stderr: one text line per request, one JSON
    /// object per line, or none.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log: LogFormat,

    /// JSON configuration file (members below); without it, built-in demo data.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Also serve the files of DIR under /demo/.
    #[arg(long = "static", value_name = "DIR", conflicts_with = "dashboard")]
    pub static_dir: Option<PathBuf>,

    /// Serve the browser dashboard under /demo/: the one built into this
    /// binary (release builds), or WASM_DIR/demo and the package built by
    /// scripts/lib/build-wasm.sh (WASM_DIR/pkg) [default: the built-in one,
    /// else the wasm/ directory of the source tree the sandbox was built from].
    #[arg(long, value_name = "WASM_DIR", num_args = 0..=1)]
    pub dashboard: Option<Option<PathBuf>>,

    /// Share rate limits with every sandbox using the same Redis (e.g.
    /// redis://127.0.0.1:6379); without it, limits are kept in memory.
    #[arg(long, value_name = "URL")]
    pub redis: Option<String>,

    /// Redis key namespace (its hash tag); sandboxes that share limits use the same one [default: acd].
    #[arg(long, value_name = "NAME", requires = "redis")]
    pub redis_namespace: Option<String>,

    /// While Redis cannot answer, reply 503 with Retry-After instead of
    /// enforcing the limits per process (the default, "fail open").
    #[arg(long, requires = "redis")]
    pub redis_fail_closed: bool,

    /// The --redis URL is one node of a Redis Cluster (the others are discovered).
    #[arg(long, requires = "redis")]
    pub redis_cluster: bool,

    /// Seconds a client has to send a whole request head once it started; then 408 and close.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = bounds::DEFAULT_HEADER_TIMEOUT_SECS,
        value_parser = clap::value_parser!(u64).range(1..=3600)
    )]
    pub header_timeout: u64,

    /// Seconds an idle keep-alive connection is kept open.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = bounds::DEFAULT_IDLE_TIMEOUT_SECS,
        value_parser = clap::value_parser!(u64).range(1..=86_400)
    )]
    pub idle_timeout: u64,
}

/// An admin token: 1 to 4,096 visible ASCII characters (it travels in a
/// header).
fn parse_admin_token(text: &str) -> Result<acd_core::model::Secret, String> {
    if text.is_empty() || text.len() > 4_096 || !text.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(
            "the admin token must be 1 to 4096 visible ASCII characters \
                    (no spaces), e.g. the output of `openssl rand -hex 16`"
                .into(),
        );
    }
    Ok(acd_core::model::Secret::new(text))
}

fn long_help() -> String {
    format!("{CONFIG_HELP}\n\n{}", bounds::help_text())
}

impl Args {
    /// Whether the admin routes are on.
    pub fn admin_routes(&self) -> bool {
        self.admin || self.admin_token.is_some() || self.clock == ClockMode::Manual
    }

    /// The per-connection timeouts chosen.
    pub fn timeouts(&self) -> Timeouts {
        Timeouts {
            header: Duration::from_secs(self.header_timeout),
            idle: Duration::from_secs(self.idle_timeout),
            write: bounds::WRITE_TIMEOUT,
        }
    }
}
