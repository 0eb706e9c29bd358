//! `acd listen` and `acd webhooks trigger`: the command-line side of the
//! run lifecycle webhooks (Standard Webhooks; `docs/webhooks.md`). Every
//! check, header and signature is acd-core's (`acd_core::webhooks`); this
//! module parses the arguments, and sends one signed event for `trigger`.
//!
//! Exit statuses of `trigger`: 0 the endpoint answered 2xx; 1 it answered
//! anything else or could not be reached; 2 bad arguments (a malformed
//! secret, `--data` that is not a JSON object); nothing was sent.

use crate::exit;
use acd_core::webhooks::{event_body, signed_headers, RunEventType, Secret};
use acd_core::UnixMillis;
use clap::{Args, Subcommand};
use serde_json::{json, Value};
use std::time::Duration;

/// How long `trigger` and the forwarding of `listen` wait for an answer.
pub const SEND_TIMEOUT: Duration = Duration::from_secs(30);

/// `acd listen`.
#[derive(Debug, Args)]
pub struct ListenArgs {
    /// The loopback port to listen on (0: any free port; the banner names it).
    #[arg(long, default_value_t = 8787, value_name = "N")]
    pub port: u16,
    /// Where to forward each verified delivery, unchanged (body and webhook-* headers).
    #[arg(long, value_name = "URL")]
    pub forward_to: Option<String>,
    /// The endpoint's signing secret, whsec_...; repeat it during a rotation (any match verifies).
    #[arg(long = "secret", value_name = "WHSEC", required = true)]
    pub secrets: Vec<String>,
}

/// `acd webhooks ...`.
#[derive(Debug, Subcommand)]
pub enum WebhooksCommand {
    /// Signs one event (Standard Webhooks) and POSTs it to --url; exit 0 on a 2xx answer.
    Trigger(TriggerArgs),
}

/// `acd webhooks trigger`.
#[derive(Debug, Args)]
pub struct TriggerArgs {
    /// The event type, e.g. run.succeeded.
    #[arg(value_name = "TYPE")]
    pub event_type: String,
    /// The endpoint to send it to.
    #[arg(long, value_name = "URL")]
    pub url: String,
    /// The signing secret, whsec_...; repeat it to sign with several (one signature each).
    #[arg(long = "secret", value_name = "WHSEC", required = true)]
    pub secrets: Vec<String>,
    /// The payload's `data` object [default: for run.<status>, {"run": {"id": "run_test", "status": <status>}}; else {}].
    #[arg(long, value_name = "JSON", allow_hyphen_values = true)]
    pub data: Option<String>,
}

/// The wall clock, Unix milliseconds (the CLI is an edge: it reads the clock
/// and hands it to the core).
pub fn wall_clock() -> UnixMillis {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
        });
    UnixMillis::new(ms)
}

/// Reads every `--secret` with the core; the sentence of the first refusal.
pub fn parse_secrets(secrets: &[String]) -> Result<Vec<Secret>, String> {
    secrets
        .iter()
        .map(|secret| Secret::parse(secret).map_err(|error| format!("--secret: {error}")))
        .collect()
}

/// An HTTP agent that returns every status and follows no redirect.
pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .max_redirects_will_error(false)
        .timeout_global(Some(SEND_TIMEOUT))
        .user_agent(acd_core::client::USER_AGENT)
        .build()
        .into()
}

fn message_id() -> String {
    let mut bytes = [0u8; 12];
    let _ = getrandom::fill(&mut bytes);
    let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("msg_{hex}")
}

fn default_data(event_type: &str) -> Value {
    match RunEventType::parse(event_type) {
        Some(kind) => {
            let status = kind.as_str().trim_start_matches("run.");
            json!({"run": {"id": "run_test", "status": status}})
        }
        None => json!({}),
    }
}

/// Runs `acd webhooks trigger`: the exit status.
pub fn trigger(args: &TriggerArgs) -> u8 {
    let secrets = match parse_secrets(&args.secrets) {
        Ok(secrets) => secrets,
        Err(error) => {
            eprintln!("error: {error}");
            return exit::USAGE;
        }
    };
    let data = match &args.data {
        None => default_data(&args.event_type),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(value @ Value::Object(_)) => value,
            Ok(_) => {
                eprintln!("error: --data must be a JSON object (the payload's data)");
                return exit::USAGE;
            }
            Err(error) => {
                eprintln!("error: --data is not JSON ({error})");
                return exit::USAGE;
            }
        },
    };
    let now = wall_clock();
    let id = message_id();
    let body = event_body(&args.event_type, &data, now);
    let mut request = ureq::http::Request::builder()
        .method("POST")
        .uri(args.url.as_str())
        .header("content-type", "application/json");
    for (name, value) in signed_headers(&secrets, &id, now.as_millis() / 1000, &body) {
        request = request.header(name, value);
    }
    let Ok(request) = request.body(body) else {
        eprintln!("error: --url {} is not a URL", args.url);
        return exit::USAGE;
    };
    match agent().run(request) {
        Ok(response) => {
            let status = response.status().as_u16();
            println!("{id} {} -> {status}", args.event_type);
            if (200..300).contains(&status) {
                exit::SUCCESS
            } else {
                eprintln!("error: {} answered {status}", args.url);
                exit::API_ERROR
            }
        }
        Err(error) => {
            eprintln!("error: could not send to {}: {error}", args.url);
            exit::API_ERROR
        }
    }
}
