//! The request log: one line per request on stderr, as text (the default)
//! or one JSON object per line (`--log json`), or nothing (`--log off`).
//!
//! A line holds the method, the path with the query's parameter NAMES only
//! (values are never logged: a filter or a bound may be private), the
//! status, the remaining quota of the tightest limit (`RateLimit-Remaining`,
//! `-` without one), and the latency until the response head was ready.
//! Headers are never logged, and a path segment or parameter name that
//! holds a credential prefix anywhere, as written or once percent-decoded
//! (`%61cd_live_...`, `key=acd_live_...`, `token_acd_live_...`), is replaced
//! by `<redacted>`, so no secret reaches the log.
//!
//! Lines reach stderr through [`writer::LogWriter`], which never blocks a
//! request: when stderr is not read, lines are dropped and counted.

pub mod writer;

use percent_encoding::percent_decode_str;
use serde_json::json;
use std::borrow::Cow;
use std::time::Duration;
use writer::LogWriter;

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

/// How many rounds of percent-decoding are looked through for a credential
/// (`%2561...` is `%61...` once decoded, `a...` twice); text that still
/// changes after that many is redacted.
const DECODE_ROUNDS: usize = 4;

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

/// The request log, the credential prefixes it redacts, and the writer
/// that takes its lines to stderr.
#[derive(Debug)]
pub struct RequestLog {
    format: LogFormat,
    /// The prefixes, in ASCII lower case (empty ones left out).
    prefixes: Vec<String>,
    writer: LogWriter,
}

impl RequestLog {
    /// A log in `format` on stderr that redacts anything holding one of the
    /// credential `prefixes`.
    pub fn new(format: LogFormat, prefixes: [String; 2]) -> Self {
        Self::with_writer(format, prefixes, LogWriter::stderr())
    }

    /// As [`RequestLog::new`], with lines going to `writer`.
    pub fn with_writer(format: LogFormat, prefixes: [String; 2], writer: LogWriter) -> Self {
        Self {
            format,
            prefixes: prefixes
                .iter()
                .filter(|prefix| !prefix.is_empty())
                .map(|prefix| prefix.to_ascii_lowercase())
                .collect(),
            writer,
        }
    }

    /// Whether lines are written at all.
    pub fn enabled(&self) -> bool {
        self.format != LogFormat::Off
    }

    /// Whether `text` holds a credential prefix (ASCII case ignored) as
    /// written or after any number of percent-decodings.
    pub fn holds_credential(&self, text: &str) -> bool {
        let mut form = Cow::Borrowed(text);
        for _ in 0..=DECODE_ROUNDS {
            let lower = form.to_ascii_lowercase();
            if self
                .prefixes
                .iter()
                .any(|prefix| lower.contains(prefix.as_str()))
            {
                return true;
            }
            let decoded = percent_decode_str(&form).decode_utf8_lossy().into_owned();
            if decoded == form {
                return false;
            }
            form = Cow::Owned(decoded);
        }
        true
    }

    fn clean<'t>(&self, text: &'t str) -> &'t str {
        if self.holds_credential(text) {
            REDACTED
        } else {
            text
        }
    }

    fn path(&self, path: &str) -> String {
        let mut path = path
            .split('/')
            .map(|segment| self.clean(segment))
            .collect::<Vec<_>>()
            .join("/");
        let mut cut = path.len().min(MAX_LOGGED_PATH);
        while !path.is_char_boundary(cut) {
            cut -= 1;
        }
        path.truncate(cut);
        path
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
        let method = self.clean(entry.method);
        let path = self.path(entry.path);
        let names = self.names(entry.query);
        let latency_ms = entry.latency.as_secs_f64() * 1_000.0;
        match self.format {
            LogFormat::Json => json!({
                "method": method,
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
                format!("{method} {path}{query} {status} remaining={remaining} {latency_ms:.2}ms")
            }
        }
    }

    /// Queues the line of `entry` for stderr, without waiting (see
    /// [`writer`]).
    pub fn write(&self, entry: &Entry<'_>) {
        if !self.enabled() {
            return;
        }
        let mut line = self.line(entry);
        line.push('\n');
        self.writer.write(line);
    }

    /// Queues `acd-sandbox: {text}` for stderr, whatever the format, without
    /// waiting.
    pub fn notice(&self, text: &str) {
        self.writer.write(format!("acd-sandbox: {text}\n"));
    }

    /// At shutdown: reports how many lines were dropped, and waits at most
    /// `grace` for stderr to take the rest.
    pub fn finish(&self, grace: Duration) -> bool {
        self.writer.finish(grace)
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

    #[test]
    fn encoded_and_embedded_credentials_are_redacted_and_other_text_survives() {
        let log = log(LogFormat::Text);
        for (path, query, expected) in [
            (
                "/api/v1/tables/%61cd_live_demo_ada",
                None,
                "GET /api/v1/tables/<redacted> 200 remaining=4 1.50ms",
            ),
            (
                "/api/v1/tables/key=acd_live_demo_ada",
                None,
                "GET /api/v1/tables/<redacted> 200 remaining=4 1.50ms",
            ),
            (
                "/api/v1/tables/orders",
                Some("token_acd_live_demo_ada&limit=2"),
                "GET /api/v1/tables/orders?<redacted>&limit 200 remaining=4 1.50ms",
            ),
            (
                "/api/v1/tables/orders",
                Some("%6B%65%79=1&x%3Dacd_oat_demo&%2561cd_live_demo_ada"),
                "GET /api/v1/tables/orders?%6B%65%79&<redacted>&<redacted> 200 remaining=4 1.50ms",
            ),
            (
                "/api/v1/tables/ACD_LIVE_demo_ada/acd%5Foat_x",
                None,
                "GET /api/v1/tables/<redacted>/<redacted> 200 remaining=4 1.50ms",
            ),
            (
                "/api/v1/tables/acd_lives-here%20and/acd_oat",
                Some("acd_=1&live_=2"),
                "GET /api/v1/tables/acd_lives-here%20and/acd_oat?acd_&live_ 200 remaining=4 1.50ms",
            ),
        ] {
            assert_eq!(log.line(&entry(path, query)), expected, "{path} {query:?}");
        }
    }

    #[test]
    fn a_long_path_is_redacted_before_it_is_cut() {
        let long = format!("/{}/acd_live_{}", "a".repeat(505), "s".repeat(40));
        let line = log(LogFormat::Json).line(&entry(&long, None));
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(value["path"], format!("/{}/<reda", "a".repeat(505)));
    }
}
