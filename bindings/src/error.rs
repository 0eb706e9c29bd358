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
