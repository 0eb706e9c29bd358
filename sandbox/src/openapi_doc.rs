//! `/openapi.json`: the document `acd_core::openapi` generates from the
//! gate's configuration, with the demo data's examples and the sandbox's
//! run shapes (the spec shows no run fields, so they are the sandbox's
//! choice and documented as such).

use crate::config::Built;
use acd_core::model::{ids, RUN_TERMINAL_STATUSES};
use acd_core::openapi::{self, OpenApiOptions};
use serde_json::{json, Value};

/// The `Run` schema: what `createAgentRun` and `getRun` answer in `data`.
fn run_schema() -> Value {
    json!({
        "type": "object",
        "description": format!(
            "An agent run (a sandbox choice: the spec shows no run fields). Its status follows \
             the configured lifecycle (by default queued, then running, then succeeded) and \
             stops changing at a terminal status: {}.",
            RUN_TERMINAL_STATUSES.join(", ")
        ),
        "required": ["id", "agent_id", "status", "created_at_ms", "updated_at_ms"],
        "additionalProperties": false,
        "properties": {
            "id": {"type": "string", "description": "The run id, e.g. run_1."},
            "agent_id": {"type": "string", "description": "The agent, decoded from the path."},
            "status": {"type": "string", "description": "The run's status, e.g. queued, running, succeeded, failed."},
            "created_at_ms": {"type": "integer", "minimum": 0, "description": "Unix milliseconds of the sandbox clock when the run was created."},
            "updated_at_ms": {"type": "integer", "minimum": 0, "description": "Unix milliseconds when the current status began."},
        },
    })
}

/// A run as the sandbox answers it.
fn run_example() -> Value {
    json!({
        "id": "run_1",
        "agent_id": "agent-1",
        "status": "queued",
        "created_at_ms": 1_700_000_000_000u64,
        "updated_at_ms": 1_700_000_000_000u64,
    })
}

/// Points the 200 answer of `operation_id` at `{"data": Run}`, with an
/// example of that shape.
fn use_run_schema(document: &mut Value, operation_id: &str) {
    let Some(paths) = document.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for item in paths.values_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for operation in item.values_mut() {
            if operation.get("operationId").and_then(Value::as_str) != Some(operation_id) {
                continue;
            }
            if let Some(content) = operation
                .pointer_mut("/responses/200/content/application~1json")
                .and_then(Value::as_object_mut)
            {
                content.insert(
                    "schema".into(),
                    json!({
                        "type": "object",
                        "required": ["data"],
                        "additionalProperties": false,
                        "properties": {"data": {"$ref": "#/components/schemas/Run"}},
                    }),
                );
                content.insert("example".into(), json!({"data": run_example()}));
            }
        }
    }
}

/// The document's bytes.
pub fn document(built: &Built) -> Vec<u8> {
    serde_json::to_vec(&value(built)).unwrap_or_default()
}

/// The document.
pub fn value(built: &Built) -> Value {
    let mut options = OpenApiOptions::default();
    options
        .json_param_schemas
        .insert("filter".into(), json!({"type": "object"}));
    if built.demo.tables {
        options
            .examples
            .insert("id".into(), json!(crate::demo::ORDERS));
        options.examples.insert("order_by".into(), json!("total"));
        options.examples.insert("after".into(), json!("100"));
    }
    if built.demo.connections {
        options
            .examples
            .insert("connection_id".into(), json!(crate::demo::CRM));
        options
            .examples
            .insert("entity_id".into(), json!(crate::demo::CONTACTS));
        options
            .examples
            .insert("filter".into(), json!({"city": "Paris"}));
    }
    options.examples.insert("agent_id".into(), json!("agent-1"));
    options.examples.insert("run_id".into(), json!("run_1"));
    let mut document = openapi::document(built.gate.config(), &options);
    if let Some(schemas) = document
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        schemas.insert("Run".into(), run_schema());
    }
    use_run_schema(&mut document, ids::CREATE_AGENT_RUN);
    use_run_schema(&mut document, acd_core::model::ids::GET_RUN);
    crate::webhooks::openapi::add_to(&mut document);
    document
}
