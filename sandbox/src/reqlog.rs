//! The request log: one line per request on stderr, as text (the default)
//! or one JSON object per line (`--log json`), or nothing (`--log off`).
//!
//! A line holds the method, the path with the query's parameter NAMES only
//! (values are never logged: a filter or a bound may be private), the
//! status, the remaining quota of the tightest limit (`RateLimit-Remaining`,
//! `-` without one), and the latency until the response head was ready.
//! Headers are never logged, and a path segment or parameter name that
//! starts with a credential prefix is replaced by `<redacted>`, so no secret
//! reaches the log.

use serde_json::json;
use std::io::Write;
use std::time::Duration;

/// How requests are logged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// `GET /api/v1/tables/orders?limit 200 remaining=4 0.21ms`
    Text,
    /// `{"method":"GET","path":"/api/v1/tables/orders","query":["limit"],...}`
    Json,
    /// No request log.
    Off,
}

/// What is printed in place of something that looks like a credential
/// (core's word for it).
pub use acd_core::model::REDACTED;

/// Longest path (in bytes) written to the log; longer ones are cut.
const MAX_LOGGED_PATH: usize = 512;

/// One request, as it is logged.
#[derive(Debug)]
pub struct Entry<'a> {
    /// The method.
    pub method: &'a str,
    /// The path, without the query.
    pub path: &'a str,
    /// The query, if any (only its names are logged).
    pub query: Option<&'a str>,
    /// The status answered (`None`: the connection was dropped).
    pub status: Option<u16>,
    /// `RateLimit-Remaining` of the answer.
    pub remaining: Option<u64>,
    /// Time until the answer was ready.
    pub latency: Duration,
}

/// The request log and the credential prefixes it redacts.
#[derive(Debug)]
pub struct RequestLog {
    format: LogFormat,
    prefixes: [String; 2],
}

impl RequestLog {
    /// A log in `format` that redacts anything starting with one of the
    /// credential `prefixes`.
    pub fn new(format: LogFormat, prefixes: [String; 2]) -> Self {
        Self { format, prefixes }
    }

    /// Whether lines are written at all.
    pub fn enabled(&self) -> bool {
        self.format != LogFormat::Off
    }

    fn clean<'t>(&self, text: &'t str) -> &'t str {
        if self
            .prefixes
            .iter()
            .any(|prefix| !prefix.is_empty() && text.starts_with(prefix.as_str()))
        {
            REDACTED
        } else {
            text
        }
    }

    fn path(&self, path: &str) -> String {
        let mut cut = path.len().min(MAX_LOGGED_PATH);
        while !path.is_char_boundary(cut) {
            cut -= 1;
        }
        path[..cut]
            .split('/')
            .map(|segment| self.clean(segment))
            .collect::<Vec<_>>()
            .join("/")
    }

    fn names<'t>(&self, query: Option<&'t str>) -> Vec<&'t str> {
        query
            .unwrap_or_default()
            .split('&')
            .filter(|pair| !pair.is_empty())
            .take(32)
            .map(|pair| self.clean(pair.split_once('=').map_or(pair, |(name, _)| name)))
            .map(|name| if name.len() > 64 { "[long]" } else { name })
            .collect()
    }

    /// The line for `entry` (without the newline).
    pub fn line(&self, entry: &Entry<'_>) -> String {
        let path = self.path(entry.path);
        let names = self.names(entry.query);
        let latency_ms = entry.latency.as_secs_f64() * 1_000.0;
        match self.format {
            LogFormat::Json => json!({
                "method": entry.method,
                "path": path,
                "query": names,
                "status": entry.status,
                "remaining": entry.remaining,
                "latency_ms": (latency_ms * 1_000.0).round() / 1_000.0,
            })
            .to_string(),
            LogFormat::Text | LogFormat::Off => {
                let query = if names.is_empty() {
                    String::new()
                } else {
                    format!("?{}", names.join("&"))
                };
                let status = entry
                    .status
                    .map_or_else(|| "dropped".to_owned(), |status| status.to_string());
                let remaining = entry
                    .remaining
                    .map_or_else(|| "-".to_owned(), |remaining| remaining.to_string());
                format!(
                    "{} {path}{query} {status} remaining={remaining} {latency_ms:.2}ms",
                    entry.method
                )
            }
        }
    }

    /// Writes the line of `entry` to stderr (errors are ignored: a closed
    /// stderr must not stop the server).
    pub fn write(&self, entry: &Entry<'_>) {
        if !self.enabled() {
            return;
        }
        let mut line = self.line(entry);
        line.push('\n');
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(format: LogFormat) -> RequestLog {
        RequestLog::new(format, ["acd_live_".into(), "acd_oat_".into()])
    }

    fn entry<'a>(path: &'a str, query: Option<&'a str>) -> Entry<'a> {
        Entry {
            method: "GET",
            path,
            query,
            status: Some(200),
            remaining: Some(4),
            latency: Duration::from_micros(1_500),
        }
    }

    #[test]
    fn text_lines_keep_names_and_drop_values() {
        let line = log(LogFormat::Text).line(&entry(
            "/api/v1/tables/orders",
            Some("order_by=total&after=secret-ish&limit=3"),
        ));
        assert_eq!(
            line,
            "GET /api/v1/tables/orders?order_by&after&limit 200 remaining=4 1.50ms"
        );
    }

    #[test]
    fn json_lines_are_one_object() {
        let mut dropped = entry("/api/v1", None);
        dropped.status = None;
        dropped.remaining = None;
        let line = log(LogFormat::Json).line(&dropped);
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            value,
            json!({"method": "GET", "path": "/api/v1", "query": [], "status": null,
                   "remaining": null, "latency_ms": 1.5})
        );
    }

    #[test]
    fn credential_shaped_text_is_redacted() {
        let line = log(LogFormat::Text).line(&entry(
            "/api/v1/tables/acd_live_demo_ada",
            Some("acd_oat_demo_ada_read&x=acd_live_demo_ada"),
        ));
        assert!(!line.contains("acd_live_demo_ada"), "{line}");
        assert!(!line.contains("acd_oat_demo_ada_read"), "{line}");
        assert_eq!(
            line,
            "GET /api/v1/tables/<redacted>?<redacted>&x 200 remaining=4 1.50ms"
        );
    }
}
