//! Operations as data: what the gate routes and the client builds.

use super::params::ParamSpec;
use super::quota::Quota;
use serde::{Deserialize, Serialize};

/// An operation identifier such as `listTableRecords`.
pub type OperationId = String;

/// Which credentials an operation accepts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum CredentialPolicy {
    /// No credential needed; callers are counted per client IP.
    Public,
    /// API keys only, in the `X-API-Key` header only (the spec documents
    /// these operations "with the API key form only").
    ApiKeyOnly,
    /// API keys, or OAuth tokens holding `scope` when one is named.
    #[serde(rename = "api_key_or_oauth")]
    ApiKeyOrOAuth {
        /// The OAuth scope a token must hold; `None` accepts any token.
        scope: Option<String>,
    },
}

/// How a successful payload is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Envelope {
    /// Wrapped as `{"data": <payload>}`.
    Data,
    /// A bare object (the API index).
    Bare,
    /// A top-level array (the legacy connection-records read).
    TopLevelArray,
}

/// Whom an extra limit counts against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", content = "name", rename_all = "snake_case")]
#[non_exhaustive]
pub enum LimitSubject {
    /// The authenticated user (shared by all of that user's credentials).
    User,
    /// The value of a path parameter, such as an agent id.
    PathParam(String),
}

/// A limit that applies to one operation on top of the per-credential one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtraLimit {
    /// Short name used in limit keys and documentation, e.g. `user_table_reads`.
    pub name: String,
    /// Requests per window.
    pub quota: Quota,
    /// What the limit is counted per.
    pub per: LimitSubject,
}

/// One segment of a path template.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Segment {
    /// A fixed segment.
    Literal(String),
    /// A `{name}` placeholder matching one non-empty segment.
    Param(String),
}

/// A path relative to the version root, such as `/tables/{id}` (the index is
/// the empty path). The gate mounts it under `/api/{version}` and, for
/// stable-egress operations, under `{stable_egress_url}/{version}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct PathTemplate {
    segments: Vec<Segment>,
}

/// Why a path template was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("path template {template:?} is invalid: {reason}")]
pub struct PathTemplateError {
    template: String,
    reason: &'static str,
}

impl PathTemplate {
    /// Parses a template such as `/tables/{id}`; `""` is the version root.
    pub fn parse(template: &str) -> Result<Self, PathTemplateError> {
        let fail = |reason| PathTemplateError {
            template: template.to_owned(),
            reason,
        };
        if template.is_empty() {
            return Ok(Self { segments: vec![] });
        }
        let Some(rest) = template.strip_prefix('/') else {
            return Err(fail(
                "it must start with '/' (or be empty for the version root)",
            ));
        };
        let mut segments = Vec::new();
        for part in rest.split('/') {
            if part.is_empty() {
                return Err(fail("it has an empty segment"));
            }
            if let Some(name) = part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
                if name.is_empty() || name.contains(['{', '}']) {
                    return Err(fail("a placeholder must look like {name}"));
                }
                segments.push(Segment::Param(name.to_owned()));
            } else if part.contains(['{', '}', '?', '#', '%']) {
                return Err(fail(
                    "a literal segment must not contain '{', '}', '?', '#' or '%'",
                ));
            } else {
                segments.push(Segment::Literal(part.to_owned()));
            }
        }
        Ok(Self { segments })
    }

    /// A template made of `segments` (no parsing, so no error).
    pub fn from_segments(segments: Vec<Segment>) -> Self {
        Self { segments }
    }

    /// The segments, in order.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// The names of the placeholders, in order.
    pub fn param_names(&self) -> impl Iterator<Item = &str> {
        self.segments.iter().filter_map(|segment| match segment {
            Segment::Param(name) => Some(name.as_str()),
            Segment::Literal(_) => None,
        })
    }

    /// Matches already-split, raw (still percent-encoded) segments; on a match
    /// returns the raw values of the placeholders in order.
    pub fn match_segments<'a>(&self, raw: &[&'a [u8]]) -> Option<Vec<&'a [u8]>> {
        if raw.len() != self.segments.len() {
            return None;
        }
        let mut values = Vec::new();
        for (segment, raw) in self.segments.iter().zip(raw) {
            match segment {
                Segment::Literal(text) if text.as_bytes() == *raw => {}
                Segment::Literal(_) => return None,
                Segment::Param(_) if raw.is_empty() => return None,
                Segment::Param(_) => values.push(*raw),
            }
        }
        Some(values)
    }
}

impl TryFrom<String> for PathTemplate {
    type Error = PathTemplateError;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        Self::parse(&text)
    }
}

impl From<PathTemplate> for String {
    fn from(template: PathTemplate) -> String {
        template.to_string()
    }
}

impl std::fmt::Display for PathTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for segment in &self.segments {
            match segment {
                Segment::Literal(text) => write!(f, "/{text}")?,
                Segment::Param(name) => write!(f, "/{{{name}}}")?,
            }
        }
        Ok(())
    }
}

/// Deprecation of a version or an operation (RFC 9745 / RFC 8594).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeprecationNotice {
    /// Unix seconds when it was (or will be) deprecated: `Deprecation: @<s>`.
    pub deprecated_at: u64,
    /// Unix seconds of the sunset, sent as an HTTP-date in `Sunset`.
    pub sunset_at: Option<u64>,
}

/// One operation of the API.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Operation {
    /// The operationId, e.g. `listTableRecords`.
    pub id: OperationId,
    /// The HTTP method, upper case, e.g. `GET`.
    pub method: String,
    /// Path relative to the version root.
    pub path: PathTemplate,
    /// Which credentials it accepts.
    pub credential: CredentialPolicy,
    /// How its payload is sent.
    pub envelope: Envelope,
    /// Its query parameters.
    pub params: Vec<ParamSpec>,
    /// Limits on top of the per-credential (or per-IP) one.
    pub extra_limits: Vec<ExtraLimit>,
    /// Whether it is also served under the stable-egress URL.
    pub stable_egress: bool,
    /// Whether it needs a resource answer from the caller (404/403/payload);
    /// `false` for the index, whose payload the gate builds itself.
    pub needs_resource: bool,
    /// Set when this operation is deprecated.
    pub deprecation: Option<DeprecationNotice>,
    /// Whether the server de-duplicates requests by `Idempotency-Key`
    /// (a client with `idempotency_keys` on sends one only then).
    #[serde(default)]
    pub honours_idempotency_key: bool,
    /// The resource its path names, as 404/403 sentences say it (e.g.
    /// `table`); see [`Operation::noun`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noun: Option<String>,
    /// Whether `path` hangs off the base URL itself instead of the version
    /// root (`/openapi.json`): only an unlisted operation a client adds for
    /// a raw target ([`Operation::unlisted`]); the gate serves none.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub outside_root: bool,
}

impl Operation {
    /// The operation of a target no catalogue operation serves, as a raw
    /// client calls it ([`ids::UNLISTED`](crate::model::ids::UNLISTED)):
    /// `method` on `path`, relative to the version root or, when
    /// `outside_root`, to the base URL; under the per-credential limit when
    /// `credentialed`, else public (the per-IP limit); any body, any query,
    /// no validators, never through stable egress.
    pub fn unlisted(
        method: &str,
        path: PathTemplate,
        credentialed: bool,
        outside_root: bool,
    ) -> Self {
        Self {
            id: crate::model::ids::UNLISTED.into(),
            method: method.to_owned(),
            path,
            credential: if credentialed {
                CredentialPolicy::ApiKeyOrOAuth { scope: None }
            } else {
                CredentialPolicy::Public
            },
            envelope: Envelope::Data,
            params: Vec::new(),
            extra_limits: Vec::new(),
            stable_egress: false,
            needs_resource: true,
            deprecation: None,
            honours_idempotency_key: false,
            noun: None,
            outside_root,
        }
    }

    /// The resource noun for sentences: [`Operation::noun`]'s field, or
    /// `resource` when it is not set.
    pub fn noun(&self) -> &str {
        self.noun.as_deref().unwrap_or("resource")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_parse_display_and_match() {
        let template = PathTemplate::parse("/connections/{connection_id}/records").unwrap();
        assert_eq!(template.to_string(), "/connections/{connection_id}/records");
        assert_eq!(
            template.param_names().collect::<Vec<_>>(),
            ["connection_id"]
        );
        let raw: Vec<&[u8]> = vec![b"connections", b"c%201", b"records"];
        assert_eq!(template.match_segments(&raw), Some(vec![&b"c%201"[..]]));
        let empty: Vec<&[u8]> = vec![b"connections", b"", b"records"];
        assert_eq!(template.match_segments(&empty), None);
        assert!(PathTemplate::parse("tables").is_err());
        assert!(PathTemplate::parse("/a//b").is_err());
        assert!(PathTemplate::parse("/{}").is_err());
        assert_eq!(PathTemplate::parse("").unwrap().to_string(), "");
    }
}
