//! Steps 2–4: extract the credential, authenticate it, check its scope.

use crate::model::credential::{is_well_formed_secret, SecretPrefixes};
use crate::model::header_names::{all_values, AUTHORIZATION, X_API_KEY};
use crate::model::{CredentialKind, CredentialPolicy, CredentialRecord, CredentialStore};
use crate::UnixMillis;

/// A credential as presented, before lookup.
pub(crate) struct Presented<'a> {
    pub(crate) kind: CredentialKind,
    pub(crate) secret: &'a str,
    /// Sent as `Authorization: Bearer` rather than `X-API-Key`.
    pub(crate) bearer: bool,
}

/// Why authentication or authorization failed; each maps to one response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AuthFailure {
    /// 400: the credential was sent in more than one header.
    Ambiguous(String),
    /// 401 without an error code: no credential at all (or another scheme).
    Missing(String),
    /// 401 `invalid_token`: malformed, unknown, expired or unsupported.
    Invalid(String),
    /// 403 `insufficient_scope`.
    InsufficientScope {
        /// The scope needed.
        scope: String,
        /// The sentence for the body.
        detail: String,
    },
}

/// Step 2: find the one credential in the headers.
pub(crate) fn extract<'a>(
    headers: &'a [(String, Vec<u8>)],
    prefixes: &SecretPrefixes<'_>,
) -> Result<Option<Presented<'a>>, AuthFailure> {
    let api_keys: Vec<&[u8]> = all_values(headers, X_API_KEY).collect();
    let authorizations: Vec<&[u8]> = all_values(headers, AUTHORIZATION).collect();
    if api_keys.len().saturating_add(authorizations.len()) > 1 {
        return Err(AuthFailure::Ambiguous(
            "Send exactly one credential: either one X-API-Key header or one Authorization: \
             Bearer header, not both or several."
                .into(),
        ));
    }
    if let Some(raw) = api_keys.first() {
        let secret = std::str::from_utf8(raw)
            .ok()
            .map(str::trim)
            .filter(|value| is_well_formed_secret(value))
            .ok_or_else(|| {
                AuthFailure::Invalid(
                    "The X-API-Key header is malformed; send the key as issued.".into(),
                )
            })?;
        if secret.starts_with(prefixes.oauth_token) {
            return Err(AuthFailure::Invalid(
                "X-API-Key carries API keys only; send OAuth tokens as Authorization: Bearer <token>."
                    .into(),
            ));
        }
        if !secret.starts_with(prefixes.api_key) {
            return Err(AuthFailure::Invalid(format!(
                "The X-API-Key value is not an API key (API keys start with {:?}).",
                prefixes.api_key
            )));
        }
        return Ok(Some(Presented {
            kind: CredentialKind::ApiKey,
            secret,
            bearer: false,
        }));
    }
    let Some(raw) = authorizations.first() else {
        return Ok(None);
    };
    let value = std::str::from_utf8(raw)
        .map_err(|_| AuthFailure::Invalid("The Authorization header is not valid text.".into()))?;
    let value = value.trim();
    let (scheme, rest) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(AuthFailure::Missing(
            "The Authorization header must use the Bearer scheme: Authorization: Bearer <key or token>."
                .into(),
        ));
    }
    let secret = rest.trim_start_matches(' ');
    if !is_well_formed_secret(secret) {
        return Err(AuthFailure::Invalid(
            "The bearer credential is malformed; send Authorization: Bearer <key or token>.".into(),
        ));
    }
    let Some(kind) = prefixes.kind_of(secret) else {
        return Err(AuthFailure::Invalid(format!(
            "The bearer credential is neither an API key (prefix {:?}) nor an OAuth token (prefix {:?}).",
            prefixes.api_key, prefixes.oauth_token
        )));
    };
    Ok(Some(Presented {
        kind,
        secret,
        bearer: true,
    }))
}

/// Step 3 and 4: look the credential up and check it against the operation.
pub(crate) fn authenticate(
    presented: Option<Presented<'_>>,
    policy: &CredentialPolicy,
    store: &dyn CredentialStore,
    now: UnixMillis,
) -> Result<CredentialRecord, AuthFailure> {
    let Some(presented) = presented else {
        return Err(AuthFailure::Missing(
            "This operation needs a credential: send X-API-Key: <key>, or Authorization: Bearer \
             <key or OAuth token>."
                .into(),
        ));
    };
    if *policy == CredentialPolicy::ApiKeyOnly
        && presented.bearer
        && presented.kind == CredentialKind::ApiKey
    {
        return Err(AuthFailure::Invalid(format!(
            "This operation accepts API keys in the {X_API_KEY} header only; send \
             {X_API_KEY}: <key> instead of {AUTHORIZATION}: Bearer."
        )));
    }
    let record = store
        .lookup(presented.secret)
        .filter(|record| record.kind == presented.kind)
        .ok_or_else(|| {
            AuthFailure::Invalid(
                "The credential is not recognised; check that it was copied whole and not revoked."
                    .into(),
            )
        })?;
    if let Some(expires_at) = record.expires_at {
        if expires_at <= now {
            return Err(AuthFailure::Invalid(format!(
                "The credential expired at {} (Unix ms); issue a new one.",
                expires_at
            )));
        }
    }
    match (policy, record.kind) {
        (CredentialPolicy::ApiKeyOnly, CredentialKind::OAuthToken) => Err(AuthFailure::Invalid(
            "This operation accepts API keys only, not OAuth tokens.".into(),
        )),
        (
            CredentialPolicy::ApiKeyOrOAuth {
                scope: Some(scope),
            },
            CredentialKind::OAuthToken,
        ) if !record.scopes.iter().any(|granted| granted == scope) => {
            Err(AuthFailure::InsufficientScope {
                scope: scope.clone(),
                detail: format!(
                    "The OAuth token lacks the scope {scope:?} this operation needs; request a token \
                     that includes it."
                ),
            })
        }
        _ => Ok(record),
    }
}
