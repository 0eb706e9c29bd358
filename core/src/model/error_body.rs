//! The `Error` body of every non-2xx response: `{detail, status, ...extra}`,
//! and the 400 sentence that lists parameter problems (written once, for
//! the gate's body and the client's error alike).

use super::params::ParamProblem;
use super::query::MAX_REPORTED_PROBLEMS;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// An error body. `detail` is required; `status` is optional in the spec but
/// the gate always sends it; other members are allowed and kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// A sentence saying what failed and, where possible, what to do.
    pub detail: String,
    /// The HTTP status, when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Any other members (e.g. the gate's `errors` array on a 400).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ErrorBody {
    /// A body with `detail` and `status` and no extra members.
    pub fn new(status: u16, detail: impl Into<String>) -> Self {
        Self {
            detail: detail.into(),
            status: Some(status),
            extra: Map::new(),
        }
    }

    /// Adds an extra member.
    pub fn with(mut self, name: impl Into<String>, value: Value) -> Self {
        self.extra.insert(name.into(), value);
        self
    }

    /// The body's JSON bytes: `detail`, then `status`, then the extra members
    /// in name order, so the same body always gives the same bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_else(|_| {
            // Serialising strings, integers and JSON values cannot fail; keep
            // a valid body all the same.
            br#"{"detail":"internal error","status":500}"#.to_vec()
        })
    }

    /// The 400 body for `problems`: `detail` is "The request has
    /// [`invalid_params_summary`]." and `errors` lists the first
    /// [`MAX_REPORTED_PROBLEMS`] as `{parameter, problem}`.
    pub fn invalid_params(problems: &[ParamProblem]) -> Self {
        if problems.is_empty() {
            return Self::new(400, "The request's parameters do not fit this resource.")
                .with("errors", Value::Array(vec![]));
        }
        let errors: Vec<Value> = problems
            .iter()
            .take(MAX_REPORTED_PROBLEMS)
            .map(|problem| {
                serde_json::json!({"parameter": problem.parameter, "problem": problem.problem})
            })
            .collect();
        let see = if problems.len() > SHOWN_PROBLEMS {
            " (see errors)"
        } else {
            ""
        };
        Self::new(
            400,
            format!("The request has {}{see}.", invalid_params_summary(problems)),
        )
        .with("errors", Value::Array(errors))
    }

    /// Parses an error body, requiring a string `detail`.
    pub fn from_slice(bytes: &[u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(bytes)
    }
}

/// Problems named in a sentence; the rest are counted.
pub const SHOWN_PROBLEMS: usize = 3;

/// The core of every sentence about invalid parameters: the count, then the
/// first [`SHOWN_PROBLEMS`] as "name problem", then how many more, e.g.
/// `2 invalid parameters: limit must be …; offset must be …`.
pub fn invalid_params_summary(problems: &[ParamProblem]) -> String {
    let shown: Vec<String> = problems
        .iter()
        .take(SHOWN_PROBLEMS)
        .map(|p| format!("{} {}", p.parameter, p.problem))
        .collect();
    let mut summary = format!(
        "{} invalid parameter{}: {}",
        problems.len(),
        if problems.len() == 1 { "" } else { "s" },
        shown.join("; ")
    );
    let more = problems.len().saturating_sub(shown.len());
    if more > 0 {
        summary.push_str(&format!("; and {more} more"));
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialises_detail_status_then_extras_and_keeps_them() {
        let body = ErrorBody::new(400, "bad").with("errors", serde_json::json!([]));
        assert_eq!(
            String::from_utf8(body.to_bytes()).unwrap(),
            r#"{"detail":"bad","status":400,"errors":[]}"#
        );
        let parsed = ErrorBody::from_slice(br#"{"detail":"x","code":"E1"}"#).unwrap();
        assert_eq!(parsed.status, None);
        assert_eq!(parsed.extra["code"], "E1");
        assert!(ErrorBody::from_slice(br#"{"status":400}"#).is_err());
    }

    #[test]
    fn the_400_sentence() {
        let one = [ParamProblem::new(
            "limit",
            "must be an integer from 1 to 5000; got \"0\"",
        )];
        assert_eq!(
            ErrorBody::invalid_params(&one).detail,
            "The request has 1 invalid parameter: limit must be an integer from 1 to 5000; got \"0\"."
        );
        let four: Vec<ParamProblem> = ["a", "b", "c", "d"]
            .iter()
            .map(|name| ParamProblem::new(*name, "is wrong"))
            .collect();
        let body = ErrorBody::invalid_params(&four);
        assert_eq!(
            body.detail,
            "The request has 4 invalid parameters: a is wrong; b is wrong; c is wrong; and 1 more (see errors)."
        );
        assert_eq!(body.extra["errors"].as_array().map(Vec::len), Some(4));
    }
}
