//! The command line: `acd-sandbox [--listen ADDR] [--config FILE] [--static DIR]`
//! and the two timeouts; `--help` documents every option, the configuration
//! file's members and the server's bounds.

use crate::bounds::{self, Timeouts};
use clap::Parser;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

const CONFIG_HELP: &str = "\
Configuration file (--config FILE, JSON; every member optional):
  base_url            absolute base URL (default http://<listen address>)
  stable_egress_url   default <base_url>/egress; also served at its path here
  api_key_prefix      default acd_live_
  oauth_token_prefix  default acd_oat_
  credentials         [{\"secret\", \"type\": \"api_key\"|\"oauth2\", \"user\", \"scopes\": [..],
                        \"expires_at\": <Unix s>}]            (default: the demo credentials)
  tables              [{\"id\", \"owner\", \"records\": [{..}]}]    (default: the demo tables)
  connections         [{\"id\", \"owner\", \"entities\": {\"<entity_id>\": [{..}]}}]
                                                        (default: the demo connections)
  limits              {\"credential\"|\"client_ip\"|\"user_table_reads\":
                        {\"requests\": N, \"window_seconds\": S}}
  name, description, documentation_url, developers_url, openapi_url, llms_txt_url,
  access_request_url, trial, public_sandbox_available, scopes_supported,
  oauth_metadata_url, minimum_sunset_notice_days, webhooks_documentation_url
                      the index fields that are the operator's to choose
A bad file is reported once, with the JSON path of the problem, and exits with status 2.";

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
                  stable-egress URL), and GET /openapi.json. The first line on stdout is \
                  `acd-sandbox listening on http://ADDR:PORT`; with the built-in demo data, \
                  demo credentials and ready-to-paste curl commands follow.",
    after_help = "Run with --help for the configuration file and the server's bounds.",
    after_long_help = long_help()
)]
pub struct Args {
    /// Address to listen on (loopback only); port 0 picks a free port.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,

    /// JSON configuration file (members below); without it, built-in demo data.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Also serve the files of DIR under /demo/ (e.g. the browser dashboard).
    #[arg(long = "static", value_name = "DIR")]
    pub static_dir: Option<PathBuf>,

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

fn long_help() -> String {
    format!("{CONFIG_HELP}\n\n{}", bounds::help_text())
}

impl Args {
    /// The per-connection timeouts chosen.
    pub fn timeouts(&self) -> Timeouts {
        Timeouts {
            header: Duration::from_secs(self.header_timeout),
            idle: Duration::from_secs(self.idle_timeout),
            write: bounds::WRITE_TIMEOUT,
        }
    }
}
