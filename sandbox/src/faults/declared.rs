//! The statuses each operation declares, read from the sandbox's own
//! OpenAPI document (`/openapi.json`), with the example body of each: what
//! `Prefer: code=N` may ask for beyond the error statuses.

use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Literal(String),
    Parameter,
}

/// One operation of the document.
#[derive(Debug, Clone, PartialEq)]
pub struct Operation {
    /// The operation id, e.g. `listTableRecords`.
    pub id: String,
    /// Its method, upper case.
    pub method: String,
    /// Its path template, e.g. `/api/v1/tables/{id}`.
    pub template: String,
    segments: Vec<Segment>,
    /// Each declared status and its JSON example body (`null` without one).
    pub responses: BTreeMap<u16, Value>,
}

impl Operation {
    fn matches(&self, method: &str, path: &str) -> bool {
        if !self.method.eq_ignore_ascii_case(method) {
            return false;
        }
        let mut given = path.split('/');
        let mut wanted = self.segments.iter();
        loop {
            match (given.next(), wanted.next()) {
                (None, None) => return true,
                (Some(segment), Some(Segment::Literal(literal))) if segment == literal => {}
                (Some(segment), Some(Segment::Parameter)) if !segment.is_empty() => {}
                _ => return false,
            }
        }
    }

    /// The declared statuses, in order, e.g. `200, 400, 401`.
    pub fn statuses(&self) -> String {
        self.responses
            .keys()
            .map(u16::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Every operation of the document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Declared {
    operations: Vec<Operation>,
}

impl Declared {
    /// The operations of an OpenAPI `document` (anything it does not
    /// understand is left out).
    pub fn from_document(document: &Value) -> Self {
        let mut operations = Vec::new();
        let Some(paths) = document.get("paths").and_then(Value::as_object) else {
            return Self::default();
        };
        for (template, item) in paths {
            let Some(item) = item.as_object() else {
                continue;
            };
            let segments: Vec<Segment> = template
                .split('/')
                .map(|segment| {
                    if segment.starts_with('{') && segment.ends_with('}') {
                        Segment::Parameter
                    } else {
                        Segment::Literal(segment.to_owned())
                    }
                })
                .collect();
            for (method, operation) in item {
                let Some(responses) = operation.get("responses").and_then(Value::as_object) else {
                    continue;
                };
                let responses = responses
                    .iter()
                    .filter_map(|(status, response)| {
                        let example = response
                            .pointer("/content/application~1json/example")
                            .cloned()
                            .unwrap_or(Value::Null);
                        Some((status.parse::<u16>().ok()?, example))
                    })
                    .collect();
                operations.push(Operation {
                    id: operation
                        .get("operationId")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    method: method.to_ascii_uppercase(),
                    template: template.clone(),
                    segments: segments.clone(),
                    responses,
                });
            }
        }
        Self { operations }
    }

    /// The operation a request to `method path` is for, if any.
    pub fn find(&self, method: &str, path: &str) -> Option<&Operation> {
        self.operations
            .iter()
            .find(|operation| operation.matches(method, path))
    }
}
