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
    let mut text = String::with_capacity(raw_array_length(records));
    for part in raw_array_parts(records) {
        text.push_str(part);
    }
    text
}

/// The length in bytes of `raw_array_text(records)`.
pub fn raw_array_length(records: &[Box<RawValue>]) -> usize {
    let commas = records.len().saturating_sub(1);
    2 + commas
        + records
            .iter()
            .map(|record| record.get().len())
            .sum::<usize>()
}

/// The pieces of `raw_array_text(records)`, in order: brackets, records
/// and the commas between them.
pub fn raw_array_parts(records: &[Box<RawValue>]) -> impl Iterator<Item = &str> {
    let items = records.iter().enumerate().flat_map(|(index, record)| {
        let comma = if index > 0 { "," } else { "" };
        [comma, record.get()]
    });
    std::iter::once("[")
        .chain(items)
        .chain(std::iter::once("]"))
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
            ..
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

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(texts: &[&str]) -> Vec<Box<RawValue>> {
        texts
            .iter()
            .map(|text| RawValue::from_string((*text).to_owned()).unwrap())
            .collect()
    }

    #[test]
    fn records_join_into_one_json_array_of_the_announced_length() {
        for (records, expected) in [
            (raw(&[]), "[]"),
            (raw(&[r#"{"id":1}"#]), r#"[{"id":1}]"#),
            (raw(&[r#"{"id":1}"#, "2", r#""é""#]), r#"[{"id":1},2,"é"]"#),
        ] {
            assert_eq!(raw_array_text(&records), expected);
            assert_eq!(raw_array_length(&records), expected.len());
        }
    }
}
