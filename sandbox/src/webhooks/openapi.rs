//! The `webhooks` section of `/openapi.json` (OpenAPI 3.1): one entry per
//! run event type, each a POST whose body is the `WebhookRunEvent` payload,
//! with the three Standard Webhooks headers.

use acd_core::webhooks::{RunEventType, DEFAULT_SCHEDULE_MS, DEFAULT_TOLERANCE_MS};
use serde_json::{json, Map, Value};

fn header(name: &str, description: &str, example: &str) -> Value {
    json!({
        "name": name,
        "in": "header",
        "required": true,
        "description": description,
        "schema": {"type": "string"},
        "example": example,
    })
}

fn parameters() -> Vec<Value> {
    vec![
        header(
            "webhook-id",
            "The message id: the same on every attempt (dedupe on it).",
            "msg_1",
        ),
        header(
            "webhook-timestamp",
            "When this attempt was signed, Unix seconds.",
            "1700000000",
        ),
        header(
            "webhook-signature",
            "Space-separated v1,<base64> signatures.",
            "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
        ),
    ]
}

/// The payload schema of run events (refers to the `Run` schema).
pub fn event_schema() -> Value {
    let types: Vec<&str> = RunEventType::ALL.iter().map(|k| k.as_str()).collect();
    json!({
        "type": "object",
        "description": "A run lifecycle event (Standard Webhooks payload). `type` is run.<status> \
                        of the status the run entered; `timestamp` is when it entered it.",
        "required": ["type", "timestamp", "data"],
        "properties": {
            "type": {"type": "string", "enum": types},
            "timestamp": {"type": "string", "format": "date-time",
                          "description": "When the event happened (RFC 3339, UTC, milliseconds)."},
            "data": {
                "type": "object",
                "required": ["run"],
                "properties": {"run": {"$ref": "#/components/schemas/Run"}},
            },
        },
    })
}

/// Adds `components.schemas.WebhookRunEvent` and the `webhooks` member.
pub fn add_to(document: &mut Value) {
    if let Some(schemas) = document
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        schemas.insert("WebhookRunEvent".into(), event_schema());
    }
    let schedule: Vec<String> = DEFAULT_SCHEDULE_MS
        .iter()
        .map(|ms| format!("{ms} ms"))
        .collect();
    let mut hooks = Map::new();
    for kind in RunEventType::ALL {
        hooks.insert(
            kind.as_str().to_owned(),
            json!({"post": {
                "operationId": operation_id(kind.as_str()),
                "summary": format!("{kind}: a run entered status {}", kind.as_str().trim_start_matches("run.")),
                "description": format!(
                    "Signed with HMAC-SHA256 per Standard Webhooks: webhook-signature holds \
                     space-separated v1,<base64> signatures of `{{webhook-id}}.{{webhook-timestamp}}.{{raw body}}`. \
                     Verify against the raw body with a tolerance (default {} s). A 2xx answer within 15 s \
                     ends the delivery; otherwise it is retried after {} (each delay counted from the previous \
                     attempt's due time), with the same webhook-id.",
                    DEFAULT_TOLERANCE_MS / 1000, schedule.join(", ")
                ),
                "parameters": parameters(),
                "requestBody": {
                    "required": true,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/WebhookRunEvent"}}},
                },
                "responses": {
                    "2XX": {"description": "Received; the delivery ends."},
                    "default": {"description": "Any other answer (or none within 15 s): retried on the schedule."},
                },
            }}),
        );
    }
    if let Some(object) = document.as_object_mut() {
        object.insert("webhooks".into(), Value::Object(hooks));
    }
}

/// The webhook operation's id: `run.queued` -> `runQueuedWebhook`.
fn operation_id(event_type: &str) -> String {
    let mut id = String::new();
    for (index, part) in event_type.split('.').enumerate() {
        let mut chars = part.chars();
        match (index, chars.next()) {
            (0, Some(first)) => id.push(first),
            (_, Some(first)) => id.extend(first.to_uppercase()),
            (_, None) => {}
        }
        id.push_str(chars.as_str());
    }
    id.push_str("Webhook");
    id
}
