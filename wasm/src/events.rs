//! Events and interpreted responses as JavaScript values: plain objects
//! tagged by `type` with camelCase members. A page's records cross as the
//! JSON text of their array, parsed by one `JSON.parse` in `js/shapes.js`.

use crate::client::client_error;
use crate::js::{self, object};
use acd_core::client::{ApiResponse, Event, LimitInfo, WaitReason};
use serde_json::value::RawValue;
use wasm_bindgen::prelude::*;

// Built by `js/shapes.js`: one call each instead of one crossing per member.
#[wasm_bindgen(raw_module = "../js/shapes.js")]
extern "C" {
    #[wasm_bindgen(js_name = responseEvent)]
    fn shape_response_event(response: JsValue) -> JsValue;
    #[wasm_bindgen(js_name = recordsResponse)]
    fn shape_records_response(status: u16, text: &str) -> JsValue;
    #[wasm_bindgen(js_name = pageEvent)]
    fn shape_page_event(text: &str, page: JsValue, last: bool) -> JsValue;
    #[wasm_bindgen(js_name = doneEvent)]
    fn shape_done_event() -> JsValue;
}

/// The JSON text of an array of raw records.
pub fn raw_array_text(records: &[Box<RawValue>]) -> String {
    let mut text =
        String::with_capacity(2 + records.iter().map(|r| r.get().len() + 1).sum::<usize>());
    push_records_json(&mut text, records);
    text
}

/// `records` as a JSON array, appended to `text`.
fn push_records_json(text: &mut String, records: &[Box<RawValue>]) {
    text.push('[');
    for (index, record) in records.iter().enumerate() {
        if index > 0 {
            text.push(',');
        }
        text.push_str(record.get());
    }
    text.push(']');
}

/// An interpreted response as `{type, status, ...}`.
pub fn response_to_js(response: &ApiResponse) -> JsValue {
    match response {
        ApiResponse::Records { status, records } => {
            return shape_records_response(*status, &raw_array_text(records))
        }
        ApiResponse::Index { status, index } => object(&[
            ("type", "index".into()),
            ("status", (*status).into()),
            ("index", js::serde_to_js(index)),
        ]),
        ApiResponse::Object { status, value } => object(&[
            ("type", "object".into()),
            ("status", (*status).into()),
            ("value", js::parse_json_js(value.get())),
        ]),
    }
    .into()
}

fn limit_to_js(limit: &LimitInfo) -> JsValue {
    object(&[
        ("name", limit.name.as_str().into()),
        ("requests", js::u64_to_js(limit.requests)),
        (
            "windowSeconds",
            js::u64_to_js(limit.window_seconds.as_secs()),
        ),
    ])
    .into()
}

fn reason_to_js(reason: &WaitReason) -> JsValue {
    match reason {
        WaitReason::Quota => object(&[("type", "quota".into())]),
        WaitReason::RetryAfter => object(&[("type", "retryAfter".into())]),
        WaitReason::Backoff { attempt } => {
            object(&[("type", "backoff".into()), ("attempt", (*attempt).into())])
        }
        WaitReason::PollInterval => object(&[("type", "pollInterval".into())]),
        _ => object(&[("type", "other".into())]),
    }
    .into()
}

/// An event as `{type, ...}` (camelCase members).
pub fn event_to_js(event: &Event) -> JsValue {
    match event {
        Event::Response(response) => return shape_response_event(response_to_js(response)),
        Event::Page {
            records,
            page,
            last,
        } => return shape_page_event(&raw_array_text(records), js::u64_to_js(*page), *last),
        Event::RunStatus {
            status,
            terminal,
            run,
        } => object(&[
            ("type", "runStatus".into()),
            ("status", status.as_str().into()),
            ("terminal", (*terminal).into()),
            ("run", js::parse_json_js(run.get())),
        ]),
        Event::Waiting {
            until,
            limit,
            reason,
        } => object(&[
            ("type", "waiting".into()),
            ("until", js::u64_to_js(until.as_millis())),
            (
                "limit",
                limit.as_ref().map_or(JsValue::UNDEFINED, limit_to_js),
            ),
            ("reason", reason_to_js(reason)),
        ]),
        Event::Deprecation(warning) => object(&[
            ("type", "deprecation".into()),
            ("operationId", warning.operation_id.as_str().into()),
            (
                "sunsetAt",
                js::optional_u64_to_js(
                    warning
                        .sunset_at
                        .and_then(|seconds| seconds.checked_mul(1000)),
                ),
            ),
            ("warning", js::serde_to_js(warning)),
        ]),
        Event::Done => return shape_done_event(),
        Event::Failed(error) => {
            object(&[("type", "failed".into()), ("error", client_error(error))])
        }
        _ => object(&[("type", "other".into())]),
    }
    .into()
}
