//! Interpreted responses for JavaScript: `ApiResponse`, and the plain
//! objects that report results and retry causes.

use crate::error::Failure;
use crate::js::{self, object};
use acd_core::client::{ApiResponse, ClientError, Plan, RetryCause, WaitReason};
use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

/// A successful response, interpreted: records (a table page or connection
/// records), the validated API index, or a single `data` object.
#[wasm_bindgen(js_name = ApiResponse)]
pub struct JsApiResponse {
    pub(crate) inner: ApiResponse,
}

#[wasm_bindgen(js_class = ApiResponse)]
impl JsApiResponse {
    /// `"records"`, `"index"` or `"object"`.
    #[wasm_bindgen(getter, unchecked_return_type = "\"records\" | \"index\" | \"object\"")]
    pub fn kind(&self) -> String {
        match &self.inner {
            ApiResponse::Records { .. } => "records",
            ApiResponse::Index { .. } => "index",
            ApiResponse::Object { .. } => "object",
        }
        .into()
    }

    /// The HTTP status.
    #[wasm_bindgen(getter)]
    pub fn status(&self) -> u16 {
        self.inner.status()
    }

    /// The records, parsed, or `undefined` when this is not a list.
    #[wasm_bindgen(getter, unchecked_return_type = "unknown[] | undefined")]
    pub fn records(&self) -> JsValue {
        match self.inner.records() {
            Some(records) => records_to_js(records).into(),
            None => JsValue::UNDEFINED,
        }
    }

    /// Each record's JSON text exactly as received, or `undefined`.
    #[wasm_bindgen(getter, js_name = recordsJson)]
    pub fn records_json(&self) -> Option<Vec<String>> {
        self.inner.records().map(|records| {
            records
                .iter()
                .map(|record| record.get().to_owned())
                .collect()
        })
    }

    /// The API index document, or `undefined`.
    #[wasm_bindgen(getter, unchecked_return_type = "Record<string, unknown> | undefined")]
    pub fn index(&self) -> JsValue {
        match &self.inner {
            ApiResponse::Index { index, .. } => js::serde_to_js(index),
            _ => JsValue::UNDEFINED,
        }
    }

    /// The single `data` object, parsed, or `undefined`.
    #[wasm_bindgen(getter)]
    pub fn value(&self) -> JsValue {
        match &self.inner {
            ApiResponse::Object { value, .. } => js::parse_json_js(value.get()),
            _ => JsValue::UNDEFINED,
        }
    }

    /// The core's JSON form (as in the conformance vectors).
    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> JsValue {
        js::serde_to_js(&self.inner)
    }
}

/// Raw JSON records, parsed.
pub fn records_to_js(records: &[Box<serde_json::value::RawValue>]) -> Array {
    records
        .iter()
        .map(|record| js::parse_json_js(record.get()))
        .collect()
}

/// `{type: "throttled", retryAfter}`, `{type: "server_error", status}` or
/// `{type: "transport", failure}`.
pub fn cause_to_js(cause: &RetryCause) -> JsValue {
    match cause {
        RetryCause::Throttled { retry_after } => object(&[
            ("type", "throttled".into()),
            ("retryAfter", (*retry_after).into()),
        ]),
        RetryCause::ServerError { status } => object(&[
            ("type", "server_error".into()),
            ("status", (*status).into()),
        ]),
        RetryCause::Transport { failure } => object(&[
            ("type", "transport".into()),
            ("failure", js::serde_to_js(failure)),
        ]),
    }
    .into()
}

/// `{kind, ok: true, response}` or `{kind, ok: false, error}` (the error is
/// the `AcdError` one would throw, returned instead).
pub fn result_to_js(kind: &str, result: Result<ApiResponse, ClientError>) -> Object {
    match result {
        Ok(response) => object(&[
            ("kind", kind.into()),
            ("ok", true.into()),
            ("response", JsApiResponse { inner: response }.into()),
        ]),
        Err(error) => object(&[
            ("kind", kind.into()),
            ("ok", false.into()),
            ("error", Failure::from(&error).into()),
        ]),
    }
}

/// `{plan: "send_now"}` or `{plan: "wait_until", at, limit, reason}`: the
/// core's JSON form, built directly (the throttle vectors check it).
pub fn plan_to_js(plan: &Plan) -> JsValue {
    match plan {
        Plan::SendNow => object(&[("plan", "send_now".into())]),
        Plan::WaitUntil { at, limit, reason } => object(&[
            ("plan", "wait_until".into()),
            ("at", js::u64_to_js(*at)),
            ("limit", limit.as_str().into()),
            (
                "reason",
                // The throttle plans only quota and Retry-After waits.
                match reason {
                    WaitReason::Quota => "quota",
                    _ => "retry_after",
                }
                .into(),
            ),
        ]),
    }
    .into()
}
