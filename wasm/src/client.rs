//! The client role for JavaScript: `Client` and `ClientRequest`.
//!
//! `client.build(spec)` validates and builds a request (the gate's own
//! validators, before any I/O) and `client.interpret` reads a response.
//! Every rule is acd-core's.

use crate::error::{ErrorClass, Failure};
use crate::js::{self, get, object};
use crate::response::JsApiResponse;
use acd_core::client::{
    build_request, AttemptState, Client, ClientConfig, ClientRequest, EgressMode, Entropy,
    HttpResponse, KeyStream, Outcome, RequestSpec, TransportFailure,
};
use acd_core::model::ParamRole;
use js_sys::Array;
use wasm_bindgen::prelude::*;

/// Reads a `RequestSpecInit`.
pub fn spec_from_js(value: &JsValue) -> Result<RequestSpec, Failure> {
    if !value.is_object() {
        return Err(Failure::argument(format!(
            "spec must be an object such as {{operation: \"listTableRecords\"}}, got {}",
            js::describe(value)
        )));
    }
    let mut roles = Vec::new();
    for (name, value) in js::entries_from_js(&get(value, "params"), "spec.params")? {
        let role = match name.as_str() {
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
        };
        roles.push((
            role,
            js::text_from_js(&value, &format!("spec.params.{name}"))?,
        ));
    }
    let egress = match js::optional_string(&get(value, "egress"), "spec.egress")?.as_deref() {
        None | Some("default") => EgressMode::Default,
        Some("header") => EgressMode::Header,
        Some("url") => EgressMode::Url,
        Some(_) => {
            return Err(Failure::argument(
                "spec.egress must be \"default\", \"header\" or \"url\"",
            ))
        }
    };
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

/// Reads an `OutcomeInit`: `{status, headers, body}` or `{transport}`.
pub fn outcome_from_js(value: &JsValue) -> Result<Outcome, Failure> {
    if !value.is_object() {
        return Err(Failure::argument(format!(
            "outcome must be an object {{status, headers, body}} or {{transport}}, got {}",
            js::describe(value)
        )));
    }
    let transport = get(value, "transport");
    if !js::is_absent(&transport) {
        let failure = match js::string_from_js(&transport, "outcome.transport")?.as_str() {
            "connect" => TransportFailure::Connect,
            "timeout" => TransportFailure::Timeout,
            "interrupted" => TransportFailure::Interrupted,
            _ => {
                return Err(Failure::argument(
                    "outcome.transport must be \"connect\", \"timeout\" or \"interrupted\"",
                ))
            }
        };
        return Ok(Outcome::Transport(failure));
    }
    Ok(Outcome::Response(response_from_js(value, "outcome")?))
}

/// Reads an HTTP response `{status, headers, body}`.
pub fn response_from_js(value: &JsValue, what: &str) -> Result<HttpResponse, Failure> {
    let status = get(value, "status")
        .as_f64()
        .filter(|status| status.fract() == 0.0 && (0.0..=999.0).contains(status))
        .ok_or_else(|| {
            Failure::argument(format!(
                "{what}.status must be an HTTP status code (a number)"
            ))
        })?;
    let body = get(value, "body");
    Ok(HttpResponse {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        status: status as u16,
        headers: js::text_headers_from_js(&get(value, "headers"), &format!("{what}.headers"))?,
        body: if js::is_absent(&body) {
            Vec::new()
        } else {
            js::bytes_from_js(&body, &format!("{what}.body"))?
        },
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
        self.attempt.first_sent_at.map(|at| at as f64)
    }

    /// Restores when the first attempt was sent (Unix ms).
    #[wasm_bindgen(setter, js_name = firstSentAt)]
    pub fn set_first_sent_at(&mut self, at: Option<f64>) -> Result<(), JsValue> {
        self.attempt.first_sent_at = match at {
            Some(at) => Some(js::millis_from_js(at, "firstSentAt")?),
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
        js::serde_to_js(&self.inner.to_wire_value())
    }
}

/// One client instance: configuration, credentials, the throttle's model of
/// every rate limit, the retry planner and its budget.
#[wasm_bindgen(js_name = Client)]
pub struct JsClient {
    pub(crate) inner: Client,
    keys: KeyStream,
}

/// Seed material for a client without a configured seed.
fn edge_entropy() -> Entropy {
    let mut bytes = [0u8; 32];
    for byte in &mut bytes {
        // `Math.random()` is in [0, 1): the product is below 256.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let value = (js_sys::Math::random() * 256.0) as u8;
        *byte = value;
    }
    Entropy(bytes)
}

/// A client error as the JavaScript error to throw.
pub fn client_error(error: &acd_core::client::ClientError) -> JsValue {
    Failure::from(error).into()
}

#[wasm_bindgen(js_class = Client)]
impl JsClient {
    /// A client with `config` (a `ClientConfig` object or its JSON text;
    /// every member optional). Throws `AcdConfigError` when it is refused.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "ClientConfig | string | null")] config: Option<
            JsValue,
        >,
    ) -> Result<JsClient, JsValue> {
        let config: ClientConfig = js::from_json_like(
            &config.unwrap_or(JsValue::UNDEFINED),
            "client configuration",
        )
        .map_err(|failure| Failure::new(ErrorClass::Config, "INVALID_CONFIG", failure.message))?
        .unwrap_or_default();
        let entropy = match config.seed {
            Some(seed) => Entropy::from_seed(seed),
            None => edge_entropy(),
        };
        let keys = entropy.key_stream();
        Client::new(config, entropy)
            .map(|inner| JsClient { inner, keys })
            .map_err(|error| client_error(&error))
    }

    /// Builds and validates a request; throws `AcdRequestError` (nothing was
    /// sent) with the gate's own sentences when it is invalid.
    pub fn build(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "RequestSpecInit")] spec: JsValue,
    ) -> Result<JsClientRequest, JsValue> {
        let spec = spec_from_js(&spec)?;
        build_request(self.inner.config(), &spec, &mut self.keys)
            .map(|inner| JsClientRequest {
                inner,
                attempt: AttemptState::default(),
            })
            .map_err(|error| client_error(&error))
    }

    /// Interprets a response to `request` (no state changes): the typed
    /// result, or throws `AcdApiError` / `AcdProtocolError`.
    pub fn interpret(
        &self,
        request: &JsClientRequest,
        #[wasm_bindgen(unchecked_param_type = "HttpResponseInit")] response: JsValue,
    ) -> Result<JsApiResponse, JsValue> {
        let response = response_from_js(&response, "response")?;
        let operation = self
            .inner
            .config()
            .catalogue
            .get(&request.inner.operation_id)
            .ok_or_else(|| {
                client_error(&acd_core::client::ClientError::UnknownOperation {
                    operation: request.inner.operation_id.clone(),
                })
            })?;
        acd_core::client::interpret(operation, &response)
            .map(|inner| JsApiResponse { inner })
            .map_err(|error| client_error(&error))
    }

    /// Interprets a response as an answer to operation `operationId`.
    #[wasm_bindgen(js_name = interpretAs)]
    pub fn interpret_as(
        &self,
        #[wasm_bindgen(js_name = operationId)] operation_id: &str,
        #[wasm_bindgen(unchecked_param_type = "HttpResponseInit")] response: JsValue,
    ) -> Result<JsApiResponse, JsValue> {
        let response = response_from_js(&response, "response")?;
        let operation = self
            .inner
            .config()
            .catalogue
            .get(operation_id)
            .ok_or_else(|| {
                client_error(&acd_core::client::ClientError::UnknownOperation {
                    operation: operation_id.to_owned(),
                })
            })?;
        acd_core::client::interpret(operation, &response)
            .map(|inner| JsApiResponse { inner })
            .map_err(|error| client_error(&error))
    }

    /// The throttle's model of every limit seen, at `nowMs`, for display:
    /// `remaining` counts a window that has ended as full, `readyAt` is the
    /// first instant one more send fits.
    #[wasm_bindgen(unchecked_return_type = "LimitState[]")]
    pub fn limits(&self, #[wasm_bindgen(js_name = nowMs)] now_ms: f64) -> Result<Array, JsValue> {
        let now = js::millis_from_js(now_ms, "nowMs")?;
        Ok(self
            .inner
            .throttle()
            .models()
            .map(|model| {
                JsValue::from(object(&[
                    ("key", model.key.as_str().into()),
                    ("name", model.name.as_str().into()),
                    ("limit", model.limit.into()),
                    ("windowMs", js::u64_to_js(model.window_ms)),
                    ("remaining", model.remaining_at(now).into()),
                    (
                        "resetAt",
                        js::optional_u64_to_js(model.window_end.filter(|end| *end > now)),
                    ),
                    ("blockedUntil", js::u64_to_js(model.blocked_until)),
                    ("inFlight", model.in_flight.into()),
                    ("source", js::serde_to_js(&model.source)),
                    ("readyAt", js::u64_to_js(model.ready_at(now))),
                ]))
            })
            .collect())
    }

    /// Tokens left in the retry budget.
    #[wasm_bindgen(getter, js_name = budgetAvailable)]
    pub fn budget_available(&self) -> u32 {
        self.inner.budget().available()
    }
}
