//! Responses: [`interpret`] turns status + body bytes into a typed result.
//!
//! * table pages unwrap `data`; connection records are the top-level array;
//!   the index is parsed and validated strictly ([`ApiIndex::from_json`]);
//! * payload records are handed over as raw JSON ([`RawValue`]): each
//!   record's bytes are copied once, out of the body, and never re-parsed;
//! * error bodies become [`ClientError::Api`] (status, detail, extra members);
//! * a redirect (3xx) is a [`ClientError::Redirect`] naming the status and
//!   the `Location` (its query and user information removed): no transport
//!   follows redirects, so credentials never reach another address;
//! * a body above the client's bound is a [`ClientError::BodyTooLarge`]
//!   ([`check_body_size`]);
//! * anything else that breaks the contract (a 200 without `data`, a
//!   non-JSON error body) is a [`ClientError::Protocol`], never a panic.

use super::error::ClientError;
use super::error_members::ErrorReply;
use super::http::HttpResponse;
use crate::model::header_names::first_value;
use crate::model::{ApiIndex, Envelope, Operation, ParamRole};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// A successful response, interpreted.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ApiResponse {
    /// A list of records (table page or connection records), as raw JSON.
    Records {
        /// The HTTP status.
        status: u16,
        /// The records, each a JSON object, bytes as received.
        records: Vec<Box<RawValue>>,
    },
    /// The API index, validated.
    Index {
        /// The HTTP status.
        status: u16,
        /// The document.
        index: Box<ApiIndex>,
    },
    /// A single `data` payload that is not a list (e.g. a run), as raw JSON.
    Object {
        /// The HTTP status.
        status: u16,
        /// The payload bytes as received.
        value: Box<RawValue>,
    },
}

impl PartialEq for ApiResponse {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (
                ApiResponse::Records { status, records },
                ApiResponse::Records {
                    status: other_status,
                    records: other_records,
                },
            ) => {
                status == other_status
                    && records.len() == other_records.len()
                    && records
                        .iter()
                        .zip(other_records)
                        .all(|(a, b)| a.get() == b.get())
            }
            (
                ApiResponse::Index { status, index },
                ApiResponse::Index {
                    status: other_status,
                    index: other_index,
                },
            ) => status == other_status && index == other_index,
            (
                ApiResponse::Object { status, value },
                ApiResponse::Object {
                    status: other_status,
                    value: other_value,
                },
            ) => status == other_status && value.get() == other_value.get(),
            _ => false,
        }
    }
}

impl ApiResponse {
    /// The HTTP status.
    pub fn status(&self) -> u16 {
        match self {
            ApiResponse::Records { status, .. }
            | ApiResponse::Index { status, .. }
            | ApiResponse::Object { status, .. } => *status,
        }
    }

    /// The records, when this is a list.
    pub fn records(&self) -> Option<&[Box<RawValue>]> {
        match self {
            ApiResponse::Records { records, .. } => Some(records),
            _ => None,
        }
    }

    /// Takes the records out, when this is a list.
    pub fn into_records(self) -> Option<Vec<Box<RawValue>>> {
        match self {
            ApiResponse::Records { records, .. } => Some(records),
            _ => None,
        }
    }
}

/// Whether the operation returns a list: it has a page-size parameter, or
/// its payload is the top-level array.
pub fn returns_list(operation: &Operation) -> bool {
    operation.envelope == Envelope::TopLevelArray
        || operation
            .params
            .iter()
            .any(|param| param.role == ParamRole::Limit)
}

#[derive(Deserialize)]
struct ListEnvelope {
    data: Vec<Box<RawValue>>,
}

#[derive(Deserialize)]
struct ValueEnvelope {
    data: Box<RawValue>,
}

/// The longest `Location` an error sentence repeats, in characters.
const MAX_LOCATION_CHARS: usize = 200;

/// Refuses a body larger than `max_body_bytes`: the bytes received (a
/// transport hands over at most one byte more than the bound) or the
/// `Content-Length` the server announced (a transport reads none of such a
/// body). The check every caller of [`interpret`] makes first; the driver
/// makes it with [`super::ClientConfig::max_body_bytes`].
pub fn check_body_size(response: &HttpResponse, max_body_bytes: u64) -> Result<(), ClientError> {
    let received = u64::try_from(response.body.len()).unwrap_or(u64::MAX);
    let announced = first_value(&response.headers, "content-length")
        .and_then(|value| value.trim().parse::<u64>().ok())
        .unwrap_or(0);
    if received > max_body_bytes || announced > max_body_bytes {
        return Err(ClientError::BodyTooLarge {
            status: response.status,
            limit: max_body_bytes,
        });
    }
    Ok(())
}

/// `location` safe to repeat in a sentence: without query, fragment or
/// user information (any of which may hold a secret), control characters
/// removed, at most [`MAX_LOCATION_CHARS`] characters.
fn safe_location(location: &str) -> String {
    let end = location.find(['?', '#']).unwrap_or(location.len());
    let kept = location.get(..end).unwrap_or_default();
    let kept = match kept.split_once("://") {
        Some((scheme, rest)) => {
            let authority_end = rest.find('/').unwrap_or(rest.len());
            let (authority, path) = rest.split_at(authority_end);
            let host = authority
                .rsplit_once('@')
                .map_or(authority, |(_, host)| host);
            format!("{scheme}://{host}{path}")
        }
        None => kept.to_owned(),
    };
    kept.chars()
        .filter(|c| !c.is_control())
        .take(MAX_LOCATION_CHARS)
        .collect()
}

/// Interprets `response` as an answer to `operation`.
pub fn interpret(
    operation: &Operation,
    response: &HttpResponse,
) -> Result<ApiResponse, ClientError> {
    let status = response.status;
    let protocol = |problem: String| ClientError::Protocol { status, problem };
    match status {
        200..=299 => {}
        300..=399 => {
            return Err(ClientError::Redirect {
                status,
                location: first_value(&response.headers, "location").map(safe_location),
            })
        }
        400..=599 => {
            return match ErrorReply::from_slice(&response.body) {
                Ok(body) => Err(ClientError::Api {
                    status,
                    detail: body.detail,
                    extra: body.extra,
                    retry_at: None,
                }),
                Err(error) => Err(protocol(format!(
                    "an error response must carry an Error object with a string `detail`, \
                     but its body is not one ({error}; {})",
                    describe_body(&response.body)
                ))),
            };
        }
        0 => {
            return Err(protocol(
                "status 0 is how a browser reports a redirect it was told not to follow \
                 (the client follows none, so credentials never reach another address); \
                 set base_url to the address the API is served at"
                    .into(),
            ))
        }
        _ => {
            return Err(protocol(format!(
                "status {status} is not part of the API; expected 2xx, 4xx or 5xx"
            )))
        }
    }
    let body = response.body.as_slice();
    let id = &operation.id;
    match operation.envelope {
        Envelope::Bare => ApiIndex::from_json(body)
            .map(|index| ApiResponse::Index {
                status,
                index: Box::new(index),
            })
            .map_err(|error| protocol(format!("the {id} document is invalid: {error}"))),
        Envelope::TopLevelArray => {
            let records: Vec<Box<RawValue>> = serde_json::from_slice(body).map_err(|error| {
                protocol(format!(
                    "{id} must answer a top-level JSON array of objects ({error}; {})",
                    describe_body(body)
                ))
            })?;
            check_objects(id, &records).map_err(protocol)?;
            Ok(ApiResponse::Records { status, records })
        }
        Envelope::Data if returns_list(operation) => {
            let envelope: ListEnvelope = serde_json::from_slice(body).map_err(|error| {
                protocol(format!(
                    "{id} must answer an object whose `data` member is an array of objects \
                     ({error}; {})",
                    describe_body(body)
                ))
            })?;
            check_objects(id, &envelope.data).map_err(protocol)?;
            Ok(ApiResponse::Records {
                status,
                records: envelope.data,
            })
        }
        Envelope::Data => {
            let envelope: ValueEnvelope = serde_json::from_slice(body).map_err(|error| {
                protocol(format!(
                    "{id} must answer an object with a `data` member ({error}; {})",
                    describe_body(body)
                ))
            })?;
            Ok(ApiResponse::Object {
                status,
                value: envelope.data,
            })
        }
    }
}

fn check_objects(id: &str, records: &[Box<RawValue>]) -> Result<(), String> {
    match records
        .iter()
        .position(|record| !record.get().starts_with('{'))
    {
        Some(position) => Err(format!(
            "{id} records must be JSON objects, but element {position} is not"
        )),
        None => Ok(()),
    }
}

/// A short, safe description of a body for an error sentence.
fn describe_body(body: &[u8]) -> String {
    if body.is_empty() {
        return "the body is empty".into();
    }
    let text = String::from_utf8_lossy(body.get(..40).unwrap_or(body));
    let printable: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    format!(
        "the body is {} bytes starting {:?}",
        body.len(),
        printable.trim_end()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Catalogue;

    fn op(id: &str) -> Operation {
        Catalogue::standard().get(id).cloned().unwrap()
    }

    #[test]
    fn unwraps_data_and_keeps_record_bytes() {
        let response = HttpResponse::new(200, r#"{"data":[{"id":1, "x":[1,2]},{"id":2}]}"#);
        let result = interpret(&op("listTableRecords"), &response).unwrap();
        let records = result.records().unwrap();
        assert_eq!(records[0].get(), r#"{"id":1, "x":[1,2]}"#);
        assert_eq!(records.len(), 2);
    }

    #[test]
    fn contract_breaks_are_protocol_errors() {
        for (operation, status, body) in [
            ("listTableRecords", 200, "{}"),
            ("listTableRecords", 200, r#"{"data":{}}"#),
            ("listTableRecords", 200, r#"{"data":[1]}"#),
            ("listConnectionRecords", 200, r#"{"data":[]}"#),
            ("getApiIndex", 200, r#"{"name":"x"}"#),
            ("listTableRecords", 500, "<html>"),
        ] {
            let result = interpret(&op(operation), &HttpResponse::new(status, body));
            assert!(
                matches!(result, Err(ClientError::Protocol { status: s, .. }) if s == status),
                "{operation} {status} {body}: {result:?}"
            );
        }
    }

    #[test]
    fn a_redirect_names_status_and_location_without_secrets() {
        let response = HttpResponse::new(302, "").with_header(
            "Location",
            "http://user:pw@127.0.0.1:9/api/v1/x?key=acd_live_s#f",
        );
        let error = interpret(&op("listTableRecords"), &response).unwrap_err();
        assert_eq!(
            error,
            ClientError::Redirect {
                status: 302,
                location: Some("http://127.0.0.1:9/api/v1/x".into()),
            }
        );
        let sentence = error.to_string();
        assert!(sentence
            .starts_with("the API answered 302 (a redirect to http://127.0.0.1:9/api/v1/x)"));
        assert!(!sentence.contains("acd_live") && !sentence.contains("pw"));
        let bare = interpret(&op("getApiIndex"), &HttpResponse::new(307, "")).unwrap_err();
        assert_eq!(
            bare,
            ClientError::Redirect {
                status: 307,
                location: None
            }
        );
        assert!(bare
            .to_string()
            .contains("307 (a redirect without a Location)"));
    }

    #[test]
    fn bodies_above_the_bound_are_refused() {
        let ten = HttpResponse::new(200, "0123456789");
        assert_eq!(check_body_size(&ten, 10), Ok(()));
        assert_eq!(
            check_body_size(&ten, 9),
            Err(ClientError::BodyTooLarge {
                status: 200,
                limit: 9
            })
        );
        let announced = HttpResponse::new(500, "").with_header("Content-Length", "1000");
        assert_eq!(
            check_body_size(&announced, 999),
            Err(ClientError::BodyTooLarge {
                status: 500,
                limit: 999
            })
        );
        assert_eq!(check_body_size(&announced, 1000), Ok(()));
    }

    #[test]
    fn error_bodies_keep_extra_members() {
        let body =
            r#"{"detail":"bad","status":400,"errors":[{"parameter":"limit","problem":"x"}]}"#;
        let result = interpret(&op("listTableRecords"), &HttpResponse::new(400, body));
        let Err(ClientError::Api {
            status,
            detail,
            extra,
            ..
        }) = result
        else {
            panic!("expected an API error")
        };
        assert_eq!((status, detail.as_str()), (400, "bad"));
        assert_eq!(extra.to_map()["errors"][0]["parameter"], "limit");
    }
}
