//! The gate (server role) for JavaScript, one crossing per decision:
//! `decide(method, target, headerBytes, clientIp, nowMs)` returns the
//! decision as JSON text, which `js/gate.js` reads with one `JSON.parse`
//! into its `GateResponse` or `Admitted`; an admitted request is answered
//! by `answer(id, kind, payload, nowMs)`, again one crossing. Every rule,
//! sentence and header comes from the core.

use crate::error::{config_failure, Failure};
use acd_core::gate::{
    Admitted, Decision, Gate, GateConfig, GateRequest, GateResponse, ResourceAnswer,
};
use acd_core::limit::LimitAlgorithm;
use acd_core::model::{
    CredentialKind, CredentialRecord, InMemoryCredentials, ParamProblem, Principal, Secret,
};
use acd_core::UnixMillis;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::collections::HashMap;
use wasm_bindgen::prelude::*;

/// One entry of the credential table (JSON, snake_case).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CredentialInit {
    secret: String,
    id: String,
    kind: CredentialKind,
    user: String,
    #[serde(default)]
    scopes: Vec<String>,
    #[serde(default)]
    expires_at: Option<UnixMillis>,
}

/// A decision as JSON: a finished response, or an admitted request.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum DecisionJson<'a> {
    /// A finished response (`body` is the JSON text the gate wrote).
    Respond {
        status: u16,
        headers: &'a [(String, String)],
        body: &'a str,
    },
    /// An admitted request, to be answered with `answer(id, ..)`.
    Resolve {
        id: u32,
        operation_id: &'a str,
        path_params: &'a [(String, String)],
        params: &'a RawValue,
        user: Option<&'a str>,
        credential_id: Option<&'a str>,
        stable_egress: bool,
    },
}

/// The gate: configuration, in-memory credentials and limits, and the
/// admitted requests not yet answered.
#[wasm_bindgen(js_name = GateCore, skip_typescript)]
pub struct JsGate {
    inner: Gate,
    admitted: HashMap<u32, Admitted>,
    next_id: u32,
}

#[wasm_bindgen(js_class = GateCore)]
impl JsGate {
    /// A gate from its configuration JSON and credential table JSON (the
    /// demo credentials when `credentials` is absent and `demo` is true);
    /// `hashSeed` fixes the limiter's hashing (else from the platform).
    #[wasm_bindgen(constructor)]
    pub fn new(
        config: Option<String>,
        credentials: Option<String>,
        demo: bool,
        hash_seed: Option<u64>,
    ) -> Result<JsGate, JsValue> {
        let config: GateConfig = match config {
            Some(text) => serde_json::from_str(&text)
                .map_err(|error| config_failure(format!("gate configuration: {error}")))?,
            None => GateConfig::default(),
        };
        let table = match (credentials, demo) {
            (None, true) => acd_core::gate::demo::credentials(),
            (text, _) => credential_table(text.as_deref().unwrap_or("[]"))?,
        };
        let seed = match hash_seed {
            Some(seed) => seed,
            None => crate::js::platform_random::<8>("pass a hash seed with Gate.withHashSeed")
                .map(u64::from_le_bytes)?,
        };
        let inner = Gate::in_memory_seeded(config, table, LimitAlgorithm::default(), seed)
            .map_err(|error| config_failure(error.to_string()))?;
        Ok(JsGate {
            inner,
            admitted: HashMap::new(),
            next_id: 1,
        })
    }

    /// Decides one request: the decision's JSON text.
    pub fn decide(
        &mut self,
        method: String,
        target: Vec<u8>,
        headers: &[u8],
        client_ip: String,
        now_ms: f64,
    ) -> Result<String, JsValue> {
        let now = crate::js::millis_from_js(now_ms, "nowMs")?;
        let request = request(method, target, headers, client_ip);
        let decision = self.inner.decide(&request, now);
        Ok(self.decision_json(decision))
    }

    /// The secret to look up for a request (two-step form), if any.
    #[wasm_bindgen(js_name = credentialToLookUp)]
    pub fn credential_to_look_up(
        &self,
        method: String,
        target: Vec<u8>,
        headers: &[u8],
    ) -> Option<String> {
        let request = request(method, target, headers, String::new());
        self.inner
            .credential_to_look_up(&request)
            .map(str::to_owned)
    }

    /// Decides a request with the caller's record (JSON, or absent for an
    /// unknown credential) for the secret `credentialToLookUp` named.
    #[wasm_bindgen(js_name = decideAnswered)]
    pub fn decide_answered(
        &mut self,
        method: String,
        target: Vec<u8>,
        headers: &[u8],
        client_ip: String,
        record: Option<String>,
        now_ms: f64,
    ) -> Result<String, JsValue> {
        let now = crate::js::millis_from_js(now_ms, "nowMs")?;
        let record: Option<CredentialRecord> = match record {
            Some(text) => Some(
                serde_json::from_str(&text)
                    .map_err(|error| Failure::argument(format!("record: {error}")))?,
            ),
            None => None,
        };
        let request = request(method, target, headers, client_ip);
        let decision = self.inner.decide_answered(&request, record, now);
        Ok(self.decision_json(decision))
    }

    /// Answers admitted request `id`: `kind` is `found` (payload: the raw
    /// JSON), `not_found`, `forbidden` or `invalid` (payload: the problems'
    /// JSON). Returns the response's JSON; throws when `id` was answered.
    pub fn answer(&mut self, id: u32, kind: &str, payload: Vec<u8>) -> Result<String, JsValue> {
        let admitted = self.admitted.remove(&id).ok_or_else(|| {
            Failure::state(
                "This admitted request was already answered; each request gets one response.",
            )
        })?;
        let answer = match kind {
            "found" => ResourceAnswer::Found(payload),
            "not_found" => ResourceAnswer::NotFound,
            "forbidden" => ResourceAnswer::Forbidden,
            _ => ResourceAnswer::Invalid(
                serde_json::from_slice::<Vec<ParamProblem>>(&payload)
                    .map_err(|error| Failure::argument(format!("problems: {error}")))?,
            ),
        };
        Ok(response_json(&admitted.respond(answer)))
    }

    /// The API index this gate serves, as JSON text.
    #[wasm_bindgen(js_name = indexJson)]
    pub fn index_json(&self) -> String {
        String::from_utf8_lossy(&self.inner.index().to_bytes()).into_owned()
    }
}

impl JsGate {
    fn decision_json(&mut self, decision: Decision) -> String {
        let admitted = match decision {
            Decision::Reply(response) => return response_json(&response),
            Decision::FetchResource(admitted) => *admitted,
        };
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1).max(1);
        let params: serde_json::Map<String, serde_json::Value> = admitted
            .params()
            .iter()
            .map(|(name, value)| {
                (
                    name.to_owned(),
                    serde_json::to_value(value).unwrap_or_default(),
                )
            })
            .collect();
        let params = serde_json::to_string(&params).unwrap_or_else(|_| "{}".to_owned());
        let params = RawValue::from_string(params).unwrap_or_else(|_| RawValue::NULL.to_owned());
        let (user, credential_id) = match admitted.principal() {
            Principal::Credential(record) => (Some(record.user.as_str()), Some(record.id.as_str())),
            Principal::Anonymous { .. } => (None, None),
        };
        let text = serde_json::to_string(&DecisionJson::Resolve {
            id,
            operation_id: admitted.operation_id(),
            path_params: admitted.path_params(),
            params: &params,
            user,
            credential_id,
            stable_egress: admitted.stable_egress(),
        })
        .unwrap_or_default();
        self.admitted.insert(id, admitted);
        text
    }
}

/// A response's JSON (its body is the gate's JSON text, hence UTF-8).
fn response_json(response: &GateResponse) -> String {
    serde_json::to_string(&DecisionJson::Respond {
        status: response.status,
        headers: &response.headers,
        body: &String::from_utf8_lossy(&response.body),
    })
    .unwrap_or_default()
}

/// A request from its parts; `headers` is `name: value` lines (`\n`).
fn request(method: String, target: Vec<u8>, headers: &[u8], client_ip: String) -> GateRequest {
    let headers = headers
        .split(|byte| *byte == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| {
            let colon = line
                .iter()
                .position(|byte| *byte == b':')
                .unwrap_or(line.len());
            let (name, rest) = line.split_at(colon);
            let value = rest.get(1..).unwrap_or_default();
            let value = value.strip_prefix(b" ").unwrap_or(value);
            (String::from_utf8_lossy(name).into_owned(), value.to_vec())
        })
        .collect();
    GateRequest {
        method,
        target,
        headers,
        client_ip,
    }
}

/// The credential table of its JSON.
fn credential_table(text: &str) -> Result<InMemoryCredentials, Failure> {
    let entries: Vec<CredentialInit> = serde_json::from_str(text)
        .map_err(|error| Failure::argument(format!("credentials: {error}")))?;
    let mut table = InMemoryCredentials::new();
    for entry in entries {
        let record = CredentialRecord {
            id: entry.id,
            kind: entry.kind,
            user: entry.user,
            scopes: entry.scopes,
            expires_at: entry.expires_at,
        };
        table.insert(Secret::new(entry.secret), record);
    }
    Ok(table)
}
