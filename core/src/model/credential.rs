//! Credentials: kinds, the one rule for what a secret and its headers look
//! like, secrets that never print, principals and stores.

use super::header_names::{AUTHORIZATION, X_API_KEY};
use super::wire_enum::wire_enum;
use crate::UnixMillis;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The two credential forms the spec names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CredentialKind {
    /// An API key (begins with the key prefix).
    ApiKey,
    /// An OAuth access token (begins with the token prefix).
    OAuthToken,
}
wire_enum!(CredentialKind {
    ApiKey = "api_key",
    OAuthToken = "oauth2"
});

impl CredentialKind {
    /// The name used in the index and in configuration: `api_key` or `oauth2`.
    pub fn as_str(self) -> &'static str {
        self.wire_name()
    }
}

/// Longest secret accepted, in bytes.
pub const SECRET_MAX_BYTES: usize = 4_096;

/// What is shown in place of a secret.
pub const REDACTED: &str = "<redacted>";

/// The headers that carry credentials. Their values are secrets: never shown
/// by `Debug`, logs or error details.
pub const CREDENTIAL_HEADERS: [&str; 2] = [X_API_KEY, AUTHORIZATION];

/// Whether header `name` carries a credential (case-insensitive).
pub fn is_credential_header(name: &str) -> bool {
    CREDENTIAL_HEADERS
        .iter()
        .any(|candidate| super::header_names::same_name(candidate, name))
}

/// Headers that carry a secret the client never takes from a caller's
/// extra headers nor shows (besides [`CREDENTIAL_HEADERS`]): a proxy's
/// credential and cookies.
pub const SECRET_HEADERS: [&str; 4] = [X_API_KEY, AUTHORIZATION, "Proxy-Authorization", "Cookie"];

/// Whether header `name` carries a secret ([`SECRET_HEADERS`], or
/// `Set-Cookie` of a response): refused as a call's extra header, redacted
/// where a response's headers are shown.
pub fn carries_secret(name: &str) -> bool {
    SECRET_HEADERS
        .iter()
        .chain(&["Set-Cookie"])
        .any(|candidate| super::header_names::same_name(candidate, name))
}

/// Whether `secret` can be sent in a header as a credential: 1 to
/// [`SECRET_MAX_BYTES`] visible ASCII characters without quotes, commas or
/// backslashes (RFC 6750's `b64token`, loosened to every visible character
/// that cannot break a header).
pub fn is_well_formed_secret(secret: &str) -> bool {
    !secret.is_empty()
        && secret.len() <= SECRET_MAX_BYTES
        && secret
            .bytes()
            .all(|b| b.is_ascii_graphic() && !matches!(b, b'"' | b',' | b'\\'))
}

/// The sentence for a secret that [`is_well_formed_secret`] refuses.
pub const SECRET_SHAPE: &str =
    "must be 1 to 4096 visible ASCII characters without quotes, commas or backslashes";

/// The prefixes that tell API keys from OAuth tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SecretPrefixes<'a> {
    /// Every API key starts with this, e.g. `acd_live_`.
    pub api_key: &'a str,
    /// Every OAuth access token starts with this, e.g. `acd_oat_`.
    pub oauth_token: &'a str,
}

impl SecretPrefixes<'_> {
    /// Checks that both prefixes are non-empty and neither starts the other
    /// (else a secret's kind would be ambiguous). The error names the field.
    pub fn check(&self) -> Result<(), (&'static str, &'static str)> {
        if self.api_key.is_empty() {
            return Err(("api_key_prefix", "must not be empty"));
        }
        if self.oauth_token.is_empty() {
            return Err(("oauth_token_prefix", "must not be empty"));
        }
        if self.api_key.starts_with(self.oauth_token) || self.oauth_token.starts_with(self.api_key)
        {
            return Err((
                "oauth_token_prefix",
                "must differ from api_key_prefix so that neither is a prefix of the other",
            ));
        }
        Ok(())
    }

    /// The kind of a well-formed `secret`, by its prefix; `None` when it has
    /// neither prefix.
    pub fn kind_of(&self, secret: &str) -> Option<CredentialKind> {
        if secret.starts_with(self.api_key) {
            Some(CredentialKind::ApiKey)
        } else if secret.starts_with(self.oauth_token) {
            Some(CredentialKind::OAuthToken)
        } else {
            None
        }
    }

    /// The prefix of `kind`.
    pub fn of(&self, kind: CredentialKind) -> &str {
        match kind {
            CredentialKind::ApiKey => self.api_key,
            CredentialKind::OAuthToken => self.oauth_token,
        }
    }
}

/// `Debug` for a header list that shows credential headers as
/// [`REDACTED`] and every other value as (lossy) text.
pub struct RedactedHeaders<'a, V>(pub &'a [(String, V)]);

impl<V: AsRef<[u8]>> std::fmt::Debug for RedactedHeaders<'_, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|(name, value)| {
                let shown = if is_credential_header(name) {
                    std::borrow::Cow::Borrowed(REDACTED)
                } else {
                    String::from_utf8_lossy(value.as_ref())
                };
                (name.as_str(), shown)
            }))
            .finish()
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
        write!(f, "Secret({REDACTED})")
    }
}

impl std::fmt::Display for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(REDACTED)
    }
}

/// What the store knows about one credential. Holds no secret: `id` is a
/// public handle used in limit keys and logs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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

    #[test]
    fn the_secret_rule() {
        assert!(is_well_formed_secret("acd_live_x-1.~"));
        for bad in ["", "a b", "a\"b", "a,b", "a\\b", "caf\u{e9}"] {
            assert!(!is_well_formed_secret(bad), "{bad:?}");
        }
        assert!(is_well_formed_secret(&"k".repeat(4_096)));
        assert!(!is_well_formed_secret(&"k".repeat(4_097)));
        let prefixes = SecretPrefixes {
            api_key: "acd_live_",
            oauth_token: "acd_oat_",
        };
        assert_eq!(prefixes.check(), Ok(()));
        assert_eq!(
            prefixes.kind_of("acd_oat_1"),
            Some(CredentialKind::OAuthToken)
        );
        assert_eq!(prefixes.kind_of("other"), None);
        let clash = SecretPrefixes {
            api_key: "acd_",
            oauth_token: "acd_oat_",
        };
        assert_eq!(
            clash.check().map_err(|(field, _)| field),
            Err("oauth_token_prefix")
        );
    }

    #[test]
    fn redacted_headers_hide_both_credential_headers() {
        let headers = vec![
            ("x-api-key".to_owned(), b"acd_live_supersecret".to_vec()),
            (
                "AUTHORIZATION".to_owned(),
                b"Bearer acd_oat_supersecret".to_vec(),
            ),
            ("Accept".to_owned(), b"application/json".to_vec()),
        ];
        let shown = format!("{:?}", RedactedHeaders(&headers));
        assert_eq!(
            shown,
            r#"[("x-api-key", "<redacted>"), ("AUTHORIZATION", "<redacted>"), ("Accept", "application/json")]"#
        );
    }
}
