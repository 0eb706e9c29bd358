//! [`AcdError`]: the single error type of the boundary.
//!
//! Each variant carries the sentence the Rust error displays, unchanged, so
//! a Python or Kotlin user reads exactly what a Rust user reads. In Python the
//! variants are `AcdError.Config`, ...; in Kotlin `AcdException.Config`, ...

use acd_core::gate::GateConfigError;

/// Everything that can go wrong across the boundary.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, uniffi::Error)]
#[uniffi(flat_error)]
pub enum AcdError {
    /// A configuration was refused (malformed JSON, or a rule of the core).
    #[error("{0}")]
    Config(String),
    /// An argument cannot be represented in the core (e.g. a negative time).
    #[error("{0}")]
    InvalidArgument(String),
    /// The client refused to build a request (unknown operation, invalid
    /// parameters, missing credential, ...), before any I/O.
    #[error("{0}")]
    Request(String),
}

impl From<GateConfigError> for AcdError {
    fn from(error: GateConfigError) -> Self {
        AcdError::Config(error.to_string())
    }
}

/// A client error in the core's JSON form (as `tests/vectors/client-errors.json`
/// holds it) as the driver protocol's error object: its members plus
/// `category`, `message` (the sentence) and `status` when an answer caused it.
#[uniffi::export]
pub fn client_error_json(json: String) -> Result<String, AcdError> {
    serde_json::from_str::<acd_core::client::ClientError>(&json)
        .map(|error| acd_core::client::wire::ErrorJson(&error).to_json())
        .map_err(|error| AcdError::Request(format!("client error JSON: {error}")))
}

/// Core's one list of error categories with the class each language raises
/// for each and the CLI's exit status (`ErrorCategory::classes`), as JSON:
/// `[{"category", "python", "kotlin", "js", "exit_code"}, ...]`. Each
/// language's tests check its table against it.
#[uniffi::export]
pub fn error_categories_json() -> String {
    acd_core::client::ErrorCategory::table_json()
}

/// The largest response body a client accepts when its configuration sets
/// none (the core's default), for transports that stop reading past it.
#[uniffi::export]
pub fn default_max_body_bytes() -> u64 {
    acd_core::client::DEFAULT_MAX_BODY_BYTES
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_errors_keep_the_core_sentence() {
        let error = GateConfigError::Field {
            field: "version",
            problem: "must be one path segment such as v1".into(),
        };
        assert_eq!(
            AcdError::from(error).to_string(),
            "gate configuration `version`: must be one path segment such as v1"
        );
    }
}
