//! Credentials: kinds, secrets that never print, principals and stores.

use crate::UnixMillis;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The two credential forms the spec names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CredentialKind {
    /// An API key (begins with the key prefix).
    ApiKey,
    /// An OAuth access token (begins with the token prefix).
    #[serde(rename = "oauth2")]
    OAuthToken,
}

impl CredentialKind {
    /// The name used in the index and in configuration: `api_key` or `oauth2`.
    pub fn as_str(self) -> &'static str {
        match self {
            CredentialKind::ApiKey => "api_key",
            CredentialKind::OAuthToken => "oauth2",
        }
    }
}

/// A secret string (API key or token). Its `Debug` and `Display` never show
/// the value; use [`Secret::expose`] where the bytes are really needed.
#[derive(Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The secret value itself.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

impl std::fmt::Display for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

/// What the store knows about one credential. Holds no secret: `id` is a
/// public handle used in limit keys and logs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CredentialRecord {
    /// A non-secret identifier, unique per credential.
    pub id: String,
    /// API key or OAuth token.
    pub kind: CredentialKind,
    /// The user the credential belongs to.
    pub user: String,
    /// OAuth scopes granted (ignored for API keys).
    #[serde(default)]
    pub scopes: Vec<String>,
    /// Expiry instant; the credential is refused from this instant on.
    #[serde(default)]
    pub expires_at: Option<UnixMillis>,
}

/// Who a request is from, once the gate has authenticated it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Principal {
    /// A public operation without a credential; counted per client IP.
    Anonymous {
        /// The client's IP address as the caller reported it.
        client_ip: String,
    },
    /// An authenticated credential.
    Credential(CredentialRecord),
}

impl Principal {
    /// The user, when authenticated.
    pub fn user(&self) -> Option<&str> {
        match self {
            Principal::Anonymous { .. } => None,
            Principal::Credential(record) => Some(&record.user),
        }
    }
}

/// Where the gate looks credentials up. The embedded default is
/// [`InMemoryCredentials`]; a service implements this over its own store.
pub trait CredentialStore: Send + Sync {
    /// The record for `secret`, or `None` when it is unknown.
    fn lookup(&self, secret: &str) -> Option<CredentialRecord>;
}

/// An in-memory table of credentials, keyed by secret.
#[derive(Clone, Default)]
pub struct InMemoryCredentials {
    by_secret: HashMap<String, CredentialRecord>,
}

impl std::fmt::Debug for InMemoryCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids: Vec<&str> = self.by_secret.values().map(|r| r.id.as_str()).collect();
        f.debug_struct("InMemoryCredentials")
            .field("ids", &ids)
            .finish()
    }
}

impl InMemoryCredentials {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) the credential `secret`.
    pub fn insert(&mut self, secret: Secret, record: CredentialRecord) {
        self.by_secret.insert(secret.0, record);
    }

    /// Builder form of [`InMemoryCredentials::insert`].
    pub fn with(mut self, secret: Secret, record: CredentialRecord) -> Self {
        self.insert(secret, record);
        self
    }

    /// Number of credentials.
    pub fn len(&self) -> usize {
        self.by_secret.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.by_secret.is_empty()
    }
}

impl CredentialStore for InMemoryCredentials {
    fn lookup(&self, secret: &str) -> Option<CredentialRecord> {
        self.by_secret.get(secret).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_never_print() {
        let secret = Secret::new("acd_live_supersecret");
        assert!(!format!("{secret:?} {secret}").contains("supersecret"));
        let store = InMemoryCredentials::new().with(
            secret,
            CredentialRecord {
                id: "key-1".into(),
                kind: CredentialKind::ApiKey,
                user: "ada".into(),
                scopes: vec![],
                expires_at: None,
            },
        );
        assert!(!format!("{store:?}").contains("supersecret"));
        assert_eq!(store.lookup("acd_live_supersecret").unwrap().id, "key-1");
    }
}
