//! Webhook verification and signing for `acd.webhooks` (Python) and
//! `dev.acd.Webhooks` (Kotlin): forwards to the core's JSON form
//! (`acd_core::webhooks::wire`), so every check, bound and default (the
//! 5-minute tolerance) stays in the core. The facades turn the answer into
//! an event or a `WebhookVerificationError` with the core's `code`.

use crate::gate_types::Header;
use crate::time::to_core;
use crate::AcdError;
use acd_core::webhooks::wire;

fn pairs(headers: &[Header]) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|header| {
            (
                header.name.clone(),
                String::from_utf8_lossy(&header.value).into_owned(),
            )
        })
        .collect()
}

/// Verifies a delivery: its raw `body` bytes, every header it arrived with,
/// the receiver's secrets (`whsec_...`, several during a rotation), its
/// clock `now_ms` (Unix ms) and `tolerance_ms` (`None`: the core's
/// default). With `decode_run`, a run lifecycle event's run is decoded too.
/// Answers `{"event": {...}}` or `{"error": {"code", "message"}}`;
/// [`AcdError::InvalidArgument`] for a negative time.
#[uniffi::export]
pub fn webhook_verify_json(
    body: Vec<u8>,
    headers: Vec<Header>,
    secrets: Vec<String>,
    now_ms: i64,
    tolerance_ms: Option<i64>,
    decode_run: bool,
) -> Result<String, AcdError> {
    let now = to_core("now_ms", now_ms)?;
    let tolerance = tolerance_ms
        .map(|ms| to_core("tolerance_ms", ms).map(|t| t.as_millis()))
        .transpose()?;
    Ok(wire::verify_json(
        &secrets,
        &pairs(&headers),
        &body,
        now,
        tolerance,
        decode_run,
    ))
}

/// Signs `body` as message `id` at `timestamp_s` (Unix seconds) with every
/// secret in `secrets`: `{"headers": {"webhook-id", "webhook-timestamp",
/// "webhook-signature"}}` or `{"error": {"code", "message"}}`;
/// [`AcdError::InvalidArgument`] for a negative timestamp.
#[uniffi::export]
pub fn webhook_sign_json(
    secrets: Vec<String>,
    id: String,
    timestamp_s: i64,
    body: Vec<u8>,
) -> Result<String, AcdError> {
    let timestamp = u64::try_from(timestamp_s).map_err(|_| {
        AcdError::InvalidArgument(format!(
            "timestamp_s must be Unix seconds from 0; got {timestamp_s}"
        ))
    })?;
    Ok(wire::sign_json(&secrets, &id, timestamp, &body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_times_are_refused_before_the_core() {
        assert!(matches!(
            webhook_verify_json(vec![], vec![], vec![], -1, None, false),
            Err(AcdError::InvalidArgument(_))
        ));
        assert!(matches!(
            webhook_sign_json(vec![], "m".into(), -1, vec![]),
            Err(AcdError::InvalidArgument(_))
        ));
    }
}
