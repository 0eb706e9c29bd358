//! The `ApiIndex` document served at `GET /api/v1`, exactly as the spec's
//! tables describe it: required fields, fixed enum values, no additional
//! properties anywhere the spec forbids them, and absolute-URI fields.
//!
//! [`ApiIndex::from_json`] parses strictly and validates; [`ApiIndex::validate`]
//! checks a value built in code. Errors name the offending field path.

use super::wire_enum::wire_enum;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The only value of `account_access`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccountAccess {
    /// Account access is by invitation.
    InviteRequired,
}
wire_enum!(AccountAccess {
    InviteRequired = "invite_required"
});

/// The only value of `credential_creation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CredentialCreation {
    /// An API key can be issued once account access is obtained.
    AvailableAfterAccountAccess,
}
wire_enum!(CredentialCreation {
    AvailableAfterAccountAccess = "available_after_account_access"
});

/// The only value of `versioning.strategy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersioningStrategy {
    /// The major version is a URL path segment.
    UrlPath,
}
wire_enum!(VersioningStrategy { UrlPath = "url_path" });

/// A credential type advertised in `authentication.methods[].type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MethodType {
    /// API keys.
    ApiKey,
    /// OAuth 2 access tokens.
    Oauth2,
}
wire_enum!(MethodType {
    ApiKey = "api_key",
    Oauth2 = "oauth2"
});

/// The API index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApiIndex {
    /// Human-readable API name.
    pub name: String,
    /// What the API does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Current major version; matches the URL path segment.
    pub version: String,
    /// Absolute base URL for every operation.
    pub base_url: String,
    /// Documentation (absolute URI).
    pub documentation_url: String,
    /// The machine-readable specification (absolute URI).
    pub openapi_url: String,
    /// Developer portal (absolute URI).
    pub developers_url: String,
    /// `llms.txt` (absolute URI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llms_txt_url: Option<String>,
    /// Accepted credential types.
    pub authentication: Authentication,
    /// How to get access.
    pub onboarding: Onboarding,
    /// The advertised rate limit.
    pub rate_limits: RateLimits,
    /// Versioning policy.
    pub versioning: Versioning,
    /// Top-level resource name → absolute URL (path templates allowed).
    pub resources: BTreeMap<String, String>,
    /// Official clients.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clients: Option<Clients>,
    /// Webhook documentation (absolute URI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhooks_documentation_url: Option<String>,
}

/// `authentication`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Authentication {
    /// Every credential type accepted.
    pub methods: Vec<AuthMethod>,
}

/// One element of `authentication.methods`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthMethod {
    /// `api_key` or `oauth2`.
    #[serde(rename = "type")]
    pub kind: MethodType,
    /// Documentation (absolute URI).
    pub documentation_url: String,
    /// Accepted header forms, for `api_key`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<Vec<String>>,
    /// Whether a caller can issue this credential themselves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub self_serve: Option<bool>,
    /// When an API key can be issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credential_creation: Option<CredentialCreation>,
    /// How the account needed to issue credentials is obtained.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account_access: Option<AccountAccess>,
    /// OAuth flow, for `oauth2`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow: Option<String>,
    /// RFC 8414 authorization-server metadata (absolute URI), for `oauth2`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata_url: Option<String>,
    /// OAuth scopes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
}

/// `onboarding` (all four members required).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Onboarding {
    /// Always `invite_required`.
    pub account_access: AccountAccess,
    /// Where to ask for access (absolute URI).
    pub access_request_url: String,
    /// The trial on offer.
    pub trial: Trial,
    /// Whether a public sandbox exists.
    pub public_sandbox_available: bool,
}

/// `onboarding.trial` (all members required).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trial {
    /// Whether a trial is offered.
    pub available: bool,
    /// Trial length in days, at least 1.
    pub duration_days: i64,
    /// Whether the trial needs an invitation.
    pub invite_required: bool,
}

/// `rate_limits`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateLimits {
    /// Requests allowed per window.
    pub requests: i64,
    /// Window length in seconds.
    pub window_seconds: i64,
    /// What the limit is counted against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// Header names sent.
    pub response_headers: Vec<String>,
    /// Documentation (absolute URI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documentation_url: Option<String>,
}

/// `versioning`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Versioning {
    /// Always `url_path`.
    pub strategy: VersioningStrategy,
    /// The current version, e.g. `v1`.
    pub current_version: String,
    /// Header names used to signal deprecation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deprecation_headers: Option<Vec<String>>,
    /// Minimum days between `Deprecation` and `Sunset`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum_sunset_notice_days: Option<i64>,
    /// Documentation (absolute URI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documentation_url: Option<String>,
}

/// `clients` (no other properties).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clients {
    /// Package registry page of the official CLI (absolute URI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cli: Option<String>,
    /// CLI documentation (absolute URI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cli_documentation_url: Option<String>,
}

/// Why an index was refused; `path` names the offending field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("API index field `{path}`: {problem}")]
pub struct IndexError {
    /// Dotted path of the field, e.g. `authentication.methods[0].type`.
    pub path: String,
    /// What is wrong with it.
    pub problem: String,
}

impl ApiIndex {
    /// Parses and validates an index document strictly.
    pub fn from_json(bytes: &[u8]) -> Result<Self, IndexError> {
        let mut deserializer = serde_json::Deserializer::from_slice(bytes);
        #[cfg(feature = "field-paths")]
        let index: ApiIndex =
            serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
                let path = error.path().to_string();
                IndexError {
                    path: if path == "." {
                        "(document)".into()
                    } else {
                        path
                    },
                    problem: error.into_inner().to_string(),
                }
            })?;
        // Without field paths (size-sensitive builds), an unknown member is
        // still named: serde's sentence carries it.
        #[cfg(not(feature = "field-paths"))]
        let index: ApiIndex =
            serde::Deserialize::deserialize(&mut deserializer).map_err(|error| {
                let problem = error.to_string();
                let path = problem
                    .strip_prefix("unknown field `")
                    .and_then(|rest| rest.split_once('`'))
                    .map_or_else(|| "(document)".to_owned(), |(name, _)| name.to_owned());
                IndexError { path, problem }
            })?;
        deserializer.end().map_err(|error| IndexError {
            path: "(document)".into(),
            problem: error.to_string(),
        })?;
        index.validate()?;
        Ok(index)
    }

    /// Checks what the types alone cannot: absolute URIs, `duration_days`
    /// of at least 1, a version matching `current_version`.
    pub fn validate(&self) -> Result<(), IndexError> {
        super::index_check::check(self)
    }

    /// The document's JSON bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }
}
