//! The JSON form of verification and signing that the bindings forward
//! (uniffi for Python and Kotlin, wasm-bindgen for JavaScript), so that
//! every SDK's facade gets the same answer shape from one place:
//!
//! * [`verify_json`] → `{"event": {"id", "webhook_timestamp", "type",
//!   "timestamp", "data"[, "run"]}}` or `{"error": {"code", "message"}}`;
//! * [`sign_json`] → `{"headers": {"webhook-id", "webhook-timestamp",
//!   "webhook-signature"}}` or `{"error": {"code", "message"}}`.
//!
//! Nothing here is a rule: the checks, the default tolerance and the
//! header names are those of [`Verifier`] and [`signed_headers`].

use super::{signed_headers, RunEventType, Secret, Verifier, WebhookError};
use crate::UnixMillis;
use serde_json::{json, Map, Value};

fn error_json(error: &WebhookError) -> String {
    json!({ "error": error }).to_string()
}

/// Verifies a delivery as [`Verifier::verify`] does, with `secrets` in
/// their `whsec_...` form and `tolerance_ms` (`None`: the core's default,
/// [`super::DEFAULT_TOLERANCE_MS`]).
///
/// With `decode_run`, an event whose type is a run lifecycle type
/// (`run.queued`, ...) is also decoded as a [`super::RunEvent`]: its run
/// is added as `"run"` (`bad_payload` when `data.run` is not a run); other
/// types get `"run": null`.
pub fn verify_json<S, K, V>(
    secrets: &[S],
    headers: &[(K, V)],
    body: &[u8],
    now: UnixMillis,
    tolerance_ms: Option<u64>,
    decode_run: bool,
) -> String
where
    S: AsRef<str>,
    K: AsRef<str>,
    V: AsRef<str>,
{
    let verifier = match Verifier::from_strs(secrets) {
        Ok(verifier) => verifier,
        Err(error) => return error_json(&error),
    };
    let verifier = match tolerance_ms {
        Some(ms) => verifier.with_tolerance_ms(ms),
        None => verifier,
    };
    let event = match verifier.verify(headers, body, now) {
        Ok(event) => event,
        Err(error) => return error_json(&error),
    };
    let run = if decode_run && RunEventType::parse(&event.event_type).is_some() {
        match event.run_event() {
            Ok(run_event) => serde_json::to_value(run_event.run).unwrap_or(Value::Null),
            Err(error) => return error_json(&error),
        }
    } else {
        Value::Null
    };
    let mut out = match serde_json::to_value(&event) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    };
    if decode_run {
        out.insert("run".to_owned(), run);
    }
    json!({ "event": out }).to_string()
}

/// The three headers of `body` sent as message `id` at `timestamp_s`
/// (Unix seconds), signed with every secret in `secrets` (several during a
/// rotation), as [`signed_headers`] makes them; `bad_secret` for an empty
/// list or a malformed secret.
pub fn sign_json<S: AsRef<str>>(secrets: &[S], id: &str, timestamp_s: u64, body: &[u8]) -> String {
    let parsed = match secrets
        .iter()
        .map(|secret| Secret::parse(secret.as_ref()))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(parsed) if !parsed.is_empty() => parsed,
        Ok(_) => {
            return error_json(&WebhookError::BadSecret {
                reason: "no secret was given",
            })
        }
        Err(error) => return error_json(&error),
    };
    let headers: Map<String, Value> = signed_headers(&parsed, id, timestamp_s, body)
        .into_iter()
        .map(|(name, value)| (name, Value::String(value)))
        .collect();
    json!({ "headers": headers }).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const BODY: &str = r#"{"type":"run.succeeded","timestamp":"2023-11-14T22:13:20.000Z","data":{"run":{"id":"run_1","status":"succeeded"}}}"#;

    fn parse(text: &str) -> Value {
        serde_json::from_str(text).unwrap_or(Value::Null)
    }

    #[test]
    fn signed_then_verified_with_the_run_decoded() {
        let signed = parse(&sign_json(
            &[SECRET],
            "msg_1",
            1_700_000_000,
            BODY.as_bytes(),
        ));
        let headers: Vec<(String, String)> = signed["headers"]
            .as_object()
            .map(|map| {
                map.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_owned()))
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(headers.len(), 3);
        let now = UnixMillis::new(1_700_000_000_250);
        let out = parse(&verify_json(
            &[SECRET],
            &headers,
            BODY.as_bytes(),
            now,
            None,
            true,
        ));
        assert_eq!(out["event"]["id"], "msg_1");
        assert_eq!(out["event"]["run"]["id"], "run_1");
        let plain = parse(&verify_json(
            &[SECRET],
            &headers,
            BODY.as_bytes(),
            now,
            None,
            false,
        ));
        assert!(plain["event"].get("run").is_none());
        let late = UnixMillis::new(1_700_000_011_000);
        let out = parse(&verify_json(
            &[SECRET],
            &headers,
            BODY.as_bytes(),
            late,
            Some(10_000),
            false,
        ));
        assert_eq!(out["error"]["code"], "timestamp_out_of_tolerance");
    }

    #[test]
    fn no_secret_is_bad_secret_on_both_sides() {
        let none: [&str; 0] = [];
        assert_eq!(
            parse(&sign_json(&none, "m", 1, b"{}"))["error"]["code"],
            "bad_secret"
        );
        let headers: [(&str, &str); 0] = [];
        let out = parse(&verify_json(
            &none,
            &headers,
            b"{}",
            UnixMillis::ZERO,
            None,
            false,
        ));
        assert_eq!(out["error"]["code"], "bad_secret");
    }
}
