//! The `Error` body of every non-2xx response: `{detail, status, ...extra}`.

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

    /// Parses an error body, requiring a string `detail`.
    pub fn from_slice(bytes: &[u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(bytes)
    }
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
}
