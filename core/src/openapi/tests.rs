//! Tests of the OpenAPI generator against the catalogue and the index type.

use super::*;
use crate::gate::GateConfig;
use crate::model::index::ApiIndex;
use serde_json::json;

fn doc() -> Value {
    document(&GateConfig::default(), &OpenApiOptions::default())
}

fn keys(value: &Value) -> Vec<String> {
    value
        .as_object()
        .map(|object| object.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
fn declares_version_servers_and_security_schemes() {
    let doc = doc();
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["version"], "v1");
    assert_eq!(doc["servers"], json!([{"url": "http://127.0.0.1:8080"}]));
    assert_eq!(doc["security"], json!([{"apiKey": []}, {"bearer": []}]));
    let schemes = &doc["components"]["securitySchemes"];
    assert_eq!(schemes["apiKey"]["type"], "apiKey");
    assert_eq!(schemes["apiKey"]["in"], "header");
    assert_eq!(schemes["apiKey"]["name"], "X-API-Key");
    assert_eq!(schemes["bearer"]["type"], "http");
    assert_eq!(schemes["bearer"]["scheme"], "bearer");
}

#[test]
fn serves_every_catalogue_operation_and_the_egress_twin() {
    let doc = doc();
    assert_eq!(
        keys(&doc["paths"]),
        [
            "/api/v1",
            "/api/v1/connections/{connection_id}/records",
            "/api/v1/tables/{id}",
            "/egress/v1/connections/{connection_id}/records",
        ]
    );
    let ids: Vec<&Value> = doc["paths"]
        .as_object()
        .unwrap()
        .values()
        .map(|item| &item["get"]["operationId"])
        .collect();
    assert_eq!(
        ids,
        [
            "getApiIndex",
            "listConnectionRecords",
            "listTableRecords",
            "listConnectionRecordsViaStableEgress"
        ]
    );
}

#[test]
fn security_per_operation() {
    let doc = doc();
    let paths = &doc["paths"];
    assert_eq!(paths["/api/v1"]["get"]["security"], json!([]));
    assert_eq!(
        paths["/api/v1/tables/{id}"]["get"]["security"],
        json!([{"apiKey": []}, {"bearer": []}])
    );
    for path in [
        "/api/v1/connections/{connection_id}/records",
        "/egress/v1/connections/{connection_id}/records",
    ] {
        assert_eq!(paths[path]["get"]["security"], json!([{"apiKey": []}]));
    }
}

#[test]
fn every_response_the_gate_can_give() {
    let doc = doc();
    let paths = &doc["paths"];
    let statuses = |path: &str| keys(&paths[path]["get"]["responses"]);
    assert_eq!(statuses("/api/v1"), ["200", "400", "405", "429"]);
    let all = ["200", "400", "401", "403", "404", "405", "429"];
    assert_eq!(statuses("/api/v1/tables/{id}"), all);
    assert_eq!(statuses("/api/v1/connections/{connection_id}/records"), all);
    assert_eq!(
        statuses("/egress/v1/connections/{connection_id}/records"),
        all
    );
}

#[test]
fn rate_limit_headers_on_every_response_and_429_extras() {
    let doc = doc();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (status, response) in item["get"]["responses"].as_object().unwrap() {
            let headers = &response["headers"];
            for name in ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"] {
                assert_eq!(
                    headers[name],
                    json!({"$ref": format!("#/components/headers/{name}")}),
                    "{path} {status} {name}"
                );
            }
            let extras = [
                "Retry-After",
                "x-ratelimit-limit",
                "x-ratelimit-remaining",
                "x-ratelimit-reset",
            ];
            for name in extras {
                assert_eq!(
                    headers.get(name).is_some(),
                    status == "429",
                    "{path} {status}"
                );
            }
            assert_eq!(headers.get("Allow").is_some(), status == "405");
            assert_eq!(
                headers.get("WWW-Authenticate").is_some(),
                status == "401" || status == "403"
            );
        }
    }
    let components = &doc["components"]["headers"];
    assert_eq!(components["x-ratelimit-reset"]["schema"]["type"], "string");
    assert_eq!(components["Retry-After"]["schema"]["type"], "integer");
    assert_eq!(components["RateLimit-Reset"]["required"], true);
}

#[test]
fn parameters_follow_the_catalogue_and_options() {
    let mut options = OpenApiOptions::default();
    options.examples.insert("id".into(), json!("orders"));
    options
        .examples
        .insert("filter".into(), json!({"city": "Paris"}));
    options
        .json_param_schemas
        .insert("filter".into(), json!({"type": "object"}));
    let doc = document(&GateConfig::default(), &options);
    let tables = &doc["paths"]["/api/v1/tables/{id}"]["get"]["parameters"];
    assert_eq!(
        tables[0],
        json!({
            "name": "id", "in": "path", "required": true, "example": "orders",
            "description": "An identifier (one path segment; percent-encode reserved characters).",
            "schema": {"type": "string", "minLength": 1}
        })
    );
    let names: Vec<&Value> = tables
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["name"])
        .collect();
    assert_eq!(
        names,
        ["id", "offset", "limit", "order_by", "direction", "after"]
    );
    assert_eq!(
        tables[2]["schema"],
        json!({"type": "integer", "minimum": 1, "maximum": 5000, "default": 100})
    );
    assert_eq!(
        tables[4]["schema"],
        json!({"type": "string", "enum": ["asc", "desc"], "default": "asc"})
    );
    let connections =
        &doc["paths"]["/api/v1/connections/{connection_id}/records"]["get"]["parameters"];
    assert_eq!(connections[1]["name"], "entity_id");
    assert_eq!(connections[1]["required"], true);
    assert_eq!(connections[3]["schema"]["maximum"], 500);
    // A JSON text in a string (issue 19): generators keep string parameters.
    assert_eq!(
        connections[4],
        json!({
            "name": "filter", "in": "query", "required": false,
            "description": "Filter understood by the connection, as JSON. A JSON text \
                (percent-encoded in the query), at most 8192 bytes, nested at most 32 deep.",
            "schema": {
                "type": "string", "minLength": 1,
                "contentMediaType": "application/json",
                "contentSchema": {"type": "object"}
            },
            "example": "{\"city\":\"Paris\"}"
        })
    );
    assert!(connections[4].get("content").is_none());
    assert_eq!(
        connections[5],
        json!({
            "name": "X-Stable-Egress", "in": "header", "required": false,
            "description": "`true` routes the request through the stable, allowlistable egress IP.",
            "schema": {"type": "string", "enum": ["true", "false"]}
        })
    );
}

#[test]
fn egress_elsewhere_gets_a_server_of_its_own() {
    let config = GateConfig {
        stable_egress_url: Some("https://egress.example.com/edge".into()),
        ..GateConfig::default()
    };
    let doc = document(&config, &OpenApiOptions::default());
    let item = &doc["paths"]["/v1/connections/{connection_id}/records"];
    assert_eq!(
        item["servers"],
        json!([{"url": "https://egress.example.com/edge"}])
    );
    assert_eq!(
        item["get"]["operationId"],
        "listConnectionRecordsViaStableEgress"
    );
}

#[test]
fn deprecation_is_documented() {
    let mut config = GateConfig::default();
    if let Some(operation) = config.catalogue.get_mut("listTableRecords") {
        operation.deprecation = Some(DeprecationNotice {
            deprecated_at: 1_700_000_000,
            sunset_at: Some(1_800_000_000),
        });
    }
    let doc = document(&config, &OpenApiOptions::default());
    let tables = &doc["paths"]["/api/v1/tables/{id}"]["get"];
    assert_eq!(tables["deprecated"], true);
    let headers = &tables["responses"]["200"]["headers"];
    assert!(headers.get("Deprecation").is_some() && headers.get("Sunset").is_some());
    assert!(doc["paths"]["/api/v1"]["get"].get("deprecated").is_none());
}

#[test]
fn limits_in_force_are_described() {
    let mut config = GateConfig::default();
    if let Some(operation) = config.catalogue.get_mut("listTableRecords") {
        operation.extra_limits[0].quota = crate::limit::Quota::per_seconds(7, 5);
    }
    let doc = document(&config, &OpenApiOptions::default());
    let description = doc["paths"]["/api/v1/tables/{id}"]["get"]["description"]
        .as_str()
        .unwrap();
    assert!(
        description.contains("Additional limit `user_table_reads`: 7 requests per 5 s per user.")
    );
}

/// Every member a fully populated index serialises is declared, and the
/// `required` list is exactly what a minimal index still serialises.
fn check_schema(schema: &Value, full: &Value, minimal: &Value, at: &str) {
    let Some(properties) = schema["properties"].as_object() else {
        return;
    };
    let full_keys = keys(full);
    for key in &full_keys {
        assert!(properties.contains_key(key), "{at}.{key} is not declared");
    }
    let mut required: Vec<String> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    required.sort();
    // `clients` is optional; the minimal index carries an empty one only so
    // that its own members are checked too.
    let mut expected = keys(minimal);
    expected.retain(|key| key != "clients");
    assert_eq!(required, expected, "required members of {at}");
    for key in full_keys {
        let (sub_full, sub_min) = (&full[&key], &minimal[&key]);
        let sub_schema = &properties[&key];
        if sub_schema["type"] == "array" {
            check_schema(&sub_schema["items"], &sub_full[0], &sub_min[0], &key);
        } else if key != "resources" {
            check_schema(sub_schema, sub_full, sub_min, &key);
        }
    }
}

#[test]
fn api_index_schema_matches_the_index_type() {
    let config = GateConfig::default();
    let mut full = config.build_index().unwrap();
    full.llms_txt_url = Some("https://example.com/llms.txt".into());
    full.webhooks_documentation_url = Some("https://example.com/hooks".into());
    full.rate_limits.documentation_url = Some("https://example.com/limits".into());
    full.versioning.documentation_url = Some("https://example.com/versions".into());
    full.clients = Some(crate::model::index::Clients {
        cli: Some("https://example.com/cli".into()),
        cli_documentation_url: Some("https://example.com/cli-docs".into()),
    });
    let method = &mut full.authentication.methods[1];
    method.metadata_url = Some("https://example.com/.well-known/oauth".into());
    method.headers = Some(vec!["X".into()]);
    method.credential_creation =
        Some(crate::model::index::CredentialCreation::AvailableAfterAccountAccess);
    full.validate().unwrap();
    let minimal = ApiIndex::from_json(
        br#"{"name":"n","version":"v1","base_url":"https://a.example","documentation_url":"https://a.example/d",
            "openapi_url":"https://a.example/o","developers_url":"https://a.example/dev",
            "authentication":{"methods":[{"type":"api_key","documentation_url":"https://a.example/d"}]},
            "onboarding":{"account_access":"invite_required","access_request_url":"https://a.example/r",
                          "trial":{"available":true,"duration_days":1,"invite_required":true},
                          "public_sandbox_available":false},
            "rate_limits":{"requests":1,"window_seconds":1,"response_headers":[]},
            "versioning":{"strategy":"url_path","current_version":"v1"},
            "resources":{},"clients":{}}"#,
    )
    .unwrap();
    let schemas = schemas::component_schemas();
    check_schema(
        &schemas["ApiIndex"],
        &serde_json::to_value(&full).unwrap(),
        &serde_json::to_value(&minimal).unwrap(),
        "ApiIndex",
    );
}

#[test]
fn generation_is_deterministic() {
    let config = GateConfig::default();
    let options = OpenApiOptions::default();
    assert_eq!(
        document_bytes(&config, &options),
        document_bytes(&config, &options)
    );
    let parsed: Value = serde_json::from_slice(&document_bytes(&config, &options)).unwrap();
    assert_eq!(parsed, document(&config, &options));
}

#[test]
fn json_parameters_are_strings_everywhere() {
    // Every parameter of every operation has a `schema` and no `content`,
    // so that generators keep it; JSON-carrying ones say so by media type.
    let doc = doc();
    let mut json_params = 0;
    for item in doc["paths"].as_object().unwrap().values() {
        for (method, operation) in item.as_object().unwrap() {
            if method == "servers" {
                continue;
            }
            for parameter in operation["parameters"].as_array().unwrap() {
                assert!(parameter.get("content").is_none(), "{parameter}");
                let schema = &parameter["schema"];
                assert!(schema.is_object(), "{parameter}");
                if schema.get("contentMediaType").is_some() {
                    assert_eq!(schema["type"], "string");
                    assert_eq!(schema["contentMediaType"], "application/json");
                    assert_eq!(schema["contentSchema"], json!({}));
                    json_params += 1;
                }
            }
        }
    }
    // `filter` on the connection read and on its stable-egress twin.
    assert_eq!(json_params, 2);
}

#[test]
fn license_contact_and_tag_descriptions() {
    let doc = doc();
    assert_eq!(
        doc["info"]["license"],
        json!({"name": "MIT OR Apache-2.0", "identifier": "MIT OR Apache-2.0"})
    );
    assert_eq!(
        doc["info"]["contact"]["url"],
        GateConfig::default().index.developers_url
    );
    let tags = doc["tags"].as_array().unwrap();
    let names: Vec<&Value> = tags.iter().map(|tag| &tag["name"]).collect();
    assert_eq!(names, ["Discovery", "Tables", "Connections"]);
    for tag in tags {
        assert!(
            tag["description"].as_str().is_some_and(|d| d.len() > 10),
            "{tag}"
        );
    }
}

#[test]
fn every_response_has_an_example() {
    let mut options = OpenApiOptions::default();
    options
        .response_examples
        .insert("listTableRecords".into(), json!({"data": [{"total": 120}]}));
    let doc = document(&GateConfig::default(), &options);
    let mut count = 0;
    for item in doc["paths"].as_object().unwrap().values() {
        for response in item["get"]["responses"].as_object().unwrap().values() {
            assert!(
                !response["content"]["application/json"]["example"].is_null(),
                "{response}"
            );
            count += 1;
        }
    }
    // 4 + 7 + 7 + 7 responses (see every_response_the_gate_can_give).
    assert_eq!(count, 25);
    let get = |path: &str, status: &str| {
        doc["paths"][path]["get"]["responses"][status]["content"]["application/json"]["example"]
            .clone()
    };
    assert_eq!(
        get("/api/v1/tables/{id}", "200"),
        json!({"data": [{"total": 120}]})
    );
    assert_eq!(
        get("/api/v1/connections/{connection_id}/records", "200"),
        json!([])
    );
    // The index example is the index this configuration serves.
    let index = GateConfig::default().build_index().unwrap();
    assert_eq!(get("/api/v1", "200"), serde_json::to_value(index).unwrap());
    assert_eq!(get("/api/v1/tables/{id}", "429")["status"], 429);
    assert_eq!(get("/api/v1/tables/{id}", "429")["limit"], "credential");
    assert_eq!(
        get("/api/v1/tables/{id}", "400")["errors"][0]["parameter"],
        "limit"
    );
}
