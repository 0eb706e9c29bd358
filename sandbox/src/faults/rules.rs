//! The `faults` member of the configuration: fault rules and named
//! examples as written, checked into what [`super::Faults`] applies. Every
//! error names its JSON path.

use super::pattern::Pattern;
use super::{prefer, MAX_LATENCY_MS, MAX_RETRY_AFTER};
use crate::config::{fail, ConfigError};
use serde::Deserialize;
use serde_json::Value;

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
    /// Answers a request may ask for by name (`Prefer: example=NAME`).
    #[serde(default)]
    pub examples: Vec<ExampleEntry>,
}

/// One named example answer, as written in the configuration.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExampleEntry {
    /// The name `Prefer: example=NAME` gives.
    pub name: String,
    /// The status answered (200 to 599; default 200).
    #[serde(default = "ok_status")]
    pub status: u16,
    /// The JSON body answered.
    pub body: Value,
    /// Only for requests whose path matches this pattern (default: any).
    #[serde(default)]
    pub path: Option<String>,
}

fn ok_status() -> u16 {
    200
}

/// A checked example.
#[derive(Debug, Clone)]
pub(super) struct Example {
    pub(super) name: String,
    pub(super) status: u16,
    pub(super) body: Value,
    /// The pattern as written, and compiled.
    pub(super) path: Option<(String, Pattern)>,
}

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

    pub(super) fn compile_examples(&self) -> Result<Vec<Example>, ConfigError> {
        let mut examples: Vec<Example> = Vec::with_capacity(self.examples.len());
        for (n, entry) in self.examples.iter().enumerate() {
            let at = format!("faults.examples[{n}]");
            if entry.name.is_empty()
                || entry.name.len() > prefer::MAX_EXAMPLE_NAME
                || !entry
                    .name
                    .bytes()
                    .all(|b| b.is_ascii_graphic() && b != b',' && b != b';')
            {
                return fail(
                    format!("{at}.name"),
                    "must be 1 to 128 visible ASCII characters without , or ; (it is written \
                     in a Prefer header), e.g. empty-orders",
                );
            }
            if examples.iter().any(|example| example.name == entry.name) {
                return fail(format!("{at}.name"), "names an earlier example too");
            }
            if !(200..=599).contains(&entry.status) || [204, 205, 304].contains(&entry.status) {
                return fail(
                    format!("{at}.status"),
                    "must be a status from 200 to 599 that has a body (not 204, 205 or 304)",
                );
            }
            if entry
                .path
                .as_ref()
                .is_some_and(|path| !path.starts_with('/'))
            {
                return fail(
                    format!("{at}.path"),
                    "must be a path pattern starting with /, e.g. /api/v1/tables/*",
                );
            }
            examples.push(Example {
                name: entry.name.clone(),
                status: entry.status,
                body: entry.body.clone(),
                path: entry
                    .path
                    .as_ref()
                    .map(|path| (path.clone(), Pattern::parse(path))),
            });
        }
        Ok(examples)
    }

    pub(super) fn compile(&self) -> Result<Vec<Rule>, ConfigError> {
        self.compile_examples()?;
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

#[derive(Debug)]
pub(super) struct Rule {
    pub(super) pattern: Pattern,
    pub(super) probability: f64,
    pub(super) fault: Fault,
}
