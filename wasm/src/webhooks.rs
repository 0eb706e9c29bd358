//! Webhook verification and signing for JavaScript (`webhooks` from
//! `acd`, `signWebhook` from `acd/testing`): forwards to the core's JSON
//! form (`acd_core::webhooks::wire`), so every check, bound and default
//! (the 5-minute tolerance) stays in the core; no platform crypto is used.
//! `js/webhooks.js` turns the answer into an event or a
//! `WebhookVerificationError` with the core's `code`.

use crate::js::millis_from_js;
use acd_core::webhooks::wire;
use acd_core::UnixMillis;
use wasm_bindgen::prelude::*;

fn strings(json: &str, what: &str) -> Result<Vec<String>, JsValue> {
    serde_json::from_str(json).map_err(|_| {
        crate::error::Failure::argument(format!("{what} must be a JSON array of strings")).into()
    })
}

/// Verifies a delivery: its raw `body` bytes, `headers_json` (a JSON array
/// of `[name, value]` pairs, every header it arrived with), `secrets_json`
/// (a JSON array of `whsec_...`), the receiver's clock `now_ms` and
/// `tolerance_ms` (`undefined`: the core's default). With `decode_run`, a
/// run lifecycle event's run is decoded too. Answers `{"event": {...}}` or
/// `{"error": {"code", "message"}}`.
#[wasm_bindgen(js_name = webhookVerifyJson, skip_typescript)]
pub fn webhook_verify_json(
    body: &[u8],
    headers_json: &str,
    secrets_json: &str,
    now_ms: f64,
    tolerance_ms: Option<f64>,
    decode_run: bool,
) -> Result<String, JsValue> {
    let now = UnixMillis::new(millis_from_js(now_ms, "nowMs")?);
    let tolerance = tolerance_ms
        .map(|ms| millis_from_js(ms, "toleranceMs"))
        .transpose()?;
    let headers: Vec<(String, String)> = serde_json::from_str(headers_json).map_err(|_| {
        JsValue::from(crate::error::Failure::argument(
            "headers must be [name, value] pairs of strings",
        ))
    })?;
    let secrets = strings(secrets_json, "secrets")?;
    Ok(wire::verify_json(
        &secrets, &headers, body, now, tolerance, decode_run,
    ))
}

/// Signs `body` as message `id` at `timestamp_s` (whole Unix seconds) with
/// every secret of `secrets_json` (a JSON array of `whsec_...`):
/// `{"headers": {...}}` or `{"error": {"code", "message"}}`.
#[wasm_bindgen(js_name = webhookSignJson, skip_typescript)]
pub fn webhook_sign_json(
    secrets_json: &str,
    id: &str,
    timestamp_s: f64,
    body: &[u8],
) -> Result<String, JsValue> {
    let timestamp = millis_from_js(timestamp_s, "timestamp")?;
    let secrets = strings(secrets_json, "secrets")?;
    Ok(wire::sign_json(&secrets, id, timestamp, body))
}
