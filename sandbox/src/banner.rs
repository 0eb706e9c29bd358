//! What the sandbox prints on stdout at start: the listening line first
//! (flushed at once: tools wait for it), then, with the built-in demo data,
//! the demo credentials, the stable-egress URL and three curl commands that
//! work as printed.

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

/// The lines after the first one.
pub fn lines(local: SocketAddr, config: &GateConfig, demo: DemoParts) -> Vec<String> {
    let here = format!("http://{local}");
    let egress = config.stable_egress_url.as_deref().unwrap_or_default();
    let mut lines = vec![
        format!("OpenAPI document: {here}/openapi.json"),
        format!("Stable-egress URL: {egress}"),
    ];
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
pub fn print(local: SocketAddr, config: &GateConfig, demo: DemoParts) {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    // A closed stdout must not stop the server: write errors are ignored.
    let _ = writeln!(out, "acd-sandbox listening on http://{local}");
    let _ = out.flush();
    for line in lines(local, config, demo) {
        let _ = writeln!(out, "{line}");
    }
    let _ = out.flush();
}
