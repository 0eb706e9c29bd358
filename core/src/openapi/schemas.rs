//! The reusable parts of the OpenAPI document: component schemas (the
//! `ApiIndex` exactly as the spec's tables describe it, `Error` and its 400
//! and 429 forms, the record pages), the rate-limit headers and the security
//! schemes.

use serde_json::{json, Map, Value};

/// A `$ref` to a component schema.
pub(crate) fn schema_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

/// A `$ref` to a component header.
pub(crate) fn header_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/headers/{name}") })
}

fn uri() -> Value {
    json!({"type": "string", "format": "uri"})
}

fn strings() -> Value {
    json!({"type": "array", "items": {"type": "string"}})
}

fn only(value: &str) -> Value {
    json!({"type": "string", "enum": [value]})
}

/// A closed object: `properties`, the `required` names, no other members.
fn closed(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// The `ApiIndex` schema, nested objects inline, as the spec's tables say.
fn api_index() -> Value {
    let method = closed(
        json!({
            "type": {"type": "string", "enum": ["api_key", "oauth2"]},
            "documentation_url": uri(),
            "headers": strings(),
            "self_serve": {"type": "boolean"},
            "credential_creation": only("available_after_account_access"),
            "account_access": only("invite_required"),
            "flow": {"type": "string"},
            "metadata_url": uri(),
            "scopes_supported": strings(),
        }),
        &["type", "documentation_url"],
    );
    let trial = closed(
        json!({
            "available": {"type": "boolean"},
            "duration_days": {"type": "integer", "minimum": 1},
            "invite_required": {"type": "boolean"},
        }),
        &["available", "duration_days", "invite_required"],
    );
    let mut index = closed(
        json!({
            "name": {"type": "string"},
            "description": {"type": "string"},
            "version": {"type": "string"},
            "base_url": uri(),
            "documentation_url": uri(),
            "openapi_url": uri(),
            "developers_url": uri(),
            "llms_txt_url": uri(),
            "authentication": closed(
                json!({"methods": {"type": "array", "items": method}}),
                &["methods"],
            ),
            "onboarding": closed(
                json!({
                    "account_access": only("invite_required"),
                    "access_request_url": uri(),
                    "trial": trial,
                    "public_sandbox_available": {"type": "boolean"},
                }),
                &["account_access", "access_request_url", "trial", "public_sandbox_available"],
            ),
            "rate_limits": closed(
                json!({
                    "requests": {"type": "integer"},
                    "window_seconds": {"type": "integer"},
                    "scope": {"type": "string"},
                    "response_headers": strings(),
                    "documentation_url": uri(),
                }),
                &["requests", "window_seconds", "response_headers"],
            ),
            "versioning": closed(
                json!({
                    "strategy": only("url_path"),
                    "current_version": {"type": "string"},
                    "deprecation_headers": strings(),
                    "minimum_sunset_notice_days": {"type": "integer"},
                    "documentation_url": uri(),
                }),
                &["strategy", "current_version"],
            ),
            "resources": {
                "type": "object",
                "description": "Top-level resource name to an absolute URL (path templates included).",
                "additionalProperties": {"type": "string"},
            },
            "clients": closed(
                json!({"cli": uri(), "cli_documentation_url": uri()}),
                &[],
            ),
            "webhooks_documentation_url": uri(),
        }),
        &[
            "name",
            "version",
            "base_url",
            "documentation_url",
            "openapi_url",
            "developers_url",
            "authentication",
            "onboarding",
            "rate_limits",
            "versioning",
            "resources",
        ],
    );
    if let Value::Object(members) = &mut index {
        members.insert(
            "description".into(),
            json!("The API index: what the API is, how to authenticate, its limits and resources."),
        );
    }
    index
}

/// `components.schemas`.
pub(crate) fn component_schemas() -> Value {
    let error = json!({
        "type": "object",
        "description": "The body of every non-2xx response. Members other than `detail` and `status` may appear.",
        "properties": {
            "detail": {"type": "string", "description": "Human-readable failure detail."},
            "status": {"type": "integer", "description": "The HTTP status code."},
        },
        "required": ["detail"],
        "additionalProperties": true,
    });
    let validation = json!({
        "description": "A 400: `errors` lists every invalid parameter (at most 20; `detail` gives the total).",
        "allOf": [
            schema_ref("Error"),
            {
                "type": "object",
                "properties": {
                    "errors": {
                        "type": "array",
                        "items": closed(
                            json!({
                                "parameter": {"type": "string"},
                                "problem": {"type": "string"},
                            }),
                            &["parameter", "problem"],
                        ),
                    },
                },
            },
        ],
    });
    let rate_limited = json!({
        "description": "A 429: `limit` names the limit that refused the request.",
        "allOf": [
            schema_ref("Error"),
            {"type": "object", "properties": {"limit": {"type": "string"}}},
        ],
    });
    json!({
        "ApiIndex": api_index(),
        "Error": error,
        "ValidationError": validation,
        "RateLimitError": rate_limited,
        "TableRecord": {
            "type": "object",
            "description": "One table record; its fields depend on the table.",
        },
        "TableRecordPage": closed(
            json!({"data": {"type": "array", "items": schema_ref("TableRecord")}}),
            &["data"],
        ),
        "ConnectionRecord": {
            "type": "object",
            "description": "One connection record; its shape depends on the connection.",
        },
        "ConnectionRecordList": {
            "type": "array",
            "description": "The legacy top-level array (no `data` envelope).",
            "items": schema_ref("ConnectionRecord"),
        },
    })
}

fn integer_header(description: &str) -> Value {
    json!({
        "description": description,
        "required": true,
        "schema": {"type": "integer", "minimum": 0},
    })
}

/// `components.headers`: the rate-limit headers of every response and the
/// 429 extras.
pub(crate) fn component_headers() -> Value {
    json!({
        "RateLimit-Limit": integer_header(
            "Requests allowed in the current window of the tightest limit this request passed through."
        ),
        "RateLimit-Remaining": integer_header("Requests remaining in that window."),
        "RateLimit-Reset": integer_header("Seconds until that window resets (a delta)."),
        "Retry-After": integer_header(
            "Seconds to wait before retrying; authoritative (then add backoff and jitter)."
        ),
        "x-ratelimit-limit": integer_header("Legacy alias of RateLimit-Limit."),
        "x-ratelimit-remaining": integer_header("Legacy alias of RateLimit-Remaining."),
        "x-ratelimit-reset": {
            "description": "Unix timestamp in seconds when the window resets (not a delta).",
            "required": true,
            "schema": {"type": "string", "pattern": "^[0-9]+$"},
        },
    })
}

/// `components.securitySchemes`: `apiKey` (header `X-API-Key`) and `bearer`.
pub(crate) fn security_schemes(api_key_prefix: &str, oauth_token_prefix: &str) -> Value {
    let mut schemes = Map::new();
    schemes.insert(
        super::API_KEY_SCHEME.into(),
        json!({
            "type": "apiKey",
            "in": "header",
            "name": "X-API-Key",
            "description": format!("An API key; keys begin with `{api_key_prefix}`."),
        }),
    );
    schemes.insert(
        super::BEARER_SCHEME.into(),
        json!({
            "type": "http",
            "scheme": "bearer",
            "description": format!(
                "`Authorization: Bearer <credential>`: an API key (`{api_key_prefix}...`), or an \
                 OAuth access token (`{oauth_token_prefix}...`) on operations that accept OAuth."
            ),
        }),
    );
    Value::Object(schemes)
}
