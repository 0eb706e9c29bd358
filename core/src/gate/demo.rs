//! Demo credentials shared by examples, the conformance vectors and the
//! sandbox's built-in data. Not secrets: they are published on purpose.

use crate::model::{CredentialKind, CredentialRecord, InMemoryCredentials, Secret};
use crate::UnixMillis;

/// Ada's API key.
pub const ADA_KEY: &str = "acd_live_demo_ada";
/// Bob's API key.
pub const BOB_KEY: &str = "acd_live_demo_bob";
/// A second API key of Ada's (shares her per-user table-read limit).
pub const ADA_SECOND_KEY: &str = "acd_live_demo_ada_ci";
/// An OAuth token of Ada's with scope `tables:read`.
pub const ADA_TOKEN: &str = "acd_oat_demo_ada_tables";
/// An OAuth token of Ada's with no scope.
pub const ADA_TOKEN_NO_SCOPE: &str = "acd_oat_demo_ada_noscope";
/// An API key that expired at Unix ms 1,000,000,000,000 (2001-09-09).
pub const EXPIRED_KEY: &str = "acd_live_demo_expired";

fn record(
    id: &str,
    kind: CredentialKind,
    user: &str,
    scopes: &[&str],
    expires_at: Option<UnixMillis>,
) -> CredentialRecord {
    CredentialRecord {
        id: id.into(),
        kind,
        user: user.into(),
        scopes: scopes.iter().map(|scope| (*scope).to_owned()).collect(),
        expires_at,
    }
}

/// The demo credential table.
pub fn credentials() -> InMemoryCredentials {
    use CredentialKind::{ApiKey, OAuthToken};
    InMemoryCredentials::new()
        .with(
            Secret::new(ADA_KEY),
            record("key-ada", ApiKey, "ada", &[], None),
        )
        .with(
            Secret::new(ADA_SECOND_KEY),
            record("key-ada-ci", ApiKey, "ada", &[], None),
        )
        .with(
            Secret::new(BOB_KEY),
            record("key-bob", ApiKey, "bob", &[], None),
        )
        .with(
            Secret::new(ADA_TOKEN),
            record("token-ada", OAuthToken, "ada", &["tables:read"], None),
        )
        .with(
            Secret::new(ADA_TOKEN_NO_SCOPE),
            record("token-ada-noscope", OAuthToken, "ada", &[], None),
        )
        .with(
            Secret::new(EXPIRED_KEY),
            record(
                "key-expired",
                ApiKey,
                "ada",
                &[],
                Some(UnixMillis::new(1_000_000_000_000)),
            ),
        )
}
