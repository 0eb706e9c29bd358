//! Failures of the gate and the simulation on their way to JavaScript: an
//! instance of one of the `Error` subclasses of `js/errors.js`, with a
//! sentence and a machine-readable `code`. (The client's refusals cross as
//! the core's error JSON; see [`crate::wire`].) No sentence holds a secret.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(raw_module = "../js/errors.js")]
extern "C" {
    /// `createAcdError(className, code, message)` from `js/errors.js`.
    #[wasm_bindgen(js_name = createAcdError)]
    fn create_acd_error(class_name: &str, code: &str, message: &str) -> JsValue;
}

/// An error on its way to JavaScript: its class name, code and sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The class in `js/errors.js`.
    pub class: &'static str,
    /// The machine-readable code.
    pub code: &'static str,
    /// The sentence (becomes `message`).
    pub message: String,
}

impl Failure {
    /// A JavaScript argument had the wrong type or value.
    pub fn argument(message: impl Into<String>) -> Self {
        Self {
            class: "AcdArgumentError",
            code: "INVALID_ARGUMENT",
            message: message.into(),
        }
    }

    /// An object was used after it was spent (an admitted request answered twice).
    pub fn state(message: impl Into<String>) -> Self {
        Self {
            class: "AcdStateError",
            code: "ALREADY_ANSWERED",
            message: message.into(),
        }
    }
}

/// A refused configuration (gate or simulation).
pub fn config_failure(message: impl Into<String>) -> Failure {
    Failure {
        class: "AcdConfigError",
        code: "INVALID_CONFIG",
        message: message.into(),
    }
}

impl From<Failure> for JsValue {
    fn from(failure: Failure) -> JsValue {
        create_acd_error(failure.class, failure.code, &failure.message)
    }
}
