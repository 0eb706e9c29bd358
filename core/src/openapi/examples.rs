//! Examples and words the catalogue cannot give: one example body for every
//! response the document lists (so linters, mocks and example-based testers
//! have one), the tag descriptions, and the document's license and contact.

use crate::gate::GateConfig;
use crate::model::catalogue::ids;
use crate::model::{Envelope, Operation};
use serde_json::{json, Value};

use super::OpenApiOptions;

/// The SPDX license expression of the document (the project's own).
pub const DOCUMENT_LICENSE: &str = "MIT OR Apache-2.0";

/// `info.license`: the SPDX expression as an OpenAPI 3.1 `identifier`.
pub(crate) fn license() -> Value {
    json!({"name": DOCUMENT_LICENSE, "identifier": DOCUMENT_LICENSE})
}

/// `info.contact`: where developers go, from the index settings.
pub(crate) fn contact(config: &GateConfig) -> Value {
    json!({
        "name": format!("{} developers", config.index.name),
        "url": config.index.developers_url,
    })
}

/// A sentence describing a tag; data-driven for tags this module does not know.
pub(crate) fn tag_description(name: &str) -> String {
    match name {
        "Discovery" => {
            "The API index: what the API is, how to authenticate, its limits and resources.".into()
        }
        "Tables" => "Records of the caller's tables, with paging and ordering.".into(),
        "Connections" => "Records of the caller's connected data sources (legacy envelope).".into(),
        other => format!("Operations on {}.", other.to_ascii_lowercase()),
    }
}

/// The example body of `status` for `operation`.
pub(crate) fn response_example(
    config: &GateConfig,
    operation: &Operation,
    options: &OpenApiOptions,
    status: &str,
) -> Value {
    match status {
        "200" => success_example(config, operation, options),
        "400" => json!({
            "detail": "The request has 1 invalid parameter: limit must be an integer from 1 to 100.",
            "status": 400,
            "errors": [{"parameter": "limit", "problem": "must be an integer from 1 to 100"}],
        }),
        "401" => json!({
            "detail": "A credential is required: send X-API-Key or Authorization: Bearer.",
            "status": 401,
        }),
        "403" => json!({
            "detail": "The credential lacks access to this resource or a required OAuth scope.",
            "status": 403,
        }),
        "404" => json!({
            "detail": "No such resource is visible to this credential.",
            "status": 404,
        }),
        "405" => json!({
            "detail": format!("Method not allowed; this path serves {}.", operation.method),
            "status": 405,
        }),
        "429" => {
            let quota = config.limits.credential;
            json!({
                "detail": format!(
                    "Rate limit exceeded: the credential limit allows {} requests per {} s; \
                     retry in 12 s.",
                    quota.requests,
                    crate::time::ceil_seconds(quota.window())
                ),
                "status": 429,
                "limit": "credential",
            })
        }
        other => json!({"detail": format!("HTTP {other}."), "status": other.parse::<u16>().ok()}),
    }
}

fn success_example(config: &GateConfig, operation: &Operation, options: &OpenApiOptions) -> Value {
    if let Some(example) = options.response_examples.get(&operation.id) {
        return example.clone();
    }
    match operation.envelope {
        Envelope::Bare if operation.id == ids::GET_API_INDEX => config
            .build_index()
            .ok()
            .and_then(|index| serde_json::to_value(index).ok())
            .unwrap_or_else(|| json!({})),
        Envelope::Bare => json!({}),
        Envelope::Data => json!({"data": []}),
        Envelope::TopLevelArray => json!([]),
    }
}
