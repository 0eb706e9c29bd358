//! Errors on their way to JavaScript.
//!
//! Every failure leaves Rust as an instance of one of the `Error` subclasses
//! defined in `js/errors.js` (`AcdConfigError`, `AcdArgumentError`, ...), with
//! the core's sentence as `message`, a machine-readable `code`, and, where
//! useful, extra members (`status`, `problems`, ...). The sentences come from
//! acd-core (or say which JavaScript argument was wrong); none of them ever
//! contains a credential.

use acd_core::client::{string_member, ClientError, ErrorCategory};
use acd_core::model::ParamProblem;
use serde::Serialize;
use serde_json::value::RawValue;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(raw_module = "../js/errors.js")]
extern "C" {
    /// `createAcdError(className, code, message, details)` from `js/errors.js`.
    #[wasm_bindgen(js_name = createAcdError)]
    fn create_acd_error(class_name: &str, code: &str, message: &str, details: JsValue) -> JsValue;
}

/// Which JavaScript class an error becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// A gate configuration or credential table was refused.
    Config,
    /// A JavaScript argument had the wrong type or value.
    Argument,
    /// An object was used after it was spent (e.g. answered twice).
    State,
    /// The API answered with an Error body.
    Api,
    /// A response broke the API's contract.
    Protocol,
    /// A request could not be built (it was never sent).
    Request,
    /// The transport failed and the call was not retried (further).
    Transport,
}

impl ErrorClass {
    /// The class name in `js/errors.js`.
    pub fn js_name(self) -> &'static str {
        match self {
            ErrorClass::Config => "AcdConfigError",
            ErrorClass::Argument => "AcdArgumentError",
            ErrorClass::State => "AcdStateError",
            ErrorClass::Api => "AcdApiError",
            ErrorClass::Protocol => "AcdProtocolError",
            ErrorClass::Request => "AcdRequestError",
            ErrorClass::Transport => "AcdTransportError",
        }
    }
}

/// Machine-readable error codes (the `code` member in JavaScript). Client
/// errors use their kind in upper case (`API`, `PROTOCOL`, `INVALID_PARAMS`,
/// `GAVE_UP`, ...).
pub mod codes {
    /// The gate configuration or the credential table is invalid.
    pub const INVALID_CONFIG: &str = "INVALID_CONFIG";
    /// An argument has the wrong type or an out-of-range value.
    pub const INVALID_ARGUMENT: &str = "INVALID_ARGUMENT";
    /// An admitted request was answered twice.
    pub const ALREADY_ANSWERED: &str = "ALREADY_ANSWERED";
}

/// An error on its way to JavaScript: class, code, sentence and details.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// The JavaScript class.
    pub class: ErrorClass,
    /// The machine-readable code.
    pub code: String,
    /// The sentence (becomes `message`).
    pub message: String,
    /// Extra members copied onto the error object: the JSON text of an
    /// object, if any.
    pub details: Option<String>,
}

impl Failure {
    /// A failure without details.
    pub fn new(class: ErrorClass, code: &str, message: impl Into<String>) -> Self {
        Self {
            class,
            code: code.to_owned(),
            message: message.into(),
            details: None,
        }
    }

    /// An [`ErrorClass::Argument`] failure with code `INVALID_ARGUMENT`.
    pub fn argument(message: impl Into<String>) -> Self {
        Self::new(ErrorClass::Argument, codes::INVALID_ARGUMENT, message)
    }

    /// An [`ErrorClass::State`] failure with code `ALREADY_ANSWERED`.
    pub fn state(message: impl Into<String>) -> Self {
        Self::new(ErrorClass::State, codes::ALREADY_ANSWERED, message)
    }

    /// Attaches extra members: the JSON text of an object.
    pub fn with_details(mut self, details: String) -> Self {
        self.details = Some(details);
        self
    }
}

/// A refused configuration: [`ErrorClass::Config`], code `INVALID_CONFIG`.
pub fn config_failure(message: impl Into<String>) -> Failure {
    Failure::new(ErrorClass::Config, codes::INVALID_CONFIG, message)
}

/// The one table: the class an error of each core category becomes (a
/// retry that gave up already has the category of its last attempt's error).
fn category_class(category: ErrorCategory) -> ErrorClass {
    match category {
        ErrorCategory::Config => ErrorClass::Config,
        ErrorCategory::Request | ErrorCategory::Cancelled => ErrorClass::Request,
        ErrorCategory::Authentication
        | ErrorCategory::Permission
        | ErrorCategory::NotFound
        | ErrorCategory::RateLimit
        | ErrorCategory::Server => ErrorClass::Api,
        ErrorCategory::Connection | ErrorCategory::Timeout | ErrorCategory::Interrupted => {
            ErrorClass::Transport
        }
        ErrorCategory::Protocol => ErrorClass::Protocol,
    }
}

/// The innermost error (the last attempt's, for a retry that gave up).
fn innermost(error: &ClientError) -> &ClientError {
    match error {
        ClientError::GaveUp { last, .. } => innermost(last),
        other => other,
    }
}

/// The members a client error adds to its JavaScript error, in name order.
#[derive(Serialize)]
struct ClientDetails<'a> {
    /// The core's category of the error (`config`, `request`, `not_found`, ...).
    category: &'static str,
    /// The core's JSON form of the error (as in the conformance vectors).
    data: &'a RawValue,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    extra: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    problems: Option<&'a [ParamProblem]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<u16>,
}

impl From<&ClientError> for Failure {
    /// The core's sentence; the class comes from the core's category (also
    /// copied as `category`); `code` is the kind in upper case; `data` is the
    /// core's JSON form (as in the conformance vectors); `status`, `detail`,
    /// `extra` and `problems` are copied to the top when the error has them.
    fn from(error: &ClientError) -> Self {
        // Writing the core's plain data types as JSON cannot fail.
        let data = serde_json::to_string(error).unwrap_or_else(|_| "null".to_owned());
        let code = string_member(&data, "kind")
            .unwrap_or_else(|| "client".to_owned())
            .to_ascii_uppercase();
        let data = RawValue::from_string(data).ok();
        let null = RawValue::NULL;
        let category = error.category();
        let mut details = ClientDetails {
            category: category.as_str(),
            data: data.as_deref().unwrap_or(null),
            detail: None,
            extra: None,
            problems: None,
            status: None,
        };
        match innermost(error) {
            ClientError::Api {
                status,
                detail,
                extra,
            } => {
                details.status = Some(*status);
                details.detail = Some(detail);
                details.extra = Some(extra.as_raw());
            }
            ClientError::Protocol { status, .. }
            | ClientError::Redirect { status, .. }
            | ClientError::BodyTooLarge { status, .. }
            | ClientError::RateLimitedTooLong { status, .. } => details.status = Some(*status),
            ClientError::InvalidParams { problems, .. } => details.problems = Some(problems),
            _ => {}
        }
        Failure {
            class: category_class(category),
            code,
            message: error.to_string(),
            details: serde_json::to_string(&details).ok(),
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} [{}]: {}",
            self.class.js_name(),
            self.code,
            self.message
        )
    }
}

impl From<Failure> for JsValue {
    fn from(failure: Failure) -> JsValue {
        let details = match &failure.details {
            Some(text) => crate::js::parse_json_js(text),
            None => JsValue::UNDEFINED,
        };
        create_acd_error(
            failure.class.js_name(),
            &failure.code,
            &failure.message,
            details,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_name_their_class_and_code() {
        let failure = Failure::argument("nowMs must be a number");
        assert_eq!(
            failure.to_string(),
            "AcdArgumentError [INVALID_ARGUMENT]: nowMs must be a number"
        );
        let state = Failure::new(ErrorClass::State, codes::ALREADY_ANSWERED, "twice")
            .with_details(r#"{"a":1}"#.to_owned());
        assert_eq!(state.class.js_name(), "AcdStateError");
        assert!(state.details.is_some());
    }
}
