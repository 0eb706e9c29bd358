//! Step 7–8: an admitted request waiting for the caller's resource answer,
//! and the response built from that answer.

use super::bodies::error_response;
use super::headers::Headers;
use super::response::GateResponse;
use crate::model::header_names::WWW_AUTHENTICATE;
use crate::model::{Envelope, ErrorBody, ParamProblem, Params, Principal};

/// The caller's answer about the resource of an admitted request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceAnswer {
    /// The payload, as raw JSON bytes: the records array for reads. It is
    /// wrapped (or passed through) without being parsed again.
    Found(Vec<u8>),
    /// The resource does not exist or is not visible to the principal (404).
    NotFound,
    /// The principal may not read it (403).
    Forbidden,
    /// Parameters that are well-formed but meaningless for this resource
    /// (e.g. a filter the connection cannot apply) (400).
    Invalid(Vec<ParamProblem>),
}

/// A request that passed every rule, waiting for the caller's resource answer.
///
/// Owns everything it needs (no lifetimes), so it can cross threads, `await`
/// points and language bindings.
#[derive(Debug, Clone)]
pub struct Admitted {
    pub(crate) operation_id: String,
    pub(crate) envelope: Envelope,
    /// The resource named in 404/403 sentences, e.g. `table`.
    pub(crate) noun: String,
    pub(crate) path_params: Vec<(String, String)>,
    pub(crate) params: Params,
    pub(crate) principal: Principal,
    pub(crate) stable_egress: bool,
    pub(crate) headers: Vec<(String, String)>,
}

impl Admitted {
    /// The operation's id, e.g. `listTableRecords`.
    pub fn operation_id(&self) -> &str {
        &self.operation_id
    }

    /// The decoded path parameters, in template order.
    pub fn path_params(&self) -> &[(String, String)] {
        &self.path_params
    }

    /// The decoded value of path parameter `name`.
    pub fn path_param(&self, name: &str) -> Option<&str> {
        self.path_params
            .iter()
            .find(|(candidate, _)| candidate == name)
            .map(|(_, value)| value.as_str())
    }

    /// The validated query parameters, defaults applied.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Who is asking.
    pub fn principal(&self) -> &Principal {
        &self.principal
    }

    /// Whether the caller asked for the stable-egress path (header or URL).
    pub fn stable_egress(&self) -> bool {
        self.stable_egress
    }

    fn first_path_param(&self) -> &str {
        self.path_params
            .first()
            .map_or("", |(_, value)| value.as_str())
    }

    /// Builds the response from the caller's answer.
    pub fn respond(self, answer: ResourceAnswer) -> GateResponse {
        let id = self.first_path_param().to_owned();
        let noun = &self.noun;
        let mut headers = Headers(self.headers);
        match answer {
            ResourceAnswer::Found(payload) => {
                let body = match self.envelope {
                    Envelope::Data => {
                        let mut body = Vec::with_capacity(payload.len().saturating_add(9));
                        body.extend_from_slice(b"{\"data\":");
                        body.extend_from_slice(&payload);
                        body.push(b'}');
                        body
                    }
                    Envelope::Bare | Envelope::TopLevelArray => payload,
                };
                GateResponse {
                    status: 200,
                    headers: headers.0,
                    body,
                }
            }
            ResourceAnswer::NotFound => error_response(
                headers,
                ErrorBody::new(
                    404,
                    format!("No {noun} {id:?} exists that this credential can see."),
                ),
            ),
            ResourceAnswer::Forbidden => error_response(
                headers,
                ErrorBody::new(
                    403,
                    format!("This credential may not read the {noun} {id:?}."),
                ),
            ),
            ResourceAnswer::Invalid(problems) => {
                headers.0.retain(|(name, _)| name != WWW_AUTHENTICATE);
                error_response(headers, ErrorBody::invalid_params(&problems))
            }
        }
    }

    /// A 404 whose `detail` is the caller's sentence: for something missing
    /// below the resource the path names (e.g. an unknown entity of a visible
    /// connection), where [`ResourceAnswer::NotFound`]'s sentence about the
    /// path's resource would mislead.
    pub fn respond_not_found(self, detail: impl Into<String>) -> GateResponse {
        error_response(Headers(self.headers), ErrorBody::new(404, detail))
    }
}
