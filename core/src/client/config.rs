//! Client configuration: where the API is, which credentials to use, the
//! catalogue of operations, and the retry, budget and limit defaults.
//!
//! Every default a language would otherwise restate lives here: the base
//! URL and its one normalisation rule ([`normalise_base_url`]), the
//! stable-egress URL derived from it ([`stable_egress_url_for`]), the
//! credential behind a bare key ([`ClientCredential::default_api_key`]), the
//! environment variables a host reads ([`ENV_API_KEY`], [`ENV_BASE_URL`]) and
//! the client's version ([`CLIENT_VERSION`]). [`ClientConfig::from_json`]
//! applies them to the config JSON of the driver protocol.

use super::budget::BudgetPolicy;
use super::error::ClientError;
use super::retry::RetryPolicy;
use crate::model::wire_enum::wire_enum;
use crate::model::Quota;
use crate::model::{Catalogue, CredentialKind, Secret};
use serde::{Deserialize, Serialize};

mod document;
#[cfg(test)]
mod tests;

/// The version of this client (the core's crate version), which every
/// language reports as its own.
pub const CLIENT_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The `User-Agent` a transport sends: `acd/` and [`CLIENT_VERSION`].
pub const USER_AGENT: &str = concat!("acd/", env!("CARGO_PKG_VERSION"));

/// Where the API is when nothing says otherwise: the local sandbox.
pub const DEFAULT_BASE_URL: &str = "http://127.0.0.1:8080";

/// The id of the credential behind a bare key (`"api_key"` in the config
/// JSON, or [`ENV_API_KEY`]).
pub const DEFAULT_CREDENTIAL_ID: &str = "default";

/// The user of the credential behind a bare key. Per-user limits (e.g. 5
/// table reads per minute) are modelled per user, so every language names
/// the same one.
pub const DEFAULT_CREDENTIAL_USER: &str = "default";

/// The environment variable holding an API key, used only when the
/// configuration gives no credential.
pub const ENV_API_KEY: &str = "ACD_API_KEY";

/// The environment variable holding the base URL, used only when the
/// configuration gives none.
pub const ENV_BASE_URL: &str = "ACD_BASE_URL";

/// The environment variable holding an OAuth access token, used only when
/// the configuration gives no credential and [`ENV_API_KEY`] is unset.
pub const ENV_TOKEN: &str = "ACD_TOKEN";

pub use crate::model::{stable_egress_url_for, STABLE_EGRESS_PATH};

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
///
/// In JSON: `{"id", "type": "api_key" | "oauth2", "secret", "user"}` (the
/// older member name `kind` is still read).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientCredential {
    /// A non-secret name used to choose it per request and in limit keys.
    pub id: String,
    /// API key or OAuth token; decides the header it is sent in.
    #[serde(rename = "type", alias = "kind")]
    pub kind: CredentialKind,
    /// The key or token.
    pub secret: Secret,
    /// The user it belongs to. Credentials of one user share that user's
    /// limits (e.g. 5 table reads per minute) inside this client.
    pub user: String,
}

impl ClientCredential {
    /// The credential behind a bare key: id [`DEFAULT_CREDENTIAL_ID`], user
    /// [`DEFAULT_CREDENTIAL_USER`], sent as an API key. The one default of
    /// every language (and the CLI).
    pub fn default_api_key(secret: impl Into<String>) -> Self {
        Self::api_key(DEFAULT_CREDENTIAL_ID, secret, DEFAULT_CREDENTIAL_USER)
    }

    /// The credential behind a bare OAuth token (a config document's
    /// `token`): id [`DEFAULT_CREDENTIAL_ID`], user
    /// [`DEFAULT_CREDENTIAL_USER`], sent as `Authorization: Bearer`.
    pub fn default_oauth_token(secret: impl Into<String>) -> Self {
        Self::oauth_token(DEFAULT_CREDENTIAL_ID, secret, DEFAULT_CREDENTIAL_USER)
    }

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

/// How long one exchange (send to the last byte of the body) may take when
/// the call sets no shorter timeout: 30 s. Every transmit's `timeout_at`
/// is at most this far after its send ([`super::Batch`]), so every
/// transport reads the one default from the core.
pub const DEFAULT_EXCHANGE_TIMEOUT_MS: u64 = 30_000;

/// The default [`ClientConfig::max_body_bytes`]: 32 MiB.
///
/// The largest legitimate answer is one page of 5,000 records (the spec's
/// largest `limit`); at a generous 2 KiB per record that is about 10 MiB, so
/// 32 MiB leaves three times that room while still stopping a runaway or
/// hostile body long before it costs real memory.
pub const DEFAULT_MAX_BODY_BYTES: u64 = 32 * 1024 * 1024;

/// Everything a [`super::Client`] needs.
///
/// Read from JSON with [`ClientConfig::from_json`] (or serde, which applies
/// the same defaults): every member is optional, see
/// `docs/driver-protocol.md`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "document::ConfigDocument")]
pub struct ClientConfig {
    /// The API's base URL, without a trailing slash (the index's `base_url`).
    pub base_url: String,
    /// The major version path segment, e.g. `v1`.
    pub version: String,
    /// The stable-egress URL, for `{stable_egress_url}/{version}/...`;
    /// `None` when there is none. Read from JSON, a missing member is
    /// derived from `base_url` ([`stable_egress_url_for`]) and `null` means
    /// none.
    pub stable_egress_url: Option<String>,
    /// The header that asks for stable egress.
    pub stable_egress_header: String,
    /// The operations the client can build. Read from a document only with
    /// the `config-catalogue` feature; without it a `catalogue` member is
    /// refused as unknown and the default ([`Catalogue::for_clients`]) stays.
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
            base_url: DEFAULT_BASE_URL.into(),
            version: "v1".into(),
            stable_egress_url: Some(stable_egress_url_for(DEFAULT_BASE_URL)),
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
        check_url("base_url", &self.base_url)?;
        if let Some(url) = &self.stable_egress_url {
            check_url("stable_egress_url", url)?;
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

impl ClientConfig {
    /// Reads the config JSON of the driver protocol (`docs/driver-protocol.md`):
    /// the members of [`ClientConfig`], every one optional, plus
    ///
    /// * `"api_key"`: a bare key, which becomes
    ///   [`ClientCredential::default_api_key`], placed first (so requests
    ///   that name no credential use it);
    /// * `"env"`: `{"ACD_API_KEY": .., "ACD_BASE_URL": ..}` as the host read
    ///   them (a missing, `null` or empty value is unset), used only where
    ///   the document sets nothing: the key when there is neither
    ///   `api_key` nor a credential, the base URL when there is no
    ///   `base_url`.
    ///
    /// `base_url` (and a given `stable_egress_url`) go through
    /// [`normalise_base_url`]; a missing `stable_egress_url` is derived from
    /// the base URL. The result is checked ([`ClientConfig::check`]); every
    /// failure is a [`ClientError::InvalidConfig`] naming the member.
    pub fn from_json(bytes: &[u8]) -> Result<ClientConfig, ClientError> {
        let config = document::ConfigDocument::read(bytes)?.resolve()?;
        config.check()?;
        Ok(config)
    }
}

/// The one base-URL rule of every language: one trailing `/` is removed,
/// then the URL must be an absolute `http` or `https` URL with a host and
/// no user info, query or fragment. A refusal is a
/// [`ClientError::InvalidConfig`] of field `base_url` that names the URL
/// without its user info.
pub fn normalise_base_url(url: &str) -> Result<String, ClientError> {
    normalise_url("base_url", url, None)
}

/// [`normalise_base_url`] for `field`; `origin` names the environment
/// variable the value came from, if it did.
fn normalise_url(field: &str, url: &str, origin: Option<&str>) -> Result<String, ClientError> {
    let trimmed = url.strip_suffix('/').unwrap_or(url);
    match crate::model::url::HttpUrl::parse(trimmed) {
        Ok(_) => Ok(trimmed.to_owned()),
        Err(error) => Err(ClientError::InvalidConfig {
            field: field.to_owned(),
            problem: match origin {
                Some(variable) => format!("{error} (read from {variable})"),
                None => error.to_string(),
            },
        }),
    }
}

/// The check of a URL already normalised (no slash is removed here).
fn check_url(field: &str, url: &str) -> Result<(), ClientError> {
    crate::model::url::HttpUrl::parse(url)
        .map(|_| ())
        .map_err(|error| ClientError::InvalidConfig {
            field: field.to_owned(),
            problem: error.to_string(),
        })
}
