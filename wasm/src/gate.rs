//! The gate (server role) for JavaScript: `Gate`, `Admitted`, `GateResponse`.
//!
//! `gate.decide(request, nowMs)` returns either a finished `GateResponse`
//! or an `Admitted` request that the caller answers with one of its
//! `respond*` methods, exactly like `Gate::decide` and `Admitted::respond`
//! in acd-core. Every rule, sentence and header comes from the core.

use crate::error::{codes, ErrorClass, Failure};
use crate::js::{self, get};
use acd_core::gate::{
    Admitted, Decision, Gate, GateConfig, GateRequest, GateResponse, ResourceAnswer,
};
use acd_core::limit::LimitAlgorithm;
use acd_core::model::{
    CredentialKind, CredentialRecord, InMemoryCredentials, ParamProblem, ParamValue, Principal,
    Secret,
};
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

/// The client IP used when a request does not name one.
const DEFAULT_CLIENT_IP: &str = "127.0.0.1";

/// The gate: configuration, in-memory credentials and in-memory limits.
///
/// One instance keeps the rate-limit state of every key it has seen.
#[wasm_bindgen(js_name = Gate)]
pub struct JsGate {
    inner: Gate,
}

fn config_from_js(config: &JsValue) -> Result<GateConfig, Failure> {
    let parsed: Option<GateConfig> =
        js::from_json_like(config, "gate configuration").map_err(|failure| {
            Failure::new(ErrorClass::Config, codes::INVALID_CONFIG, failure.message)
        })?;
    Ok(parsed.unwrap_or_default())
}

fn record_from_js(
    entry: &JsValue,
    what: &dyn Fn(&str) -> String,
) -> Result<CredentialRecord, Failure> {
    let kind = match js::string_from_js(&get(entry, "kind"), &what("kind"))?.as_str() {
        "apiKey" | "api_key" => CredentialKind::ApiKey,
        "oauth2" => CredentialKind::OAuthToken,
        _ => {
            return Err(Failure::argument(format!(
                "{} must be \"apiKey\" or \"oauth2\"",
                what("kind")
            )))
        }
    };
    let scopes_value = get(entry, "scopes");
    let mut scopes = Vec::new();
    if !js::is_absent(&scopes_value) {
        let array = scopes_value.dyn_ref::<Array>().ok_or_else(|| {
            Failure::argument(format!("{} must be an array of strings", what("scopes")))
        })?;
        for (index, scope) in array.iter().enumerate() {
            scopes.push(js::string_from_js(
                &scope,
                &format!("{}[{index}]", what("scopes")),
            )?);
        }
    }
    let expires = get(entry, "expiresAt");
    let expires_at = match expires.as_f64() {
        Some(value) => Some(js::millis_from_js(value, &what("expiresAt"))?.into()),
        None if js::is_absent(&expires) => None,
        None => {
            return Err(Failure::argument(format!(
                "{} must be a number or null",
                what("expiresAt")
            )))
        }
    };
    Ok(CredentialRecord {
        id: js::string_from_js(&get(entry, "id"), &what("id"))?,
        kind,
        user: js::string_from_js(&get(entry, "user"), &what("user"))?,
        scopes,
        expires_at,
    })
}

fn credential_from_js(
    entry: &JsValue,
    position: usize,
) -> Result<(Secret, CredentialRecord), Failure> {
    let what = |member: &str| format!("credentials[{position}].{member}");
    let secret = js::string_from_js(&get(entry, "secret"), &what("secret"))?;
    Ok((Secret::new(secret), record_from_js(entry, &what)?))
}

fn credentials_from_js(credentials: &JsValue) -> Result<InMemoryCredentials, Failure> {
    let mut table = InMemoryCredentials::new();
    if js::is_absent(credentials) {
        return Ok(table);
    }
    let array = credentials.dyn_ref::<Array>().ok_or_else(|| {
        Failure::argument(format!(
            "credentials must be an array, got {}",
            js::describe(credentials)
        ))
    })?;
    for (position, entry) in array.iter().enumerate() {
        let (secret, record) = credential_from_js(&entry, position)?;
        table.insert(secret, record);
    }
    Ok(table)
}

fn request_from_js(request: &JsValue) -> Result<GateRequest, Failure> {
    if !request.is_object() {
        return Err(Failure::argument(format!(
            "request must be an object such as {{target: \"/api/v1\"}}, got {}",
            js::describe(request)
        )));
    }
    Ok(GateRequest {
        method: js::optional_string(&get(request, "method"), "request.method")?
            .unwrap_or_else(|| "GET".into()),
        target: js::bytes_from_js(&get(request, "target"), "request.target")?,
        headers: js::headers_from_js(&get(request, "headers"), "request.headers")?,
        client_ip: js::optional_string(&get(request, "clientIp"), "request.clientIp")?
            .unwrap_or_else(|| DEFAULT_CLIENT_IP.into()),
    })
}

fn decision_to_js(decision: Decision) -> JsValue {
    match decision {
        Decision::Reply(response) => JsGateResponse { inner: response }.into(),
        Decision::FetchResource(admitted) => JsAdmitted {
            inner: Some(*admitted),
        }
        .into(),
    }
}

#[wasm_bindgen(js_class = Gate)]
impl JsGate {
    /// A gate with `config` (a `GateConfig` object or its JSON text; every
    /// member optional) and an in-memory credential table.
    ///
    /// Throws `AcdConfigError` (code `INVALID_CONFIG`) with the core's
    /// sentence when the configuration is refused, and `AcdArgumentError`
    /// when a credential entry is malformed.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "GateConfig | string | null")] config: Option<
            JsValue,
        >,
        #[wasm_bindgen(unchecked_param_type = "CredentialInit[] | null")] credentials: Option<
            JsValue,
        >,
    ) -> Result<JsGate, JsValue> {
        let config = config_from_js(&config.unwrap_or(JsValue::UNDEFINED))?;
        let credentials = credentials_from_js(&credentials.unwrap_or(JsValue::UNDEFINED))?;
        Self::build(config, credentials, None).map_err(JsValue::from)
    }

    /// Like `new`, with the rate limiter's hash seed given (a `bigint`; for
    /// tests and runs that must repeat exactly). `new` and `demo` draw the
    /// seed from `crypto.getRandomValues`.
    #[wasm_bindgen(js_name = withHashSeed)]
    pub fn with_hash_seed(
        #[wasm_bindgen(unchecked_param_type = "GateConfig | string | null")] config: Option<
            JsValue,
        >,
        #[wasm_bindgen(unchecked_param_type = "CredentialInit[] | null")] credentials: Option<
            JsValue,
        >,
        #[wasm_bindgen(js_name = hashSeed)] hash_seed: u64,
    ) -> Result<JsGate, JsValue> {
        let config = config_from_js(&config.unwrap_or(JsValue::UNDEFINED))?;
        let credentials = credentials_from_js(&credentials.unwrap_or(JsValue::UNDEFINED))?;
        Self::build(config, credentials, Some(hash_seed)).map_err(JsValue::from)
    }

    /// A gate with the published demo credentials (e.g. `acd_live_demo_ada`),
    /// for examples and tests.
    pub fn demo(
        #[wasm_bindgen(unchecked_param_type = "GateConfig | string | null")] config: Option<
            JsValue,
        >,
    ) -> Result<JsGate, JsValue> {
        let config = config_from_js(&config.unwrap_or(JsValue::UNDEFINED))?;
        Self::build(config, acd_core::gate::demo::credentials(), None).map_err(JsValue::from)
    }

    /// Decides what to do with `request` at `nowMs` (Unix milliseconds):
    /// a finished `GateResponse`, or an `Admitted` request to answer.
    #[wasm_bindgen(unchecked_return_type = "GateResponse | Admitted")]
    pub fn decide(
        &self,
        #[wasm_bindgen(unchecked_param_type = "GateRequestInit")] request: JsValue,
        #[wasm_bindgen(js_name = nowMs)] now_ms: f64,
    ) -> Result<JsValue, JsValue> {
        let now = js::millis_from_js(now_ms, "nowMs")?;
        let request = request_from_js(&request)?;
        Ok(decision_to_js(self.inner.decide(&request, now)))
    }

    /// `decide` at the current time (`Date.now()`): a convenience for
    /// servers; tests should pass the time to `decide` instead.
    #[wasm_bindgen(js_name = decideNow, unchecked_return_type = "GateResponse | Admitted")]
    pub fn decide_now(
        &self,
        #[wasm_bindgen(unchecked_param_type = "GateRequestInit")] request: JsValue,
    ) -> Result<JsValue, JsValue> {
        let request = request_from_js(&request)?;
        Ok(decision_to_js(
            self.inner.decide(&request, js::current_unix_ms()),
        ))
    }

    /// Step one of the two-step form for credential stores the gate cannot
    /// call itself (remote, async): the secret to look up for `request`, or
    /// `undefined` when none is needed. Look it up, then call `decideAnswered`.
    #[wasm_bindgen(js_name = credentialToLookUp)]
    pub fn credential_to_look_up(
        &self,
        #[wasm_bindgen(unchecked_param_type = "GateRequestInit")] request: JsValue,
    ) -> Result<Option<String>, JsValue> {
        let request = request_from_js(&request)?;
        Ok(self
            .inner
            .credential_to_look_up(&request)
            .map(str::to_owned))
    }

    /// Step two: decides `request` with the caller's record for the secret
    /// named by `credentialToLookUp` (`null`: unknown credential).
    #[wasm_bindgen(js_name = decideAnswered, unchecked_return_type = "GateResponse | Admitted")]
    pub fn decide_answered(
        &self,
        #[wasm_bindgen(unchecked_param_type = "GateRequestInit")] request: JsValue,
        #[wasm_bindgen(unchecked_param_type = "CredentialRecordInit | null")] record: JsValue,
        #[wasm_bindgen(js_name = nowMs)] now_ms: f64,
    ) -> Result<JsValue, JsValue> {
        let now = js::millis_from_js(now_ms, "nowMs")?;
        let request = request_from_js(&request)?;
        let record = if js::is_absent(&record) {
            None
        } else {
            Some(record_from_js(&record, &|member| {
                format!("record.{member}")
            })?)
        };
        Ok(decision_to_js(
            self.inner.decide_answered(&request, record, now),
        ))
    }

    /// The API index this gate serves, as JSON text.
    #[wasm_bindgen(js_name = indexJson)]
    pub fn index_json(&self) -> String {
        String::from_utf8_lossy(&self.inner.index().to_bytes()).into_owned()
    }
}

/// 64 bits from `crypto.getRandomValues` (the platform's generator): the
/// hash seed of a default gate's limiter, so nobody outside can predict
/// where subjects land.
fn platform_seed() -> Result<u64, Failure> {
    js::platform_random::<8>("pass a hash seed with Gate.withHashSeed").map(u64::from_le_bytes)
}

impl JsGate {
    /// A gate over `credentials`, its limiter's keys hashed with `explicit`
    /// or a seed from the platform.
    fn build(
        config: GateConfig,
        credentials: InMemoryCredentials,
        explicit: Option<u64>,
    ) -> Result<JsGate, Failure> {
        Self::build_seeded(config, credentials, explicit, platform_seed).map(|(gate, _)| gate)
    }

    /// [`Self::build`] with the platform's draw passed in; also the seed used.
    fn build_seeded(
        config: GateConfig,
        credentials: InMemoryCredentials,
        explicit: Option<u64>,
        draw: impl FnOnce() -> Result<u64, Failure>,
    ) -> Result<(JsGate, u64), Failure> {
        let seed = match explicit {
            Some(seed) => seed,
            None => draw()?,
        };
        Gate::in_memory_seeded(config, credentials, LimitAlgorithm::default(), seed)
            .map(|inner| (JsGate { inner }, seed))
            .map_err(|error| {
                Failure::new(ErrorClass::Config, codes::INVALID_CONFIG, error.to_string())
            })
    }
}

/// A request that passed every rule of the gate, waiting for the caller's
/// answer about the resource. Answer it exactly once.
#[wasm_bindgen(js_name = Admitted)]
pub struct JsAdmitted {
    inner: Option<Admitted>,
}

fn answered() -> JsValue {
    Failure::new(
        ErrorClass::State,
        codes::ALREADY_ANSWERED,
        "This admitted request was already answered; each request gets one response.",
    )
    .into()
}

fn param_to_js(value: &ParamValue) -> JsValue {
    match value {
        ParamValue::Integer(number) => js::u64_to_js(*number),
        ParamValue::Text(text) => JsValue::from_str(text),
    }
}

fn problems_from_js(problems: &JsValue) -> Result<Vec<ParamProblem>, Failure> {
    let array = problems.dyn_ref::<Array>().ok_or_else(|| {
        Failure::argument(format!(
            "problems must be an array, got {}",
            js::describe(problems)
        ))
    })?;
    array
        .iter()
        .enumerate()
        .map(|(index, problem)| {
            Ok(ParamProblem::new(
                js::string_from_js(
                    &get(&problem, "parameter"),
                    &format!("problems[{index}].parameter"),
                )?,
                js::string_from_js(
                    &get(&problem, "problem"),
                    &format!("problems[{index}].problem"),
                )?,
            ))
        })
        .collect()
}

#[wasm_bindgen(js_class = Admitted)]
impl JsAdmitted {
    /// Always `"resolve"`: tells an `Admitted` from a `GateResponse`.
    #[wasm_bindgen(getter, js_name = type, unchecked_return_type = "\"resolve\"")]
    pub fn decision_type(&self) -> String {
        "resolve".into()
    }

    /// The operation's id, e.g. `listTableRecords`.
    #[wasm_bindgen(getter, js_name = operationId)]
    pub fn operation_id(&self) -> Result<String, JsValue> {
        let admitted = self.inner.as_ref().ok_or_else(answered)?;
        Ok(admitted.operation_id().to_owned())
    }

    /// The decoded path parameters as `[name, value]` pairs, in template order.
    #[wasm_bindgen(getter, js_name = pathParams, unchecked_return_type = "Array<[string, string]>")]
    pub fn path_params(&self) -> Result<Array, JsValue> {
        let admitted = self.inner.as_ref().ok_or_else(answered)?;
        Ok(js::pairs_to_js(
            admitted
                .path_params()
                .iter()
                .map(|(name, value)| (name.as_str(), value.as_str())),
        ))
    }

    /// The validated query parameters with defaults applied, by name
    /// (integers as numbers, everything else as strings).
    #[wasm_bindgen(getter, unchecked_return_type = "Record<string, number | string>")]
    pub fn params(&self) -> Result<Object, JsValue> {
        let admitted = self.inner.as_ref().ok_or_else(answered)?;
        let object = Object::new();
        for (name, value) in admitted.params().iter() {
            Reflect::set(&object, &JsValue::from_str(name), &param_to_js(value))?;
        }
        Ok(object)
    }

    /// The authenticated user, or `undefined` for anonymous (public) requests.
    #[wasm_bindgen(getter)]
    pub fn user(&self) -> Result<Option<String>, JsValue> {
        let admitted = self.inner.as_ref().ok_or_else(answered)?;
        Ok(admitted.principal().user().map(str::to_owned))
    }

    /// The non-secret id of the credential used, or `undefined`.
    #[wasm_bindgen(getter, js_name = credentialId)]
    pub fn credential_id(&self) -> Result<Option<String>, JsValue> {
        let admitted = self.inner.as_ref().ok_or_else(answered)?;
        Ok(match admitted.principal() {
            Principal::Credential(record) => Some(record.id.clone()),
            Principal::Anonymous { .. } => None,
        })
    }

    /// Whether the caller asked for the stable-egress path (header or URL).
    #[wasm_bindgen(getter, js_name = stableEgress)]
    pub fn stable_egress(&self) -> Result<bool, JsValue> {
        let admitted = self.inner.as_ref().ok_or_else(answered)?;
        Ok(admitted.stable_egress())
    }

    /// Answers with the payload (raw JSON as text or bytes; the records
    /// array for reads). It is wrapped without being parsed again.
    #[wasm_bindgen(js_name = respondFound)]
    pub fn respond_found(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] payload: JsValue,
    ) -> Result<JsGateResponse, JsValue> {
        let payload = js::bytes_from_js(&payload, "payload")?;
        self.respond(ResourceAnswer::Found(payload))
    }

    /// Answers "no such resource visible to this principal" (404).
    #[wasm_bindgen(js_name = respondNotFound)]
    pub fn respond_not_found(&mut self) -> Result<JsGateResponse, JsValue> {
        self.respond(ResourceAnswer::NotFound)
    }

    /// Answers "this principal may not read it" (403).
    #[wasm_bindgen(js_name = respondForbidden)]
    pub fn respond_forbidden(&mut self) -> Result<JsGateResponse, JsValue> {
        self.respond(ResourceAnswer::Forbidden)
    }

    /// Answers with parameter problems the resource itself detected (400).
    #[wasm_bindgen(js_name = respondInvalid)]
    pub fn respond_invalid(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "ParamProblem[]")] problems: JsValue,
    ) -> Result<JsGateResponse, JsValue> {
        let problems = problems_from_js(&problems)?;
        self.respond(ResourceAnswer::Invalid(problems))
    }
}

impl JsAdmitted {
    fn respond(&mut self, answer: ResourceAnswer) -> Result<JsGateResponse, JsValue> {
        let admitted = self.inner.take().ok_or_else(answered)?;
        Ok(JsGateResponse {
            inner: admitted.respond(answer),
        })
    }
}

/// A finished response: status, headers in order, body bytes.
#[wasm_bindgen(js_name = GateResponse)]
pub struct JsGateResponse {
    inner: GateResponse,
}

#[wasm_bindgen(js_class = GateResponse)]
impl JsGateResponse {
    /// Always `"respond"`: tells a `GateResponse` from an `Admitted`.
    #[wasm_bindgen(getter, js_name = type, unchecked_return_type = "\"respond\"")]
    pub fn decision_type(&self) -> String {
        "respond".into()
    }

    /// The status code.
    #[wasm_bindgen(getter)]
    pub fn status(&self) -> u16 {
        self.inner.status
    }

    /// The headers as `[name, value]` pairs, in the order to send them.
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

    /// The body bytes (a copy).
    #[wasm_bindgen(getter)]
    pub fn body(&self) -> Vec<u8> {
        self.inner.body.clone()
    }

    /// The body as text (it is always JSON, hence UTF-8).
    #[wasm_bindgen(getter)]
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.inner.body).into_owned()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn a_default_gate_takes_the_platforms_draw_and_an_explicit_seed_is_kept() {
        let creds = acd_core::gate::demo::credentials;
        let (_, drawn) =
            JsGate::build_seeded(GateConfig::default(), creds(), None, || Ok(0x5eed)).unwrap();
        assert_eq!(drawn, 0x5eed);
        let (_, explicit) = JsGate::build_seeded(GateConfig::default(), creds(), Some(7), || {
            panic!("an explicit seed draws nothing")
        })
        .unwrap();
        assert_eq!(explicit, 7);
    }
}
