//! OpenAPI 3.1 document generation from the operation catalogue.
//!
//! [`document`] turns the [`GateConfig`] a gate runs on (its catalogue,
//! version, base and stable-egress URLs, credential prefixes, limits and
//! deprecation notices) into the OpenAPI document of exactly what that gate
//! serves: every operation (and its stable-egress twin), its parameters with
//! the validators' bounds, its security requirement, and every response the
//! gate can give it (200/400/401/403/404/405/429), each with the rate-limit
//! headers and, on 429, `Retry-After` and the legacy `x-ratelimit-*` trio.
//!
//! Pure: no I/O, no clock. The same configuration always gives the same
//! document, so a server, a binding or a test can generate it and compare.
//!
//! ```
//! use acd_core::gate::GateConfig;
//! use acd_core::openapi::{document, OpenApiOptions};
//! let doc = document(&GateConfig::default(), &OpenApiOptions::default());
//! assert_eq!(doc["openapi"], "3.1.0");
//! assert_eq!(doc["paths"]["/api/v1"]["get"]["security"], serde_json::json!([]));
//! ```

mod examples;
mod schemas;

pub use examples::DOCUMENT_LICENSE;

use crate::gate::GateConfig;
use crate::model::catalogue::ids;
use crate::model::operation::{DeprecationNotice, Segment};
use crate::model::{CredentialPolicy, Envelope, LimitSubject, Operation, ParamKind, ParamRole};
use schemas::{header_ref, schema_ref};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// Name of the API-key security scheme (header `X-API-Key`).
pub const API_KEY_SCHEME: &str = "apiKey";
/// Name of the HTTP bearer security scheme.
pub const BEARER_SCHEME: &str = "bearer";
/// Suffix of the operationId of an operation's stable-egress twin.
pub const STABLE_EGRESS_SUFFIX: &str = "ViaStableEgress";

/// What the catalogue cannot know: example values and what the server's
/// resources make of JSON-valued parameters.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OpenApiOptions {
    /// Example values of path, query and header parameters, by parameter
    /// name (e.g. `id` → `"orders"`), so that example-based tools reach data.
    pub examples: BTreeMap<String, Value>,
    /// The JSON Schema of JSON-valued query parameters, by name (e.g.
    /// `filter` → `{"type": "object"}` when the connections understand only
    /// objects). Without an entry such a parameter accepts any JSON.
    pub json_param_schemas: BTreeMap<String, Value>,
    /// Example success bodies, by operationId (e.g. `listTableRecords` →
    /// `{"data": [...]}`). Without an entry the example is the index itself
    /// (for the index) or an empty page.
    pub response_examples: BTreeMap<String, Value>,
}

/// The OpenAPI 3.1 document of what a gate with `config` serves.
pub fn document(config: &GateConfig, options: &OpenApiOptions) -> Value {
    let mut paths = Map::new();
    for operation in config.catalogue.operations() {
        let path = format!("/api/{}{}", config.version, operation.path);
        let object = operation_object(config, operation, options, false);
        insert_operation(&mut paths, path, &operation.method, object, None);
        if operation.stable_egress {
            if let Some((prefix, server)) = egress_mount(config) {
                let path = format!("{prefix}{}", operation.path);
                let object = operation_object(config, operation, options, true);
                insert_operation(&mut paths, path, &operation.method, object, server);
            }
        }
    }
    let settings = &config.index;
    let mut description = settings.description.clone().unwrap_or_default();
    if !description.is_empty() {
        description.push_str("\n\n");
    }
    description.push_str(&format!(
        "Authenticated traffic is limited to {} per credential; unauthenticated traffic to {} per \
         client IP. Every response carries RateLimit-Limit, RateLimit-Remaining and \
         RateLimit-Reset of the tightest limit the request passed through; a 429 adds \
         Retry-After and x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset.",
        quota_words(config.limits.credential),
        quota_words(config.limits.client_ip)
    ));
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": settings.name,
            "version": config.version,
            "description": description,
            "license": examples::license(),
            "contact": examples::contact(config),
        },
        "servers": [{"url": config.base_url}],
        "security": [{API_KEY_SCHEME: []}, {BEARER_SCHEME: []}],
        "tags": tags(config),
        "paths": paths,
        "components": {
            "securitySchemes": schemas::security_schemes(
                &config.api_key_prefix,
                &config.oauth_token_prefix,
            ),
            "schemas": schemas::component_schemas(),
            "headers": schemas::component_headers(),
        },
    })
}

/// [`document`] as compact JSON bytes.
pub fn document_bytes(config: &GateConfig, options: &OpenApiOptions) -> Vec<u8> {
    serde_json::to_vec(&document(config, options)).unwrap_or_default()
}

fn insert_operation(
    paths: &mut Map<String, Value>,
    path: String,
    method: &str,
    object: Value,
    server: Option<String>,
) {
    let item = paths.entry(path).or_insert_with(|| json!({}));
    if let Value::Object(item) = item {
        if let Some(server) = server {
            item.insert("servers".into(), json!([{ "url": server }]));
        }
        item.insert(method.to_ascii_lowercase(), object);
    }
}

/// Where stable-egress twins are mounted: a path prefix under the base URL,
/// or `/{version}` under a server of their own when the stable-egress URL
/// is elsewhere.
fn egress_mount(config: &GateConfig) -> Option<(String, Option<String>)> {
    let url = config.stable_egress_url.as_deref()?.trim_end_matches('/');
    match url.strip_prefix(config.base_url.as_str()) {
        Some(rest) if rest.starts_with('/') => Some((format!("{rest}/{}", config.version), None)),
        _ => Some((format!("/{}", config.version), Some(url.to_owned()))),
    }
}

fn tag_of(operation: &Operation) -> String {
    if operation.id == ids::GET_API_INDEX || operation.path.segments().is_empty() {
        return "Discovery".into();
    }
    let first = operation
        .path
        .segments()
        .iter()
        .find_map(|segment| match segment {
            Segment::Literal(text) => Some(text.as_str()),
            Segment::Param(_) => None,
        })
        .unwrap_or("Other");
    let mut chars = first.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_uppercase().chain(chars).collect::<String>()
    })
}

fn tags(config: &GateConfig) -> Value {
    let mut names: Vec<String> = Vec::new();
    for name in config.catalogue.operations().iter().map(tag_of) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    Value::Array(
        names
            .into_iter()
            .map(|name| json!({"name": name, "description": examples::tag_description(&name)}))
            .collect(),
    )
}

fn quota_words(quota: crate::limit::Quota) -> String {
    let window = quota.window();
    if window % 1_000 == 0 {
        format!("{} requests per {} s", quota.requests, window / 1_000)
    } else {
        format!("{} requests per {} ms", quota.requests, window)
    }
}

fn summary(operation: &Operation) -> String {
    match operation.id.as_str() {
        ids::GET_API_INDEX => "Get the API index".into(),
        ids::LIST_TABLE_RECORDS => "List table records".into(),
        ids::LIST_CONNECTION_RECORDS => "List connection records (legacy)".into(),
        other => other.into(),
    }
}

fn operation_object(
    config: &GateConfig,
    operation: &Operation,
    options: &OpenApiOptions,
    via_egress: bool,
) -> Value {
    let (security, credential_words) = match &operation.credential {
        CredentialPolicy::Public => (json!([]), "No credential is needed.".to_owned()),
        CredentialPolicy::ApiKeyOnly => (
            json!([{ API_KEY_SCHEME: [] }]),
            "Needs an API key; OAuth tokens are refused with 401.".to_owned(),
        ),
        CredentialPolicy::ApiKeyOrOAuth { scope } => (
            json!([{ API_KEY_SCHEME: [] }, { BEARER_SCHEME: [] }]),
            match scope {
                Some(scope) => {
                    format!("Needs an API key, or an OAuth token with scope `{scope}` (else 403).")
                }
                None => "Needs an API key or an OAuth token.".to_owned(),
            },
        ),
    };
    let mut description = vec![credential_words];
    for extra in &operation.extra_limits {
        let per = match &extra.per {
            LimitSubject::User => "user".to_owned(),
            LimitSubject::PathParam(name) => format!("`{name}`"),
        };
        description.push(format!(
            "Additional limit `{}`: {} per {per}.",
            extra.name,
            quota_words(extra.quota)
        ));
    }
    if operation.stable_egress {
        description.push(if via_egress {
            "Served under the stable-egress URL: the request leaves through the stable, \
             allowlistable egress IP."
                .to_owned()
        } else {
            format!(
                "Send `{}: true` to route through the stable, allowlistable egress IP, or call \
                 the same operation under the stable-egress URL.",
                config.stable_egress_header
            )
        });
    }
    let id = if via_egress {
        format!("{}{STABLE_EGRESS_SUFFIX}", operation.id)
    } else {
        operation.id.clone()
    };
    let mut object = json!({
        "operationId": id,
        "summary": summary(operation),
        "description": description.join(" "),
        "tags": [tag_of(operation)],
        "security": security,
        "parameters": parameters(config, operation, options),
        "responses": responses(config, operation, options),
    });
    if operation.deprecation.is_some() || config.version_deprecation.is_some() {
        set(&mut object, "deprecated", json!(true));
    }
    object
}

/// Sets `key` of a JSON object (built by `json!` here, so always an object).
fn set(object: &mut Value, key: &str, value: Value) {
    if let Some(members) = object.as_object_mut() {
        members.insert(key.to_owned(), value);
    }
}

fn role_words(role: ParamRole) -> &'static str {
    match role {
        ParamRole::Offset => "Number of records to skip.",
        ParamRole::Limit => "Maximum number of records to return.",
        ParamRole::OrderBy => "Column used to order results.",
        ParamRole::Direction => "Sort direction; meaningful when `order_by` is present.",
        ParamRole::After => {
            "Lower bound: with `order_by`, only rows whose order column is greater are returned."
        }
        ParamRole::EntityId => "Entity identifier, one returned by the connection's entities.",
        ParamRole::Filter => "Filter understood by the connection, as JSON.",
        ParamRole::Custom => "A parameter of this operation.",
    }
}

fn parameters(config: &GateConfig, operation: &Operation, options: &OpenApiOptions) -> Value {
    let mut list = Vec::new();
    let example = |name: &str, mut parameter: Value| {
        if let Some(value) = options.examples.get(name) {
            set(&mut parameter, "example", value.clone());
        }
        parameter
    };
    for name in operation.path.param_names() {
        list.push(example(
            name,
            json!({
                "name": name,
                "in": "path",
                "required": true,
                "description": "An identifier (one path segment; percent-encode reserved characters).",
                "schema": {"type": "string", "minLength": 1},
            }),
        ));
    }
    for spec in &operation.params {
        let mut parameter = json!({
            "name": spec.name,
            "in": "query",
            "required": spec.required,
        });
        let mut words = role_words(spec.role).to_owned();
        match &spec.kind {
            ParamKind::Integer { min, max, default } => {
                let mut schema = json!({"type": "integer", "minimum": min, "maximum": max});
                if let Some(default) = default {
                    set(&mut schema, "default", json!(default));
                }
                set(&mut parameter, "schema", schema);
                words.push_str(" Plain decimal digits (no sign or leading zeros).");
            }
            ParamKind::Enum { values, default } => {
                let mut schema = json!({"type": "string", "enum": values});
                if let Some(default) = default {
                    set(&mut schema, "default", json!(default));
                }
                set(&mut parameter, "schema", schema);
            }
            ParamKind::Text { max_bytes } => {
                set(
                    &mut parameter,
                    "schema",
                    json!({"type": "string", "minLength": 1, "maxLength": max_bytes}),
                );
                words.push_str(&format!(" At most {max_bytes} bytes of UTF-8."));
            }
            ParamKind::Json {
                max_bytes,
                max_depth,
            } => {
                // A string whose content is JSON (OpenAPI 3.1 / JSON Schema
                // `contentMediaType`), not `content: application/json`:
                // client generators keep string parameters, while many drop
                // parameters described by a media type. No `maxLength`: the
                // bound is in bytes (a character count cannot state it), so
                // the description gives it.
                let content_schema = options
                    .json_param_schemas
                    .get(&spec.name)
                    .cloned()
                    .unwrap_or_else(|| json!({}));
                set(
                    &mut parameter,
                    "schema",
                    json!({
                        "type": "string",
                        "minLength": 1,
                        "contentMediaType": "application/json",
                        "contentSchema": content_schema,
                    }),
                );
                if let Some(value) = options.examples.get(&spec.name) {
                    set(
                        &mut parameter,
                        "example",
                        match value {
                            Value::String(text) => Value::String(text.clone()),
                            other => Value::String(other.to_string()),
                        },
                    );
                }
                words.push_str(&format!(
                    " A JSON text (percent-encoded in the query), at most {max_bytes} bytes, \
                     nested at most {max_depth} deep."
                ));
            }
        }
        set(&mut parameter, "description", json!(words));
        if matches!(spec.kind, ParamKind::Json { .. }) {
            list.push(parameter);
        } else {
            list.push(example(&spec.name, parameter));
        }
    }
    if operation.stable_egress {
        let name = &config.stable_egress_header;
        list.push(example(
            name,
            json!({
                "name": name,
                "in": "header",
                "required": false,
                "description": "`true` routes the request through the stable, allowlistable egress IP.",
                "schema": {"type": "string", "enum": ["true", "false"]},
            }),
        ));
    }
    Value::Array(list)
}

fn responses(config: &GateConfig, operation: &Operation, options: &OpenApiOptions) -> Value {
    let deprecation = operation
        .deprecation
        .as_ref()
        .or(config.version_deprecation.as_ref());
    let public = operation.credential == CredentialPolicy::Public;
    let needs_scope = matches!(
        &operation.credential,
        CredentialPolicy::ApiKeyOrOAuth { scope: Some(_) }
    );
    let mut responses = Map::new();
    let mut add = |status: &str, description: &str, schema: Value, extra: &[(&str, Value)]| {
        let example = examples::response_example(config, operation, options, status);
        responses.insert(
            status.to_owned(),
            json!({
                "description": description,
                "headers": response_headers(deprecation, extra),
                "content": {"application/json": {"schema": schema, "example": example}},
            }),
        );
    };
    add("200", "Success.", payload_schema(operation), &[]);
    add(
        "400",
        "Invalid parameters (every problem is listed), or a credential sent in more than one header.",
        schema_ref("ValidationError"),
        &[],
    );
    if !public {
        add(
            "401",
            "Missing, malformed, unknown, expired, or unsupported credential.",
            schema_ref("Error"),
            &[(
                "WWW-Authenticate",
                json!({
                    "description": "An RFC 6750 Bearer challenge; `error=\"invalid_token\"` when a credential was sent.",
                    "required": true,
                    "schema": {"type": "string"},
                }),
            )],
        );
    }
    if !public && (needs_scope || operation.needs_resource) {
        add(
            "403",
            "The credential is valid but lacks access or a required OAuth scope.",
            schema_ref("Error"),
            &[(
                "WWW-Authenticate",
                json!({
                    "description": "With `error=\"insufficient_scope\"` and the `scope` needed, when a scope is missing.",
                    "required": false,
                    "schema": {"type": "string"},
                }),
            )],
        );
    }
    if operation.needs_resource {
        add(
            "404",
            "The resource does not exist or is not visible to the caller.",
            schema_ref("Error"),
            &[],
        );
    }
    add(
        "405",
        "Another method was used on this path; `Allow` lists the methods served.",
        schema_ref("Error"),
        &[(
            "Allow",
            json!({"description": "The methods served on this path.", "required": true, "schema": {"type": "string"}}),
        )],
    );
    add(
        "429",
        "A rate limit was exceeded; nothing was counted. Wait Retry-After seconds.",
        schema_ref("RateLimitError"),
        &[
            ("Retry-After", header_ref("Retry-After")),
            ("x-ratelimit-limit", header_ref("x-ratelimit-limit")),
            ("x-ratelimit-remaining", header_ref("x-ratelimit-remaining")),
            ("x-ratelimit-reset", header_ref("x-ratelimit-reset")),
        ],
    );
    Value::Object(responses)
}

fn response_headers(deprecation: Option<&DeprecationNotice>, extra: &[(&str, Value)]) -> Value {
    let mut headers = Map::new();
    for name in ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"] {
        headers.insert(name.into(), header_ref(name));
    }
    if let Some(notice) = deprecation {
        headers.insert(
            "Deprecation".into(),
            json!({"description": "RFC 9745: `@<Unix seconds>` of the deprecation.", "schema": {"type": "string"}}),
        );
        if notice.sunset_at.is_some() {
            headers.insert(
                "Sunset".into(),
                json!({"description": "RFC 8594: the HTTP-date of the sunset.", "schema": {"type": "string"}}),
            );
        }
    }
    for (name, header) in extra {
        headers.insert((*name).to_owned(), header.clone());
    }
    Value::Object(headers)
}

fn payload_schema(operation: &Operation) -> Value {
    match operation.envelope {
        Envelope::Bare if operation.id == ids::GET_API_INDEX => schema_ref("ApiIndex"),
        Envelope::Bare => json!({"type": "object"}),
        Envelope::Data if operation.id == ids::LIST_TABLE_RECORDS => schema_ref("TableRecordPage"),
        Envelope::Data => json!({
            "type": "object",
            "properties": {"data": {}},
            "required": ["data"],
            "additionalProperties": false,
        }),
        Envelope::TopLevelArray if operation.id == ids::LIST_CONNECTION_RECORDS => {
            schema_ref("ConnectionRecordList")
        }
        Envelope::TopLevelArray => json!({"type": "array"}),
    }
}

#[cfg(test)]
mod tests;
