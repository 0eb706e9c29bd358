//! Client configuration: where the API is, which credentials to use, the
//! catalogue of operations, and the retry, budget and limit defaults.

use super::budget::BudgetPolicy;
use super::error::ClientError;
use super::retry::RetryPolicy;
use crate::model::wire_enum::wire_enum;
use crate::model::Quota;
use crate::model::{Catalogue, CredentialKind, Secret};
use serde::{Deserialize, Serialize};

/// How API keys are sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ApiKeyHeader {
    /// `X-API-Key: <key>` (the default).
    #[default]
    XApiKey,
    /// `Authorization: Bearer <key>`.
    Bearer,
}
wire_enum!(ApiKeyHeader {
    XApiKey = "x_api_key",
    Bearer = "bearer"
});

/// One credential the client may use. Its `Debug` never shows the secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientCredential {
    /// A non-secret name used to choose it per request and in limit keys.
    pub id: String,
    /// API key or OAuth token; decides the header it is sent in.
    pub kind: CredentialKind,
    /// The key or token.
    pub secret: Secret,
    /// The user it belongs to. Credentials of one user share that user's
    /// limits (e.g. 5 table reads per minute) inside this client.
    pub user: String,
}

impl ClientCredential {
    /// An API key of `user`.
    pub fn api_key(id: impl Into<String>, secret: impl Into<String>, user: &str) -> Self {
        Self {
            id: id.into(),
            kind: CredentialKind::ApiKey,
            secret: Secret::new(secret),
            user: user.to_owned(),
        }
    }

    /// An OAuth access token of `user`.
    pub fn oauth_token(id: impl Into<String>, secret: impl Into<String>, user: &str) -> Self {
        Self {
            id: id.into(),
            kind: CredentialKind::OAuthToken,
            secret: Secret::new(secret),
            user: user.to_owned(),
        }
    }
}

/// The default [`ClientConfig::max_body_bytes`]: 32 MiB.
///
/// The largest legitimate answer is one page of 5,000 records (the spec's
/// largest `limit`); at a generous 2 KiB per record that is about 10 MiB, so
/// 32 MiB leaves three times that room while still stopping a runaway or
/// hostile body long before it costs real memory.
pub const DEFAULT_MAX_BODY_BYTES: u64 = 32 * 1024 * 1024;

/// Everything a [`super::Client`] needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClientConfig {
    /// The API's base URL, without a trailing slash (the index's `base_url`).
    pub base_url: String,
    /// The major version path segment, e.g. `v1`.
    pub version: String,
    /// The stable-egress URL, for `{stable_egress_url}/{version}/...`.
    pub stable_egress_url: Option<String>,
    /// The header that asks for stable egress.
    pub stable_egress_header: String,
    /// The operations the client can build. Read from a document only with
    /// the `config-catalogue` feature; without it a `catalogue` member is
    /// refused as unknown and the default ([`Catalogue::for_clients`]) stays.
    #[cfg_attr(not(feature = "config-catalogue"), serde(skip_deserializing))]
    pub catalogue: Catalogue,
    /// Credentials; requests use the first unless they name another.
    pub credentials: Vec<ClientCredential>,
    /// How API keys are sent.
    pub api_key_header: ApiKeyHeader,
    /// Opt-in for servers that honour `Idempotency-Key`: when `true`, a
    /// request whose method is not safe (e.g. POST) and whose operation says
    /// it honours the key ([`crate::model::Operation::honours_idempotency_key`])
    /// gets a UUIDv4 key automatically, one per logical call, reused on every
    /// attempt; such a request is then retried even after it may have been
    /// delivered. Default `false`: the spec does not promise that servers
    /// honour the key, so a POST that may have been delivered (timeout,
    /// broken connection, 5xx) is not retried. A 429 is always retried,
    /// since the server refused the request.
    pub idempotency_keys: bool,
    /// The per-credential limit assumed before the index or headers tell
    /// (default: the spec's 100 per 60 s).
    pub credential_quota: Quota,
    /// The per-client-IP limit assumed for public operations.
    pub client_ip_quota: Quota,
    /// Whether calls wait for the client's model of every limit before
    /// sending (default `true`). `false` gives a naive client that only
    /// honours `Retry-After` (the simulation's baseline).
    pub proactive_throttle: bool,
    /// Retry rules.
    pub retry: RetryPolicy,
    /// The retry budget.
    pub budget: BudgetPolicy,
    /// The largest response body the client accepts, in bytes (default
    /// [`DEFAULT_MAX_BODY_BYTES`], 32 MiB). A transport stops reading as soon
    /// as a body passes it (and reads none of a body whose `Content-Length`
    /// is above it); the call then fails with [`ClientError::BodyTooLarge`].
    pub max_body_bytes: u64,
    /// A fixed seed for jitter and idempotency keys (tests, vectors, the
    /// simulation). When set it wins over the [`super::Entropy`] given to
    /// [`super::Client::new`]; leave it `None` (the default) in production so
    /// that no two processes share jitter or keys.
    pub seed: Option<u64>,
}

impl Default for ClientConfig {
    fn default() -> Self {
        Self {
            base_url: "http://127.0.0.1:8080".into(),
            version: "v1".into(),
            stable_egress_url: Some("http://127.0.0.1:8080/egress".into()),
            stable_egress_header: "X-Stable-Egress".into(),
            catalogue: Catalogue::for_clients(),
            credentials: Vec::new(),
            api_key_header: ApiKeyHeader::XApiKey,
            idempotency_keys: false,
            credential_quota: crate::model::limits::CREDENTIAL_LIMIT,
            client_ip_quota: crate::model::limits::CLIENT_IP_LIMIT,
            proactive_throttle: true,
            retry: RetryPolicy::default(),
            budget: BudgetPolicy::default(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            seed: None,
        }
    }
}

impl ClientConfig {
    /// The default configuration with one credential (builder form).
    pub fn with_credential(mut self, credential: ClientCredential) -> Self {
        self.credentials.push(credential);
        self
    }

    /// Checks the values the client relies on.
    pub fn check(&self) -> Result<(), ClientError> {
        let fail = |field: &str, problem: &str| {
            Err(ClientError::InvalidConfig {
                field: field.to_owned(),
                problem: problem.to_owned(),
            })
        };
        if !is_http_url(&self.base_url) {
            return fail(
                "base_url",
                "must be an absolute http(s) URL without a trailing slash, query or fragment",
            );
        }
        if let Some(url) = &self.stable_egress_url {
            if !is_http_url(url) {
                return fail(
                    "stable_egress_url",
                    "must be an absolute http(s) URL without a trailing slash, query or fragment",
                );
            }
        }
        if self.version.is_empty() || self.version.contains(['/', '?', '#']) {
            return fail("version", "must be one path segment such as v1");
        }
        if self.stable_egress_header.is_empty() {
            return fail("stable_egress_header", "must not be empty");
        }
        for (position, credential) in self.credentials.iter().enumerate() {
            if credential.id.is_empty() {
                return fail("credentials", "every credential needs a non-empty id");
            }
            if self
                .credentials
                .iter()
                .take(position)
                .any(|earlier| earlier.id == credential.id)
            {
                return fail("credentials", "credential ids must be unique");
            }
            let secret = credential.secret.expose();
            if !crate::model::credential::is_well_formed_secret(secret) {
                return fail(
                    "credentials",
                    &format!("a secret {}", crate::model::credential::SECRET_SHAPE),
                );
            }
        }
        if self.max_body_bytes == 0 {
            return fail(
                "max_body_bytes",
                "must be at least 1 byte (the default is 32 MiB)",
            );
        }
        self.retry.check()
    }
}

fn is_http_url(url: &str) -> bool {
    crate::model::url::HttpUrl::parse(url).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_urls_and_credentials() {
        assert!(ClientConfig::default().check().is_ok());
        let bad = ClientConfig {
            base_url: "http://h/".into(),
            ..ClientConfig::default()
        };
        assert!(
            matches!(bad.check(), Err(ClientError::InvalidConfig { field, .. }) if field == "base_url")
        );
        let twice = ClientConfig::default()
            .with_credential(ClientCredential::api_key("a", "acd_live_x", "ada"))
            .with_credential(ClientCredential::api_key("a", "acd_live_y", "ada"));
        assert!(twice.check().is_err());
        let shown = format!(
            "{:?}",
            ClientCredential::api_key("a", "acd_live_secret", "ada")
        );
        assert!(!shown.contains("acd_live_secret"));
    }
}
