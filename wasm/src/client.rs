//! The client role's values for JavaScript: request specs, outcomes and
//! responses read from JavaScript, and `ClientRequest`, the immutable wire
//! request the driver hands out. Every rule is acd-core's.

use crate::error::Failure;
use crate::js::{self, get};
use acd_core::client::{
    AttemptState, ClientRequest, EgressMode, HttpResponse, Outcome, RequestSpec, TransportFailure,
};
use acd_core::model::ParamRole;
use js_sys::Array;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(raw_module = "../js/shapes.js")]
extern "C" {
    /// `specText(spec)` from `js/shapes.js`: a spec in its common shape as
    /// one tagged, NUL-separated string, or `undefined` for any other shape.
    #[wasm_bindgen(js_name = specText)]
    fn spec_text(spec: &JsValue) -> Option<String>;
}

/// The parameter role named `name` in `spec.params`.
fn role_from_name(name: &str) -> Result<ParamRole, Failure> {
    Ok(match name {
        "offset" => ParamRole::Offset,
        "limit" => ParamRole::Limit,
        "orderBy" => ParamRole::OrderBy,
        "direction" => ParamRole::Direction,
        "after" => ParamRole::After,
        "entityId" => ParamRole::EntityId,
        "filter" => ParamRole::Filter,
        _ => {
            return Err(Failure::argument(format!(
                "spec.params has {name:?}; the parameter roles are offset, limit, orderBy, \
                 direction, after, entityId and filter (use spec.query for wire names)"
            )))
        }
    })
}

/// The egress mode named by `spec.egress`.
fn egress_from_name(name: Option<&str>) -> Result<EgressMode, Failure> {
    match name {
        None | Some("default") => Ok(EgressMode::Default),
        Some("header") => Ok(EgressMode::Header),
        Some("url") => Ok(EgressMode::Url),
        Some(_) => Err(Failure::argument(
            "spec.egress must be \"default\", \"header\" or \"url\"",
        )),
    }
}

/// Reads a `RequestSpecInit`: in its common shape as the one string of
/// `specText`, else member by member.
pub fn spec_from_js(value: &JsValue) -> Result<RequestSpec, Failure> {
    match js::separable(spec_text(value)) {
        Some(text) => spec_from_text(&text),
        None => spec_from_members(value),
    }
}

/// A spec from the text of `specText`: the operation, then fields led by
/// a tag (`c`, `e`, `k`; `p`, `q`, `r` with the value as the next field).
pub fn spec_from_text(text: &str) -> Result<RequestSpec, Failure> {
    let mut fields = js::nul_fields(text);
    let mut spec = RequestSpec::new(fields.next().unwrap_or_default());
    let mut egress = None;
    while let Some(field) = fields.next() {
        let mut chars = field.chars();
        let tag = chars.next();
        let rest = chars.as_str();
        match tag {
            Some('c') => spec.credential = Some(rest.to_owned()),
            Some('e') => egress = Some(rest),
            Some('k') => spec.idempotency_key = Some(rest.to_owned()),
            _ => {
                let value = fields.next().unwrap_or_default().to_owned();
                match tag {
                    Some('p') => spec.path.push((rest.to_owned(), value)),
                    Some('q') => spec.query.push((rest.to_owned(), value)),
                    _ => spec.roles.push((role_from_name(rest)?, value)),
                }
            }
        }
    }
    spec.egress = egress_from_name(egress)?;
    Ok(spec)
}

/// Reads a `RequestSpecInit` member by member.
fn spec_from_members(value: &JsValue) -> Result<RequestSpec, Failure> {
    if !value.is_object() {
        return Err(Failure::argument(format!(
            "spec must be an object such as {{operation: \"listTableRecords\"}}, got {}",
            js::describe(value)
        )));
    }
    let mut roles = Vec::new();
    for (name, value) in js::entries_from_js(&get(value, "params"), "spec.params")? {
        let role = role_from_name(&name)?;
        roles.push((
            role,
            js::text_from_js(&value, &format!("spec.params.{name}"))?,
        ));
    }
    let egress =
        egress_from_name(js::optional_string(&get(value, "egress"), "spec.egress")?.as_deref())?;
    let body = get(value, "body");
    Ok(RequestSpec {
        operation: js::string_from_js(&get(value, "operation"), "spec.operation")?,
        path: js::text_pairs_from_js(&get(value, "path"), "spec.path")?,
        query: js::text_pairs_from_js(&get(value, "query"), "spec.query")?,
        roles,
        credential: js::optional_string(&get(value, "credential"), "spec.credential")?,
        egress,
        body: if js::is_absent(&body) {
            None
        } else {
            Some(js::bytes_from_js(&body, "spec.body")?)
        },
        idempotency_key: js::optional_string(&get(value, "idempotencyKey"), "spec.idempotencyKey")?,
    })
}

/// Reads an `Outcome`: `{status, headers, body}` (a response, `type`
/// "response" or absent) or `{type: "transport", failure}`.
pub fn outcome_from_js(value: &JsValue) -> Result<Outcome, Failure> {
    if !value.is_object() {
        return Err(Failure::argument(format!(
            "outcome must be an object {{status, headers, body}} or {{type: \"transport\", failure}}, got {}",
            js::describe(value)
        )));
    }
    match js::optional_string(&get(value, "type"), "outcome.type")?.as_deref() {
        None | Some("response") => Ok(Outcome::Response(response_from_js(value, "outcome")?)),
        Some("transport") => {
            let failure =
                match js::string_from_js(&get(value, "failure"), "outcome.failure")?.as_str() {
                    "connect" => TransportFailure::Connect,
                    "timeout" => TransportFailure::Timeout,
                    "interrupted" => TransportFailure::Interrupted,
                    _ => {
                        return Err(Failure::argument(
                            "outcome.failure must be \"connect\", \"timeout\" or \"interrupted\"",
                        ))
                    }
                };
            Ok(Outcome::Transport(failure))
        }
        Some(_) => Err(Failure::argument(
            "outcome.type must be \"response\" or \"transport\"",
        )),
    }
}

/// Reads an HTTP response `{status, headers, body}`.
pub fn response_from_js(value: &JsValue, what: &str) -> Result<HttpResponse, Failure> {
    let status = status_from_js(get(value, "status").as_f64(), what)?;
    let body = get(value, "body");
    let headers = get(value, "headers");
    Ok(HttpResponse {
        status,
        headers: if js::is_absent(&headers) {
            Vec::new()
        } else {
            js::text_headers_from_js(&headers, &format!("{what}.headers"))?
        },
        body: if js::is_absent(&body) {
            Vec::new()
        } else {
            js::bytes_from_js(&body, &format!("{what}.body"))?
        },
    })
}

/// `{what}.status`: an HTTP status code, a whole number in `0..=999`.
pub fn status_from_js(status: Option<f64>, what: &str) -> Result<u16, Failure> {
    status
        .filter(|status| status.fract() == 0.0 && (0.0..=999.0).contains(status))
        // In range and whole, so the cast is exact.
        .map(|status| {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let code = status as u16;
            code
        })
        .ok_or_else(|| {
            Failure::argument(format!(
                "{what}.status must be an HTTP status code (a number)"
            ))
        })
}

/// A request ready to send (URL, headers, body) plus what the client needs
/// to plan around it. Send it with any transport, e.g.
/// `fetch(request.url, {method: request.method, headers: request.headers, body: request.body})`.
#[wasm_bindgen(js_name = ClientRequest)]
pub struct JsClientRequest {
    pub(crate) inner: ClientRequest,
    /// Attempt state for `RetryPlanner.onOutcome`.
    pub(crate) attempt: AttemptState,
}

#[wasm_bindgen(js_class = ClientRequest)]
impl JsClientRequest {
    /// The method, e.g. `GET`.
    #[wasm_bindgen(getter)]
    pub fn method(&self) -> String {
        self.inner.method.clone()
    }

    /// The absolute URL.
    #[wasm_bindgen(getter)]
    pub fn url(&self) -> String {
        self.inner.url.clone()
    }

    /// The path and query (what goes on an HTTP/1.1 request line).
    #[wasm_bindgen(getter)]
    pub fn target(&self) -> String {
        self.inner.target().to_owned()
    }

    /// The headers to send, as `[name, value]` pairs in order (the credential
    /// header included: this is the request to put on the wire).
    #[wasm_bindgen(getter, unchecked_return_type = "Array<[string, string]>")]
    pub fn headers(&self) -> Array {
        js::pairs_to_js(
            self.inner
                .headers
                .iter()
                .map(|(name, value)| (name.as_str(), value.as_str())),
        )
    }

    /// The first value of header `name` (case-insensitive), or `undefined`.
    pub fn header(&self, name: &str) -> Option<String> {
        self.inner.header(name).map(str::to_owned)
    }

    /// The body, if any.
    #[wasm_bindgen(getter)]
    pub fn body(&self) -> Option<Vec<u8>> {
        self.inner.body.clone()
    }

    /// The operation id, e.g. `listTableRecords`.
    #[wasm_bindgen(getter, js_name = operationId)]
    pub fn operation_id(&self) -> String {
        self.inner.operation_id.clone()
    }

    /// The idempotency key, if it has one.
    #[wasm_bindgen(getter, js_name = idempotencyKey)]
    pub fn idempotency_key(&self) -> Option<String> {
        self.inner.idempotency_key.clone()
    }

    /// Advice about the request (e.g. `direction` without `order_by`).
    #[wasm_bindgen(getter)]
    pub fn warnings(&self) -> Vec<String> {
        self.inner.warnings.clone()
    }

    /// Whether repeating it cannot repeat an effect.
    #[wasm_bindgen(getter, js_name = isIdempotent)]
    pub fn is_idempotent(&self) -> bool {
        self.inner.is_idempotent()
    }

    /// Attempts sent so far (0 before the first).
    #[wasm_bindgen(getter)]
    pub fn attempts(&self) -> u32 {
        self.attempt.attempts
    }

    /// Restores the attempt count (e.g. from saved state).
    #[wasm_bindgen(setter)]
    pub fn set_attempts(&mut self, attempts: u32) {
        self.attempt.attempts = attempts;
    }

    /// When the first attempt was sent (Unix ms), or `undefined`.
    #[wasm_bindgen(getter, js_name = firstSentAt)]
    pub fn first_sent_at(&self) -> Option<f64> {
        #[allow(clippy::cast_precision_loss)]
        self.attempt.first_sent_at.map(|at| at.as_millis() as f64)
    }

    /// Restores when the first attempt was sent (Unix ms).
    #[wasm_bindgen(setter, js_name = firstSentAt)]
    pub fn set_first_sent_at(&mut self, at: Option<f64>) -> Result<(), JsValue> {
        self.attempt.first_sent_at = match at {
            Some(at) => Some(js::millis_from_js(at, "firstSentAt")?.into()),
            None => None,
        };
        Ok(())
    }

    /// The core's JSON form with the credential header values (`X-API-Key`,
    /// `Authorization`) shown as `<redacted>`, as the core's `Debug` shows
    /// them: what `JSON.stringify` and loggers see.
    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> JsValue {
        js::serde_to_js(&self.inner)
    }

    /// The core's JSON form exactly, credential included (the request as it
    /// goes on the wire, as in the conformance vectors).
    #[wasm_bindgen(js_name = toWireJSON)]
    pub fn to_wire_json(&self) -> JsValue {
        js::parse_json_js(&self.inner.to_wire_json())
    }
}

/// A client error as the JavaScript error to throw.
pub fn client_error(error: &acd_core::client::ClientError) -> JsValue {
    Failure::from(error).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_text_gives_every_field_in_order() {
        let spec = spec_from_text(
            "listTableRecords\0ccli\0eurl\0kkey-1\0pid\0orders\0qx\0\0rlimit\0 2\0roffset\x00100",
        )
        .unwrap();
        assert_eq!(spec.operation, "listTableRecords");
        assert_eq!(spec.credential.as_deref(), Some("cli"));
        assert_eq!(spec.egress, EgressMode::Url);
        assert_eq!(spec.idempotency_key.as_deref(), Some("key-1"));
        assert_eq!(spec.path, vec![("id".to_owned(), "orders".to_owned())]);
        assert_eq!(spec.query, vec![("x".to_owned(), String::new())]);
        assert_eq!(
            spec.roles,
            vec![
                (ParamRole::Limit, " 2".to_owned()),
                (ParamRole::Offset, "100".to_owned())
            ]
        );
        assert_eq!(spec.body, None);
    }

    #[test]
    fn spec_text_refuses_unknown_roles_and_egress_with_the_member_sentences() {
        let role = spec_from_text("listTableRecords\0rsize\x002").unwrap_err();
        assert_eq!(
            role.message,
            "spec.params has \"size\"; the parameter roles are offset, limit, orderBy, \
             direction, after, entityId and filter (use spec.query for wire names)"
        );
        let egress = spec_from_text("getApiIndex\0eproxy").unwrap_err();
        assert_eq!(
            egress.message,
            "spec.egress must be \"default\", \"header\" or \"url\""
        );
        assert_eq!(
            spec_from_text("getApiIndex").unwrap().egress,
            EgressMode::Default
        );
    }
}
