//! The config JSON of the driver protocol, as read: every member of
//! [`ClientConfig`] optional, plus `api_key` (or `token`) and `env`, resolved into a
//! [`ClientConfig`] by the defaults of [`super`].

use super::{
    normalise_url, stable_egress_url_for, ApiKeyHeader, ClientConfig, ClientCredential,
    DEFAULT_BASE_URL, ENV_API_KEY, ENV_BASE_URL, ENV_TOKEN,
};
use crate::client::budget::BudgetPolicy;
use crate::client::error::ClientError;
use crate::client::retry::RetryPolicy;
use crate::model::credential::{is_well_formed_secret, SECRET_SHAPE};
#[cfg(feature = "config-catalogue")]
use crate::model::Catalogue;
use crate::model::{Quota, Secret};
use serde::{Deserialize, Deserializer};

/// The document as written: `None` is a member left out (or `null`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ConfigDocument {
    #[serde(default)]
    base_url: Option<String>,
    #[serde(default)]
    version: Option<String>,
    /// Outer `None`: left out (derived); `Some(None)`: `null` (none).
    #[serde(default, deserialize_with = "present")]
    stable_egress_url: Option<Option<String>>,
    #[serde(default)]
    stable_egress_header: Option<String>,
    #[cfg(feature = "config-catalogue")]
    #[serde(default)]
    catalogue: Option<Catalogue>,
    #[serde(default)]
    credentials: Option<Vec<ClientCredential>>,
    #[serde(default)]
    api_key_header: Option<ApiKeyHeader>,
    #[serde(default)]
    idempotency_keys: Option<bool>,
    #[serde(default)]
    credential_quota: Option<Quota>,
    #[serde(default)]
    client_ip_quota: Option<Quota>,
    #[serde(default)]
    proactive_throttle: Option<bool>,
    #[serde(default)]
    retry: Option<RetryPolicy>,
    #[serde(default)]
    budget: Option<BudgetPolicy>,
    #[serde(default)]
    max_body_bytes: Option<u64>,
    #[serde(default)]
    seed: Option<u64>,
    /// A bare key: the default credential.
    #[serde(default)]
    api_key: Option<Secret>,
    /// A bare OAuth token: the default credential (not with `api_key`).
    #[serde(default)]
    token: Option<Secret>,
    /// What the host read from its environment.
    #[serde(default)]
    env: Option<HostEnv>,
}

/// The environment variables a host passes along, as it read them.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct HostEnv {
    #[serde(rename = "ACD_API_KEY", default)]
    api_key: Option<Secret>,
    #[serde(rename = "ACD_BASE_URL", default)]
    base_url: Option<String>,
    #[serde(rename = "ACD_TOKEN", default)]
    token: Option<Secret>,
}

/// A member that is present, even as `null`, becomes `Some`.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(deserializer).map(Some)
}

impl ConfigDocument {
    /// Parses `bytes`; a failure names the member it is about.
    pub(super) fn read(bytes: &[u8]) -> Result<Self, ClientError> {
        let mut deserializer = serde_json::Deserializer::from_slice(bytes);
        #[cfg(feature = "field-paths")]
        let read = serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
            let path = error.path().to_string();
            ClientError::InvalidConfig {
                field: if path == "." {
                    "(document)".into()
                } else {
                    path
                },
                problem: error.into_inner().to_string(),
            }
        });
        #[cfg(not(feature = "field-paths"))]
        let read =
            Deserialize::deserialize(&mut deserializer).map_err(|error: serde_json::Error| {
                ClientError::InvalidConfig {
                    field: "(document)".into(),
                    problem: error.to_string(),
                }
            });
        let document: Self = read?;
        deserializer
            .end()
            .map_err(|error| ClientError::InvalidConfig {
                field: "(document)".into(),
                problem: error.to_string(),
            })?;
        Ok(document)
    }

    /// Applies the defaults: the environment where the document sets
    /// nothing, the base-URL rule, the derived stable-egress URL and the
    /// credential behind a bare key.
    pub(super) fn resolve(self) -> Result<ClientConfig, ClientError> {
        let defaults = ClientConfig::default();
        let env = self.env.unwrap_or_default();
        // An empty variable counts as unset.
        let env_base_url = env.base_url.filter(|url| !url.is_empty());
        let env_api_key = env.api_key.filter(|key| !key.expose().is_empty());
        let env_token = env.token.filter(|token| !token.expose().is_empty());
        let base_url = match (self.base_url, env_base_url) {
            (Some(url), _) => normalise_url("base_url", &url, None)?,
            (None, Some(url)) => normalise_url("base_url", &url, Some(ENV_BASE_URL))?,
            (None, None) => DEFAULT_BASE_URL.to_owned(),
        };
        let stable_egress_url = match self.stable_egress_url {
            None => Some(stable_egress_url_for(&base_url)),
            Some(None) => None,
            Some(Some(url)) => Some(normalise_url("stable_egress_url", &url, None)?),
        };
        let mut credentials = self.credentials.unwrap_or_default();
        let nothing_given =
            credentials.is_empty() && self.api_key.is_none() && self.token.is_none();
        let (token, token_origin) = match (self.token, env_token) {
            (Some(token), _) => (Some(token), None),
            (None, Some(token)) if nothing_given => {
                if env_api_key.is_some() {
                    return Err(ClientError::InvalidConfig {
                        field: "env".into(),
                        problem: format!(
                            "{ENV_API_KEY} and {ENV_TOKEN} are both set; set only one (the API \
                             refuses a request that carries both)"
                        ),
                    });
                }
                (Some(token), Some(ENV_TOKEN))
            }
            (None, _) => (None, None),
        };
        if let Some(token) = token {
            if self.api_key.is_some() {
                return Err(ClientError::InvalidConfig {
                    field: "token".into(),
                    problem: "give the client an API key or an OAuth token, not both (the API \
                              refuses a request that carries both)"
                        .into(),
                });
            }
            if !is_well_formed_secret(token.expose()) {
                let from = token_origin
                    .map_or(String::new(), |variable| format!(" (read from {variable})"));
                return Err(ClientError::InvalidConfig {
                    field: "token".into(),
                    problem: format!("the token {SECRET_SHAPE}{from}"),
                });
            }
            credentials.insert(0, ClientCredential::default_oauth_token(token.expose()));
        }
        let bare_key = match self.api_key {
            Some(key) => Some((key, None)),
            None if credentials.is_empty() => env_api_key.map(|key| (key, Some(ENV_API_KEY))),
            None => None,
        };
        if let Some((key, origin)) = bare_key {
            if !is_well_formed_secret(key.expose()) {
                let from =
                    origin.map_or(String::new(), |variable| format!(" (read from {variable})"));
                return Err(ClientError::InvalidConfig {
                    field: "api_key".into(),
                    problem: format!("the key {SECRET_SHAPE}{from}"),
                });
            }
            credentials.insert(0, ClientCredential::default_api_key(key.expose()));
        }
        Ok(ClientConfig {
            base_url,
            version: self.version.unwrap_or(defaults.version),
            stable_egress_url,
            stable_egress_header: self
                .stable_egress_header
                .unwrap_or(defaults.stable_egress_header),
            #[cfg(feature = "config-catalogue")]
            catalogue: self.catalogue.unwrap_or(defaults.catalogue),
            #[cfg(not(feature = "config-catalogue"))]
            catalogue: defaults.catalogue,
            credentials,
            api_key_header: self.api_key_header.unwrap_or(defaults.api_key_header),
            idempotency_keys: self.idempotency_keys.unwrap_or(defaults.idempotency_keys),
            credential_quota: self.credential_quota.unwrap_or(defaults.credential_quota),
            client_ip_quota: self.client_ip_quota.unwrap_or(defaults.client_ip_quota),
            proactive_throttle: self
                .proactive_throttle
                .unwrap_or(defaults.proactive_throttle),
            retry: self.retry.unwrap_or(defaults.retry),
            budget: self.budget.unwrap_or(defaults.budget),
            max_body_bytes: self.max_body_bytes.unwrap_or(defaults.max_body_bytes),
            seed: self.seed,
        })
    }
}

impl TryFrom<ConfigDocument> for ClientConfig {
    type Error = ClientError;

    /// serde's path: the same defaults as [`ClientConfig::from_json`], the
    /// check left to [`super::super::Client::new`].
    fn try_from(document: ConfigDocument) -> Result<Self, Self::Error> {
        document.resolve()
    }
}
