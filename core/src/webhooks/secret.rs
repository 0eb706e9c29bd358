//! Webhook secrets: `whsec_` followed by the standard base64 of the key
//! bytes (padding optional), as the Standard Webhooks specification writes them.

use super::WebhookError;
use base64::alphabet::STANDARD as ALPHABET;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;

/// Standard base64, with or without padding (the reference libraries
/// accept both).
const LENIENT: GeneralPurpose = GeneralPurpose::new(
    &ALPHABET,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// The prefix of every secret's text form.
pub const SECRET_PREFIX: &str = "whsec_";
/// The most key bytes a secret may have (the spec recommends 24 to 64).
pub const MAX_SECRET_BYTES: usize = 256;
/// Key bytes of a secret made by [`Secret::from_entropy`].
pub const GENERATED_SECRET_BYTES: usize = 32;

/// An HMAC-SHA256 key. Its `Debug` never shows the key.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(Vec<u8>);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Secret(whsec_<{} bytes>)", self.0.len())
    }
}

impl Secret {
    /// Reads `whsec_<base64>` (padding optional, surrounding whitespace
    /// ignored); `bad_secret` when the prefix is missing, the
    /// base64 is malformed, or the key is empty or over
    /// [`MAX_SECRET_BYTES`].
    pub fn parse(text: &str) -> Result<Self, WebhookError> {
        let Some(encoded) = text.trim().strip_prefix(SECRET_PREFIX) else {
            return Err(WebhookError::BadSecret {
                reason: "it does not start with whsec_",
            });
        };
        let key = LENIENT
            .decode(encoded)
            .map_err(|_| WebhookError::BadSecret {
                reason: "the part after whsec_ is not standard base64",
            })?;
        Self::from_bytes(&key)
    }

    /// A secret of these key bytes; `bad_secret` when empty or over
    /// [`MAX_SECRET_BYTES`].
    pub fn from_bytes(key: &[u8]) -> Result<Self, WebhookError> {
        if key.is_empty() {
            return Err(WebhookError::BadSecret {
                reason: "the key is empty",
            });
        }
        if key.len() > MAX_SECRET_BYTES {
            return Err(WebhookError::BadSecret {
                reason: "the key is longer than 256 bytes",
            });
        }
        Ok(Self(key.to_vec()))
    }

    /// A new secret of [`GENERATED_SECRET_BYTES`] from caller-supplied
    /// random bytes (an edge reads them from the OS).
    pub fn from_entropy(bytes: [u8; GENERATED_SECRET_BYTES]) -> Self {
        Self(bytes.to_vec())
    }

    /// The text form `whsec_<base64>`: this reveals the key, so show it
    /// only to the person who owns it.
    pub fn to_whsec(&self) -> String {
        format!("{SECRET_PREFIX}{}", STANDARD.encode(&self.0))
    }

    /// The key bytes.
    pub(super) fn key(&self) -> &[u8] {
        &self.0
    }
}

impl std::str::FromStr for Secret {
    type Err = WebhookError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse(text)
    }
}
