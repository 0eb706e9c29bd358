//! One exchange at byte level: the request's pieces as a host's transport
//! holds them (a URL, a header block) read into a [`GateRequest`], and the
//! answer ([`Exchange`]) with its JSON shape.

use super::TestServerError;
use crate::client::TransportFailure;
use crate::gate::GateRequest;
use crate::model;
use crate::UnixMillis;
use iri_string::types::UriReferenceStr;
use serde::Serialize;

/// What one exchange gave, and when it reaches the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exchange {
    /// A response.
    Response {
        /// The status.
        status: u16,
        /// Header names and values, in order.
        headers: Vec<(String, String)>,
        /// The body (JSON).
        body: Vec<u8>,
        /// When it arrives: the request's instant plus the latency.
        deliver_at: UnixMillis,
        /// Whether a fault replaced the server's answer.
        injected: bool,
    },
    /// No response (always injected).
    Failure {
        /// How the exchange failed.
        failure: TransportFailure,
        /// When the client notices: the latency for `connect` and
        /// `interrupted`, the server's `timeout_ms` for `timeout`.
        deliver_at: UnixMillis,
    },
}

#[derive(Serialize)]
#[serde(untagged)]
enum ExchangeJson<'a> {
    Response {
        status: u16,
        headers: Vec<[&'a str; 2]>,
        body: std::borrow::Cow<'a, str>,
        deliver_at: u64,
    },
    Failure {
        failure: TransportFailure,
        deliver_at: u64,
    },
}

impl Exchange {
    /// When the answer (or the failure) reaches the client.
    pub fn deliver_at(&self) -> UnixMillis {
        match self {
            Exchange::Response { deliver_at, .. } | Exchange::Failure { deliver_at, .. } => {
                *deliver_at
            }
        }
    }

    /// The status, when a response came.
    pub fn status(&self) -> Option<u16> {
        match self {
            Exchange::Response { status, .. } => Some(*status),
            Exchange::Failure { .. } => None,
        }
    }

    /// The JSON a host's transport reads:
    /// `{"status": 200, "headers": [["Content-Type", "application/json"], …],
    /// "body": "<the body as text>", "deliver_at": 1700000000020}` or
    /// `{"failure": "connect" | "timeout" | "interrupted", "deliver_at": …}`.
    pub fn to_json(&self) -> String {
        let json = match self {
            Exchange::Response {
                status,
                headers,
                body,
                deliver_at,
                ..
            } => ExchangeJson::Response {
                status: *status,
                headers: headers
                    .iter()
                    .map(|(name, value)| [name.as_str(), value.as_str()])
                    .collect(),
                body: String::from_utf8_lossy(body),
                deliver_at: deliver_at.as_millis(),
            },
            Exchange::Failure {
                failure,
                deliver_at,
            } => ExchangeJson::Failure {
                failure: *failure,
                deliver_at: deliver_at.as_millis(),
            },
        };
        // Strings, numbers and arrays of them always serialise.
        serde_json::to_string(&json).unwrap_or_default()
    }
}

/// The request target (path, then `?` and the raw query) of `url`: an
/// absolute URL (`http://host/api/v1/tables/t?limit=5`) or a target
/// starting with `/`. Percent-encoding is kept for the gate to decode.
pub(crate) fn target_of(url: &str) -> Result<String, TestServerError> {
    let refused = |problem: &str| TestServerError::Request {
        problem: format!("the URL {url:?} {problem}"),
    };
    let reference = UriReferenceStr::new(url).map_err(|_| {
        refused("is not a URL (RFC 3986); give it like http://127.0.0.1:8080/api/v1")
    })?;
    let path = reference.path_str();
    if !path.starts_with('/') {
        return Err(refused(
            "has no absolute path; give a full URL or a target starting with '/'",
        ));
    }
    Ok(match reference.query_str() {
        Some(query) => format!("{path}?{query}"),
        None => path.to_owned(),
    })
}

/// The headers of a request's header block (read by the one reader,
/// [`model::parse_header_block`]), values as bytes for the gate.
pub(crate) fn parse_header_block(block: &str) -> Result<Vec<(String, Vec<u8>)>, TestServerError> {
    let headers = model::parse_header_block(block).map_err(|problem| TestServerError::Request {
        problem: problem.to_string(),
    })?;
    Ok(headers
        .into_iter()
        .map(|(name, value)| (name, value.into_bytes()))
        .collect())
}

/// A gate request from a host's pieces.
pub(crate) fn gate_request(
    method: &str,
    url: &str,
    header_block: &str,
    client_ip: &str,
) -> Result<GateRequest, TestServerError> {
    if method.is_empty() || !method.bytes().all(|byte| byte.is_ascii_alphabetic()) {
        return Err(TestServerError::Request {
            problem: format!("the method {method:?} is not an HTTP method such as GET or POST"),
        });
    }
    Ok(GateRequest {
        method: method.to_owned(),
        target: target_of(url)?.into_bytes(),
        headers: parse_header_block(header_block)?,
        client_ip: client_ip.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_gives_its_path_and_raw_query() {
        assert_eq!(
            target_of("http://127.0.0.1:8080/api/v1/tables/a%20b?limit=5&x=%7B%7D").unwrap(),
            "/api/v1/tables/a%20b?limit=5&x=%7B%7D"
        );
        assert_eq!(target_of("/api/v1").unwrap(), "/api/v1");
        assert_eq!(
            target_of("not a url").unwrap_err().to_string(),
            "the test server cannot read the request: the URL \"not a url\" is not a URL (RFC 3986); give it like http://127.0.0.1:8080/api/v1"
        );
    }

    #[test]
    fn a_header_block_is_read_line_by_line() {
        assert_eq!(
            parse_header_block("X-API-Key: k\r\nAccept:application/json\n\n").unwrap(),
            vec![
                ("X-API-Key".to_owned(), b"k".to_vec()),
                ("Accept".to_owned(), b"application/json".to_vec()),
            ]
        );
        assert_eq!(
            parse_header_block("Accept application/json")
                .unwrap_err()
                .to_string(),
            "the test server cannot read the request: header line 1 has no ':'; write each header as `Name: value` on its own line"
        );
    }

    #[test]
    fn the_json_shapes() {
        let response = Exchange::Response {
            status: 200,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: b"{\"data\":[]}".to_vec(),
            deliver_at: UnixMillis::new(20),
            injected: false,
        };
        assert_eq!(
            response.to_json(),
            r#"{"status":200,"headers":[["Content-Type","application/json"]],"body":"{\"data\":[]}","deliver_at":20}"#
        );
        let failure = Exchange::Failure {
            failure: TransportFailure::Timeout,
            deliver_at: UnixMillis::new(5),
        };
        assert_eq!(failure.to_json(), r#"{"failure":"timeout","deliver_at":5}"#);
    }
}
