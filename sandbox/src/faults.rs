//! Fault injection for client tests, off unless the sandbox runs with
//! `--faults`.
//!
//! * Per request, a `Prefer` header in Prism's style ([`prefer`]):
//!   `code=503`; `code=429, retry-after=2`; `code=200` (any status the
//!   operation declares in `/openapi.json`, 2xx included: the normal answer
//!   when it has that status, else the document's example); `example=NAME`
//!   (one of the configuration's `faults.examples`); `latency=MS`; `drop`;
//!   `truncate`. Unknown preferences are ignored; a known one that is
//!   malformed is a `400` naming it.
//! * Rules from the configuration's `faults` member, each with a path
//!   pattern (`*` matches within one segment, `**` across segments), a
//!   probability (default 1) and one fault: a `status` (with an optional
//!   `retry_after` in seconds), `latency_ms`, `drop` (the connection is
//!   closed without an answer) or `truncate` (half the body is sent, then the
//!   connection is closed). Probabilities are drawn from a generator seeded
//!   by `faults.seed`, once per matching rule and request, in order; the
//!   first rule drawn wins.
//!
//! Injected statuses and examples answer before the gate (no limit counts
//! them); a `Prefer` header wins over the rules. `/_sandbox/` routes are
//! never faulted.

pub mod declared;
pub mod pattern;
pub mod prefer;
mod rules;

use crate::config::ConfigError;
use acd_core::model::ErrorBody;
use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use declared::Declared;
use prefer::{PreferError, Preferences};
use serde_json::Value;
use std::sync::Mutex;

pub use pattern::Pattern;
pub use prefer::parse_prefer;
use rules::{Example, Rule};
pub use rules::{ExampleEntry, Fault, FaultsConfig, RuleEntry};

/// Longest injected latency: one minute.
pub const MAX_LATENCY_MS: u64 = 60_000;
/// Largest injected `Retry-After`: one day.
pub const MAX_RETRY_AFTER: u64 = 86_400;

/// What is done with one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Wait this long first.
    pub latency_ms: Option<u64>,
    /// Then this.
    pub action: Action,
    /// Send half the answer's body, then close the connection.
    pub truncate: bool,
}

impl Plan {
    fn of(action: Action) -> Self {
        Self {
            latency_ms: None,
            action,
            truncate: false,
        }
    }
}

/// The answer a [`Plan`] gives.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// The normal answer.
    Route,
    /// An injected error answer.
    Status {
        /// The status.
        status: u16,
        /// The `Retry-After` seconds to send, if any.
        retry_after: Option<u64>,
    },
    /// A status the operation declares: the normal answer when it has
    /// that status, else `example` with that status.
    Declared {
        /// The status.
        status: u16,
        /// The document's example body for it.
        example: Value,
    },
    /// A configured example.
    Example {
        /// The status.
        status: u16,
        /// The body.
        body: Value,
    },
    /// Close the connection without an answer.
    Drop,
}

/// Why a `Prefer` header cannot be honoured.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// It is malformed.
    #[error(transparent)]
    Prefer(#[from] PreferError),
    /// It asks for something this request cannot have.
    #[error("{0}")]
    Unavailable(String),
}

/// The faults in force (`--faults`): the rules and their seeded
/// generator, the named examples, and the statuses each operation declares.
#[derive(Debug)]
pub struct Faults {
    rules: Vec<Rule>,
    examples: Vec<Example>,
    declared: Declared,
    random: Mutex<fastrand::Rng>,
}

impl Faults {
    /// The faults of a configuration checked by [`FaultsConfig::check`],
    /// for the operations of the OpenAPI `document`.
    pub fn new(config: &FaultsConfig, document: &Value) -> Result<Self, ConfigError> {
        Ok(Self {
            rules: config.compile()?,
            examples: config.compile_examples()?,
            declared: Declared::from_document(document),
            random: Mutex::new(fastrand::Rng::with_seed(config.seed)),
        })
    }

    /// How many rules there are.
    pub fn rule_count(&self) -> usize {
        self.rules.len()
    }

    /// What to do with a request `method path` with these `Prefer` field
    /// values: the header's plan, else the first rule that matches and is
    /// drawn, else `None`.
    pub fn choose<'a>(
        &self,
        method: &str,
        path: &str,
        prefer: impl IntoIterator<Item = &'a [u8]>,
    ) -> Result<Option<Plan>, PlanError> {
        if path.starts_with("/_sandbox/") {
            return Ok(None);
        }
        let asked = parse_prefer(prefer)?;
        if !asked.is_empty() {
            return self.plan(method, path, &asked).map(Some);
        }
        let mut random = self
            .random
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for rule in &self.rules {
            if rule.pattern.matches(path) && random.f64() < rule.probability {
                return Ok(Some(match rule.fault {
                    Fault::Status {
                        status,
                        retry_after,
                    } => Plan::of(Action::Status {
                        status,
                        retry_after,
                    }),
                    Fault::Latency(ms) => Plan {
                        latency_ms: Some(ms),
                        ..Plan::of(Action::Route)
                    },
                    Fault::Drop => Plan::of(Action::Drop),
                    Fault::Truncate => Plan {
                        truncate: true,
                        ..Plan::of(Action::Route)
                    },
                }));
            }
        }
        Ok(None)
    }

    /// The plan `asked` for a request to `method path`.
    fn plan(&self, method: &str, path: &str, asked: &Preferences) -> Result<Plan, PlanError> {
        let action = if asked.drop {
            Action::Drop
        } else if let Some(name) = &asked.example {
            self.example(path, name, asked.code)?
        } else if let Some(status) = asked.code {
            self.code(method, path, status, asked.retry_after)?
        } else {
            Action::Route
        };
        Ok(Plan {
            latency_ms: asked.latency_ms,
            action,
            truncate: asked.truncate,
        })
    }

    fn example(&self, path: &str, name: &str, code: Option<u16>) -> Result<Action, PlanError> {
        let Some(example) = self.examples.iter().find(|example| example.name == name) else {
            let known: Vec<&str> = self.examples.iter().map(|e| e.name.as_str()).collect();
            return Err(PlanError::Unavailable(format!(
                "Prefer example={name}: the configuration has no such example ({})",
                if known.is_empty() {
                    "it names none: add faults.examples".to_owned()
                } else {
                    format!("its examples: {}", known.join(", "))
                }
            )));
        };
        if let Some((written, pattern)) = &example.path {
            if !pattern.matches(path) {
                return Err(PlanError::Unavailable(format!(
                    "Prefer example={name}: the example is for paths {written}, not {path}"
                )));
            }
        }
        if code.is_some_and(|code| code != example.status) {
            return Err(PlanError::Unavailable(format!(
                "Prefer example={name}: the example answers {}, not the code asked for",
                example.status
            )));
        }
        Ok(Action::Example {
            status: example.status,
            body: example.body.clone(),
        })
    }

    fn code(
        &self,
        method: &str,
        path: &str,
        status: u16,
        retry_after: Option<u64>,
    ) -> Result<Action, PlanError> {
        if (400..=599).contains(&status) {
            return Ok(Action::Status {
                status,
                retry_after,
            });
        }
        let Some(operation) = self.declared.find(method, path) else {
            return Err(PlanError::Unavailable(format!(
                "Prefer code={status}: no operation of the API is at {method} {path}, so only an \
                 error status (400 to 599) can be asked for"
            )));
        };
        match operation.responses.get(&status) {
            Some(example) => Ok(Action::Declared {
                status,
                example: example.clone(),
            }),
            None => Err(PlanError::Unavailable(format!(
                "Prefer code={status}: {} ({} {}) declares {}; any error status (400 to 599) \
                 can be asked for too",
                operation.id,
                operation.method,
                operation.template,
                operation.statuses()
            ))),
        }
    }
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

/// A JSON answer with `status` and `body` (an example asked for by
/// `Prefer`).
pub fn json_response(status: u16, body: &Value) -> Response {
    let mut response = Response::new(body.to_string().into());
    *response.status_mut() =
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    response.headers_mut().insert(
        axum::http::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

#[cfg(test)]
mod tests;
