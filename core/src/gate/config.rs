//! Gate configuration: prefixes, limits, the catalogue, stable egress,
//! deprecation, and the operator's choices for the `ApiIndex`.

use crate::model::credential::SecretPrefixes;
use crate::model::header_names::{self, AUTHORIZATION, X_API_KEY};
use crate::model::index::{
    AccountAccess, ApiIndex, AuthMethod, Authentication, CredentialCreation, MethodType,
    Onboarding, RateLimits, Trial, Versioning, VersioningStrategy,
};
use crate::model::limits::{check_quota, LimitSettings, CREDENTIAL_LIMIT_NAME};
use crate::model::operation::DeprecationNotice;
use crate::model::url::{stable_egress_url_for, HttpUrl};
use crate::model::{Catalogue, IndexError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Everything the gate needs besides credentials and a limiter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GateConfig {
    /// The current major version, the path segment after `/api/`.
    pub version: String,
    /// Absolute base URL every operation hangs off (no trailing slash).
    pub base_url: String,
    /// Absolute stable-egress URL; its path is where the gate also serves
    /// stable-egress operations (`{stable_egress_url}/{version}/...`).
    pub stable_egress_url: Option<String>,
    /// The prefix every API key starts with.
    pub api_key_prefix: String,
    /// The prefix every OAuth access token starts with.
    pub oauth_token_prefix: String,
    /// The header that asks for stable egress (`true`/`false`).
    pub stable_egress_header: String,
    /// The realm named in `WWW-Authenticate`.
    pub realm: String,
    /// The per-credential and per-IP limits.
    pub limits: LimitSettings,
    /// The operations served.
    pub catalogue: Catalogue,
    /// Set when the whole version is deprecated (every response says so).
    pub version_deprecation: Option<DeprecationNotice>,
    /// The operator's choices for the index document.
    pub index: IndexSettings,
}

impl Default for GateConfig {
    fn default() -> Self {
        let base_url = "http://127.0.0.1:8080";
        Self {
            version: "v1".into(),
            base_url: base_url.into(),
            stable_egress_url: Some(stable_egress_url_for(base_url)),
            api_key_prefix: "acd_live_".into(),
            oauth_token_prefix: "acd_oat_".into(),
            stable_egress_header: header_names::X_STABLE_EGRESS.into(),
            realm: "acd".into(),
            limits: LimitSettings::default(),
            catalogue: Catalogue::standard(),
            version_deprecation: None,
            index: IndexSettings::default(),
        }
    }
}

/// The index fields that are the operator's to choose.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct IndexSettings {
    /// Human-readable API name.
    pub name: String,
    /// What the API does.
    pub description: Option<String>,
    /// Documentation URL.
    pub documentation_url: String,
    /// Developer portal URL.
    pub developers_url: String,
    /// Machine-readable spec URL; default `{base_url}/openapi.json`.
    pub openapi_url: Option<String>,
    /// `llms.txt` URL.
    pub llms_txt_url: Option<String>,
    /// Where to request access.
    pub access_request_url: String,
    /// The trial on offer.
    pub trial: Trial,
    /// Whether a public sandbox exists.
    pub public_sandbox_available: bool,
    /// OAuth scopes advertised.
    pub scopes_supported: Vec<String>,
    /// OAuth authorization-server metadata URL (RFC 8414).
    pub oauth_metadata_url: Option<String>,
    /// Minimum days between `Deprecation` and `Sunset`.
    pub minimum_sunset_notice_days: Option<i64>,
    /// Webhook documentation URL.
    pub webhooks_documentation_url: Option<String>,
}

impl Default for IndexSettings {
    fn default() -> Self {
        Self {
            name: "Agent and Connected-Data API".into(),
            description: Some(
                "Run agents and read records from connected systems and tables.".into(),
            ),
            documentation_url: "https://docs.example.com/api".into(),
            developers_url: "https://developers.example.com".into(),
            openapi_url: None,
            llms_txt_url: None,
            access_request_url: "https://example.com/request-access".into(),
            trial: Trial {
                available: true,
                duration_days: 14,
                invite_required: true,
            },
            public_sandbox_available: true,
            scopes_supported: vec![crate::model::catalogue::TABLES_READ_SCOPE.into()],
            oauth_metadata_url: None,
            minimum_sunset_notice_days: Some(90),
            webhooks_documentation_url: None,
        }
    }
}

/// Why a configuration was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GateConfigError {
    /// A field is empty or malformed.
    #[error("gate configuration `{field}`: {problem}")]
    Field {
        /// The field.
        field: &'static str,
        /// What is wrong.
        problem: String,
    },
    /// The index built from the configuration is invalid.
    #[error(transparent)]
    Index(#[from] IndexError),
}

impl GateConfig {
    /// The path prefix (segments) under which stable egress is served.
    pub(crate) fn egress_segments(&self) -> Result<Option<Vec<String>>, GateConfigError> {
        let Some(url) = &self.stable_egress_url else {
            return Ok(None);
        };
        let parsed = HttpUrl::parse(url).map_err(|error| GateConfigError::Field {
            field: "stable_egress_url",
            problem: error.to_string(),
        })?;
        let segments = parsed.path_segments();
        if segments.first().is_some_and(|first| first == "api") || segments.is_empty() {
            return Err(GateConfigError::Field {
                field: "stable_egress_url",
                problem: format!(
                    "{url:?} needs a path of its own that does not start with /api \
                     (e.g. https://host/egress)"
                ),
            });
        }
        Ok(Some(segments.to_vec()))
    }

    /// Checks the fields the gate relies on.
    pub(crate) fn check(&self) -> Result<(), GateConfigError> {
        let field = |field: &'static str, problem: &str| {
            Err(GateConfigError::Field {
                field,
                problem: problem.to_owned(),
            })
        };
        if self.version.is_empty() || self.version.contains('/') {
            return field("version", "must be one path segment such as v1");
        }
        if let Err((name, problem)) = self.prefixes().check() {
            return field(name, problem);
        }
        if let Err(error) = HttpUrl::parse(&self.base_url) {
            return field("base_url", error.problem);
        }
        for (name, quota) in [
            ("limits.credential", &self.limits.credential),
            ("limits.client_ip", &self.limits.client_ip),
        ] {
            if let Err(problem) = check_quota(quota) {
                return field(name, &problem.to_string());
            }
        }
        for operation in self.catalogue.operations() {
            for extra in &operation.extra_limits {
                if let Err(problem) = check_quota(&extra.quota) {
                    return Err(GateConfigError::Field {
                        field: "catalogue",
                        problem: format!(
                            "operation {:?}, limit {:?}: {problem}",
                            operation.id, extra.name
                        ),
                    });
                }
            }
        }
        if self.stable_egress_header.is_empty() {
            return field("stable_egress_header", "must not be empty");
        }
        if !header_names::is_header_name(&self.stable_egress_header) {
            return field(
                "stable_egress_header",
                &format!(
                    "{:?} is not an HTTP header name: use one or more letters, digits or \
                     !#$%&'*+-.^_`|~ characters, e.g. X-Stable-Egress",
                    self.stable_egress_header
                ),
            );
        }
        if self.realm.contains(['"', '\\']) {
            return field("realm", "must not contain quotes or backslashes");
        }
        self.egress_segments()?;
        self.check_sunset_notice()
    }

    /// Every `Sunset` the configuration announces comes at least
    /// `minimum_sunset_notice_days` after its `Deprecation` (and never
    /// before it, when no minimum is advertised), as the index promises.
    fn check_sunset_notice(&self) -> Result<(), GateConfigError> {
        let days = self.index.minimum_sunset_notice_days.unwrap_or(0).max(0);
        let notice = u64::try_from(days).unwrap_or(0).saturating_mul(86_400);
        let notices = self
            .version_deprecation
            .iter()
            .map(|notice| ("version_deprecation".to_owned(), notice))
            .chain(self.catalogue.operations().iter().filter_map(|operation| {
                operation
                    .deprecation
                    .as_ref()
                    .map(|notice| (format!("operation {:?}", operation.id), notice))
            }));
        for (whose, deprecation) in notices {
            let Some(sunset_at) = deprecation.sunset_at else {
                continue;
            };
            let earliest = deprecation.deprecated_at.saturating_add(notice);
            if sunset_at < earliest {
                return Err(GateConfigError::Field {
                    field: "deprecation",
                    problem: format!(
                        "{whose}: the sunset ({sunset_at}, Unix s) must come at least {days} \
                         day(s) after the deprecation ({}, Unix s), i.e. at {earliest} or later, \
                         as index.minimum_sunset_notice_days advertises",
                        deprecation.deprecated_at
                    ),
                });
            }
        }
        Ok(())
    }

    /// The key and token prefixes.
    pub fn prefixes(&self) -> SecretPrefixes<'_> {
        SecretPrefixes {
            api_key: &self.api_key_prefix,
            oauth_token: &self.oauth_token_prefix,
        }
    }

    /// The `ApiIndex` this configuration serves.
    pub fn build_index(&self) -> Result<ApiIndex, GateConfigError> {
        let settings = &self.index;
        let api_root = format!("{}/api/{}", self.base_url, self.version);
        let mut resources = BTreeMap::new();
        for operation in self.catalogue.operations() {
            let path = operation.path.to_string();
            if let Some(name) = path.trim_start_matches('/').split('/').next() {
                if !name.is_empty() && !resources.contains_key(name) {
                    resources.insert(name.to_owned(), format!("{api_root}{path}"));
                }
            }
        }
        let limit = self.limits.credential;
        let index = ApiIndex {
            name: settings.name.clone(),
            description: settings.description.clone(),
            version: self.version.clone(),
            base_url: self.base_url.clone(),
            documentation_url: settings.documentation_url.clone(),
            openapi_url: settings
                .openapi_url
                .clone()
                .unwrap_or_else(|| format!("{}/openapi.json", self.base_url)),
            developers_url: settings.developers_url.clone(),
            llms_txt_url: settings.llms_txt_url.clone(),
            authentication: Authentication {
                methods: vec![
                    AuthMethod {
                        kind: MethodType::ApiKey,
                        documentation_url: settings.documentation_url.clone(),
                        headers: Some(vec![X_API_KEY.into(), format!("{AUTHORIZATION}: Bearer")]),
                        self_serve: Some(true),
                        credential_creation: Some(CredentialCreation::AvailableAfterAccountAccess),
                        account_access: Some(AccountAccess::InviteRequired),
                        flow: None,
                        metadata_url: None,
                        scopes_supported: None,
                    },
                    AuthMethod {
                        kind: MethodType::Oauth2,
                        documentation_url: settings.documentation_url.clone(),
                        headers: None,
                        self_serve: Some(false),
                        credential_creation: None,
                        account_access: Some(AccountAccess::InviteRequired),
                        flow: Some("authorization_code".into()),
                        metadata_url: settings.oauth_metadata_url.clone(),
                        scopes_supported: Some(settings.scopes_supported.clone()),
                    },
                ],
            },
            onboarding: Onboarding {
                account_access: AccountAccess::InviteRequired,
                access_request_url: settings.access_request_url.clone(),
                trial: settings.trial.clone(),
                public_sandbox_available: settings.public_sandbox_available,
            },
            rate_limits: RateLimits {
                requests: i64::from(limit.requests),
                window_seconds: i64::try_from(limit.window().div_ceil(1_000)).unwrap_or(i64::MAX),
                scope: Some(CREDENTIAL_LIMIT_NAME.into()),
                response_headers: header_names::RATE_LIMIT_HEADERS
                    .iter()
                    .map(|name| (*name).to_owned())
                    .collect(),
                documentation_url: None,
            },
            versioning: Versioning {
                strategy: VersioningStrategy::UrlPath,
                current_version: self.version.clone(),
                deprecation_headers: Some(vec![
                    header_names::DEPRECATION.into(),
                    header_names::SUNSET.into(),
                ]),
                minimum_sunset_notice_days: settings.minimum_sunset_notice_days,
                documentation_url: None,
            },
            resources,
            clients: None,
            webhooks_documentation_url: settings.webhooks_documentation_url.clone(),
        };
        index.validate()?;
        Ok(index)
    }
}
