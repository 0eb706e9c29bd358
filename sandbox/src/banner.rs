//! What the sandbox prints on stdout at start: the listening line first
//! (flushed at once: tools wait for it), then warnings (a non-loopback
//! address), what is on (faults, the manual clock and the admin routes, the
//! dashboard), and, with the built-in demo data, the demo credentials, the
//! stable-egress URL and curl commands that work as printed.

use crate::config::DemoParts;
use crate::demo;
use acd_core::gate::demo::{
    ADA_KEY, ADA_SECOND_KEY, ADA_TOKEN, ADA_TOKEN_NO_SCOPE, BOB_KEY, EXPIRED_KEY,
};
use acd_core::gate::GateConfig;
use std::io::Write;
use std::net::SocketAddr;

/// The last line of the banner.
pub const LAST_LINE: &str = "Stop with Ctrl-C or SIGTERM.";

/// The path part of an absolute URL (`""` when it has none).
fn path_of(url: &str) -> &str {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    after_scheme
        .find('/')
        .map_or("", |at| &after_scheme[at..])
        .trim_end_matches('/')
}

/// What the banner reports besides the address and the configuration.
#[derive(Debug, Clone, Copy)]
pub struct Notes {
    /// What came from the demo data.
    pub demo: DemoParts,
    /// With `--faults`: the number of fault rules in force.
    pub faults: Option<usize>,
    /// The fault rules the configuration has (in force with `--faults` only).
    pub config_fault_rules: usize,
    /// `--clock manual`.
    pub manual_clock: bool,
    /// The admin routes are on.
    pub admin: bool,
    /// Other hosts may use them with the admin token.
    pub admin_token: bool,
    /// Listening on a non-loopback address (`--allow-remote`).
    pub remote: bool,
    /// `--dashboard`.
    pub dashboard: bool,
}

fn status_lines(here: &str, notes: Notes) -> Vec<String> {
    let mut lines = Vec::new();
    if notes.remote {
        lines.push(format!(
            "WARNING: listening on a non-loopback address (--allow-remote). Anyone who can reach \
             {here} can use the server{}.",
            if notes.demo.credentials {
                " with the demo credentials below: they are published, not secret"
            } else {
                ""
            }
        ));
    }
    match notes.faults {
        Some(rules) => lines.push(format!(
            "Faults ON (--faults): Prefer: code=503 (or code=429, retry-after=2, code=200, \
             example=NAME, latency=MS, drop, truncate) is honoured; {rules} fault rule(s) from \
             the configuration apply."
        )),
        None if notes.config_fault_rules > 0 => lines.push(format!(
            "Faults off: the configuration's {} fault rule(s) apply with --faults only.",
            notes.config_fault_rules
        )),
        None => {}
    }
    if notes.manual_clock {
        lines.push(format!(
            "Clock: manual; time moves only by POST {here}/_sandbox/clock {{\"advance_ms\": N}} \
             or {{\"now_ms\": T}}."
        ));
    }
    if notes.admin {
        let who = if notes.admin_token {
            "loopback, or Authorization: Bearer <admin token>"
        } else {
            "loopback only"
        };
        lines.push(format!(
            "Admin routes ({who}; POST with Content-Type: application/json): \
             GET/POST {here}/_sandbox/clock, POST {here}/_sandbox/reset, \
             GET/DELETE {here}/_sandbox/requests."
        ));
    }
    if notes.dashboard {
        lines.push(format!("Dashboard: {here}/demo/"));
    }
    lines
}

/// The lines after the first one.
pub fn lines(local: SocketAddr, config: &GateConfig, notes: Notes) -> Vec<String> {
    let demo = notes.demo;
    let here = format!("http://{local}");
    let egress = config.stable_egress_url.as_deref().unwrap_or_default();
    let mut lines = status_lines(&here, notes);
    lines.extend([
        format!("OpenAPI document: {here}/openapi.json"),
        format!("Stable-egress URL: {egress}"),
    ]);
    if demo.all() {
        let version = &config.version;
        let egress_here = format!("{here}{}", path_of(egress));
        lines.extend([
            String::new(),
            "Built-in demo data (published credentials, not secrets):".to_owned(),
            format!("  {ADA_KEY:<26} API key of ada (tables: orders; connections: crm)"),
            format!("  {ADA_SECOND_KEY:<26} second API key of ada (shares her table-read limit)"),
            format!("  {BOB_KEY:<26} API key of bob (tables: invoices; connections: erp)"),
            format!("  {ADA_TOKEN:<26} OAuth token of ada, scope tables:read"),
            format!("  {ADA_TOKEN_NO_SCOPE:<26} OAuth token of ada, no scope (403 on tables)"),
            format!("  {EXPIRED_KEY:<26} expired API key (401)"),
            String::new(),
            "Try:".to_owned(),
            format!("  curl -i {here}/api/{version}"),
            format!(
                "  curl -i -H 'X-API-Key: {ADA_KEY}' '{here}/api/{version}/tables/{}?order_by=total&direction=desc&limit=3'",
                demo::ORDERS
            ),
            format!(
                "  curl -i -H 'X-API-Key: {ADA_KEY}' '{egress_here}/{version}/connections/{}/records?entity_id={}&filter=%7B%22city%22%3A%22Paris%22%7D'",
                demo::CRM,
                demo::CONTACTS
            ),
            format!(
                "  curl -i -X POST -H 'X-API-Key: {ADA_KEY}' {here}/api/{version}/agents/agent-1/runs"
            ),
            format!("  curl -i -H 'X-API-Key: {ADA_KEY}' {here}/api/{version}/runs/run_1"),
        ]);
    } else {
        lines.push(format!(
            "Data from the configuration file (demo credentials: {}, demo tables: {}, demo connections: {}).",
            yes_no(demo.credentials),
            yes_no(demo.tables),
            yes_no(demo.connections)
        ));
    }
    lines.push(String::new());
    lines.push(LAST_LINE.to_owned());
    lines
}

fn yes_no(flag: bool) -> &'static str {
    if flag {
        "yes"
    } else {
        "no"
    }
}

/// Prints the listening line (flushed), then the rest of the banner.
pub fn print(local: SocketAddr, config: &GateConfig, notes: Notes) {
    print_with(local, config, notes, &[]);
}

/// As [`print`], with `extra` lines (the webhooks') before the last line.
pub fn print_with(local: SocketAddr, config: &GateConfig, notes: Notes, extra: &[String]) {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    // A closed stdout must not stop the server: write errors are ignored.
    let _ = writeln!(out, "acd-sandbox listening on http://{local}");
    let _ = out.flush();
    for line in lines(local, config, notes) {
        if line == LAST_LINE {
            for extra in extra {
                let _ = writeln!(out, "{extra}");
            }
        }
        let _ = writeln!(out, "{line}");
    }
    let _ = out.flush();
}
