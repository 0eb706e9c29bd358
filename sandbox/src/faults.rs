//! Fault injection for client tests, off unless the sandbox runs with
//! `--faults`.
//!
//! * Per request, a `Prefer` header in Prism's style: `Prefer: code=503`, or
//!   `Prefer: code=429, retry-after=2` (the `Retry-After` to send). Other
//!   preferences in the header are ignored.
//! * Rules from the configuration's `faults` member, each with a path
//!   pattern (`*` matches within one segment, `**` across segments), a
//!   probability (default 1) and one fault: a `status` (with an optional
//!   `retry_after` in seconds), `latency_ms`, `drop` (the connection is
//!   closed without an answer) or `truncate` (half the body is sent, then the
//!   connection is closed). Probabilities are drawn from a generator seeded
//!   by `faults.seed`, once per matching rule and request, in order; the
//!   first rule drawn wins.
//!
//! Injected statuses answer before the gate (no limit counts them); a
//! `Prefer` header wins over the rules. `/_sandbox/` routes are never faulted.

use crate::config::{fail, ConfigError};
use acd_core::model::ErrorBody;
use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use serde::Deserialize;
use std::sync::Mutex;

/// One rule as written in the configuration.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleEntry {
    /// Path pattern, e.g. `/api/v1/tables/*` or `/api/**`.
    pub path: String,
    /// Chance that the rule fires on a matching request, 0 to 1.
    #[serde(default = "always")]
    pub probability: f64,
    /// Answer with this status (400 to 599) instead of the gate.
    #[serde(default)]
    pub status: Option<u16>,
    /// With `status`: the `Retry-After` value, in seconds.
    #[serde(default)]
    pub retry_after: Option<u64>,
    /// Wait this many milliseconds before answering normally.
    #[serde(default)]
    pub latency_ms: Option<u64>,
    /// Close the connection without an answer.
    #[serde(default)]
    pub drop: bool,
    /// Send half the body, then close the connection.
    #[serde(default)]
    pub truncate: bool,
}

fn always() -> f64 {
    1.0
}

/// The `faults` member of the configuration.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultsConfig {
    /// Seed of the generator the probabilities are drawn from.
    #[serde(default)]
    pub seed: u64,
    /// The rules, in order.
    #[serde(default)]
    pub rules: Vec<RuleEntry>,
}

/// Longest injected latency: one minute.
pub const MAX_LATENCY_MS: u64 = 60_000;
/// Largest injected `Retry-After`: one day.
pub const MAX_RETRY_AFTER: u64 = 86_400;

/// One fault to inject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Answer with this status.
    Status {
        /// The status.
        status: u16,
        /// The `Retry-After` seconds to send, if any.
        retry_after: Option<u64>,
    },
    /// Answer normally after this many milliseconds.
    Latency(u64),
    /// Close the connection without an answer.
    Drop,
    /// Send half the body, then close the connection.
    Truncate,
}

fn check_status(status: u16, retry_after: Option<u64>) -> Result<(), String> {
    if !(400..=599).contains(&status) {
        return Err(format!("{status} is not an error status; use 400 to 599"));
    }
    if retry_after.is_some_and(|seconds| seconds > MAX_RETRY_AFTER) {
        return Err(format!(
            "retry-after must be at most {MAX_RETRY_AFTER} seconds"
        ));
    }
    Ok(())
}

impl RuleEntry {
    fn fault(&self, at: &str) -> Result<Fault, ConfigError> {
        let chosen = [
            self.status.is_some(),
            self.latency_ms.is_some(),
            self.drop,
            self.truncate,
        ];
        if chosen.iter().filter(|chosen| **chosen).count() != 1 {
            return fail(
                at,
                "give exactly one of status, latency_ms, drop: true or truncate: true",
            );
        }
        if self.retry_after.is_some() && self.status.is_none() {
            return fail(format!("{at}.retry_after"), "goes with status only");
        }
        if let Some(status) = self.status {
            check_status(status, self.retry_after)
                .or_else(|problem| fail(format!("{at}.status"), problem))?;
            return Ok(Fault::Status {
                status,
                retry_after: self.retry_after,
            });
        }
        if let Some(latency) = self.latency_ms {
            if latency > MAX_LATENCY_MS {
                return fail(
                    format!("{at}.latency_ms"),
                    format!("must be at most {MAX_LATENCY_MS}"),
                );
            }
            return Ok(Fault::Latency(latency));
        }
        Ok(if self.drop {
            Fault::Drop
        } else {
            Fault::Truncate
        })
    }
}

impl FaultsConfig {
    /// Checks every rule; errors name the JSON path.
    pub fn check(&self) -> Result<(), ConfigError> {
        self.compile().map(|_| ())
    }

    fn compile(&self) -> Result<Vec<Rule>, ConfigError> {
        let mut rules = Vec::with_capacity(self.rules.len());
        for (n, entry) in self.rules.iter().enumerate() {
            let at = format!("faults.rules[{n}]");
            if !entry.path.starts_with('/') {
                return fail(
                    format!("{at}.path"),
                    "must be a path pattern starting with /, e.g. /api/v1/tables/*",
                );
            }
            if !(0.0..=1.0).contains(&entry.probability) {
                return fail(format!("{at}.probability"), "must be from 0 to 1");
            }
            rules.push(Rule {
                pattern: Pattern::parse(&entry.path),
                probability: entry.probability,
                fault: entry.fault(&at)?,
            });
        }
        Ok(rules)
    }
}

/// One token of a [`Pattern`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Byte(u8),
    Star,
    DoubleStar,
}

/// A path pattern: `*` matches within one segment, `**` across segments;
/// every other byte matches itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern(Vec<Token>);

impl Pattern {
    /// The pattern `text` (every text is a pattern).
    pub fn parse(text: &str) -> Self {
        let mut tokens = Vec::with_capacity(text.len());
        let bytes = text.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            if bytes[at] == b'*' {
                if bytes.get(at + 1) == Some(&b'*') {
                    tokens.push(Token::DoubleStar);
                    at += 2;
                } else {
                    tokens.push(Token::Star);
                    at += 1;
                }
            } else {
                tokens.push(Token::Byte(bytes[at]));
                at += 1;
            }
        }
        Self(tokens)
    }

    /// Whether `path` matches: one pass per token over the path's positions.
    pub fn matches(&self, path: &str) -> bool {
        let path = path.as_bytes();
        // reachable[i]: the tokens so far can match path[..i].
        let mut reachable = vec![false; path.len() + 1];
        reachable[0] = true;
        for token in &self.0 {
            let mut next = vec![false; path.len() + 1];
            match token {
                Token::Byte(byte) => {
                    for i in 0..path.len() {
                        next[i + 1] = reachable[i] && path[i] == *byte;
                    }
                }
                Token::Star | Token::DoubleStar => {
                    let crosses = *token == Token::DoubleStar;
                    for i in 0..=path.len() {
                        next[i] = reachable[i]
                            || (i > 0 && next[i - 1] && (crosses || path[i - 1] != b'/'));
                    }
                }
            }
            reachable = next;
        }
        reachable[path.len()]
    }
}

#[derive(Debug)]
struct Rule {
    pattern: Pattern,
    probability: f64,
    fault: Fault,
}

/// The faults in force (`--faults`): the rules and their seeded generator.
#[derive(Debug)]
pub struct Faults {
    rules: Vec<Rule>,
    random: Mutex<fastrand::Rng>,
}

impl Faults {
    /// The faults of a configuration checked by [`FaultsConfig::check`].
    pub fn new(config: &FaultsConfig) -> Result<Self, ConfigError> {
        Ok(Self {
            rules: config.compile()?,
            random: Mutex::new(fastrand::Rng::with_seed(config.seed)),
        })
    }

    /// How many rules there are.
    pub fn rule_count(&self) -> usize {
        self.rules.len()
    }

    /// The fault for a request to `path` with these `Prefer` header values:
    /// the header's, else the first rule that matches and is drawn.
    pub fn choose<'a>(
        &self,
        path: &str,
        prefer: impl Iterator<Item = &'a [u8]>,
    ) -> Result<Option<Fault>, String> {
        if path.starts_with("/_sandbox/") {
            return Ok(None);
        }
        for value in prefer {
            if let Some(fault) = parse_prefer(value)? {
                return Ok(Some(fault));
            }
        }
        let mut random = self
            .random
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for rule in &self.rules {
            if rule.pattern.matches(path) && random.f64() < rule.probability {
                return Ok(Some(rule.fault));
            }
        }
        Ok(None)
    }
}

/// The fault a `Prefer` header value asks for (`code=503`,
/// `code=429, retry-after=2`), `None` when it asks for none.
pub fn parse_prefer(value: &[u8]) -> Result<Option<Fault>, String> {
    let text = std::str::from_utf8(value)
        .map_err(|_| "the Prefer header is not valid UTF-8".to_owned())?;
    let (mut code, mut retry_after) = (None, None);
    for preference in text.split([',', ';']) {
        let Some((name, value)) = preference.split_once('=') else {
            continue;
        };
        let (name, value) = (name.trim(), value.trim().trim_matches('"'));
        let number = || {
            value
                .parse::<u64>()
                .map_err(|_| format!("Prefer {name}={value:?}: the value must be a whole number"))
        };
        if name.eq_ignore_ascii_case("code") {
            code = Some(number()?);
        } else if name.eq_ignore_ascii_case("retry-after") {
            retry_after = Some(number()?);
        }
    }
    let Some(code) = code else {
        return match retry_after {
            Some(_) => {
                Err("Prefer retry-after needs a code too, e.g. code=429, retry-after=2".into())
            }
            None => Ok(None),
        };
    };
    let status = u16::try_from(code).unwrap_or(u16::MAX);
    check_status(status, retry_after).map_err(|problem| format!("Prefer code: {problem}"))?;
    Ok(Some(Fault::Status {
        status,
        retry_after,
    }))
}

/// The JSON error answer of an injected status (a 429 always carries
/// `Retry-After`, 1 s unless given).
pub fn status_response(status: u16, retry_after: Option<u64>, why: &str) -> Response {
    let retry_after = retry_after.or((status == 429).then_some(1));
    let detail =
        format!("Injected fault: status {status}, {why} (the sandbox runs with --faults).");
    let mut response = Response::new(ErrorBody::new(status, detail).to_bytes().into());
    *response.status_mut() =
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    headers.insert(
        axum::http::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if let Some(seconds) = retry_after {
        headers.insert(axum::http::header::RETRY_AFTER, HeaderValue::from(seconds));
    }
    response
}

#[cfg(test)]
mod tests;
