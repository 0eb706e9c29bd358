//! `Driver`: the driver protocol (`docs/driver-protocol.md`) for
//! JavaScript. Every method forwards bytes to the core's client and hands
//! back its JSON; nothing is decoded or re-encoded here. A refusal is thrown
//! as an `Error` whose `message` is the core's sentence, with `category`
//! and `json` (the core's error object) as properties.

use acd_core::client::wire::{whole_from_f64, ErrorJson};
use acd_core::client::{CallId, Client, ClientError, Entropy};
use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::prelude::*;

/// The core's refusal as a JavaScript `Error`.
fn thrown(error: &ClientError) -> JsValue {
    let js_error = js_sys::Error::new(&error.to_string());
    // Setting a property of a fresh Error object cannot fail.
    let _ = Reflect::set(
        &js_error,
        &"category".into(),
        &error.category().as_str().into(),
    );
    let _ = Reflect::set(
        &js_error,
        &"json".into(),
        &ErrorJson(error).to_json().into(),
    );
    js_error.into()
}

/// 32 bytes from `crypto.getRandomValues`.
fn platform_entropy() -> Result<Entropy, ClientError> {
    let missing = || ClientError::InvalidConfig {
        field: "entropy".into(),
        problem: "this platform has no crypto.getRandomValues; set `seed` only for tests".into(),
    };
    let crypto = Reflect::get(&js_sys::global(), &"crypto".into()).map_err(|_| missing())?;
    let fill = Reflect::get(&crypto, &"getRandomValues".into())
        .ok()
        .and_then(|fill| fill.dyn_into::<js_sys::Function>().ok())
        .ok_or_else(missing)?;
    let bytes = Uint8Array::new_with_length(32);
    fill.call1(&crypto, &bytes).map_err(|_| missing())?;
    let mut out = [0u8; 32];
    bytes.copy_to(&mut out);
    Ok(Entropy(out))
}

fn call_id(call: f64) -> Result<CallId, JsValue> {
    whole_from_f64(call, "call id")
        .map(CallId)
        .map_err(|error| thrown(&error))
}

fn instant(now_ms: f64) -> Result<u64, JsValue> {
    whole_from_f64(now_ms, "time").map_err(|error| thrown(&error))
}

/// One client of the core, driven through bytes.
#[wasm_bindgen]
pub struct Driver {
    client: Client,
}

#[wasm_bindgen]
impl Driver {
    /// A client from the configuration's JSON (UTF-8 bytes); seeded from
    /// `crypto.getRandomValues` unless the configuration names a seed.
    #[wasm_bindgen(constructor)]
    pub fn new(config_json: &[u8]) -> Result<Driver, JsValue> {
        let entropy = platform_entropy().map_err(|error| thrown(&error))?;
        Client::from_config_json(config_json, entropy)
            .map(|client| Driver { client })
            .map_err(|error| thrown(&error))
    }

    /// Starts the call a call spec's JSON describes; returns its id.
    pub fn start(&mut self, spec_json: &[u8]) -> Result<f64, JsValue> {
        let id = self
            .client
            .start_json(spec_json)
            .map_err(|error| thrown(&error))?;
        // Call ids count up from 1; they stay far below 2^53.
        #[allow(clippy::cast_precision_loss)]
        Ok(id.0 as f64)
    }

    /// The largest response body this client accepts (its configuration's
    /// `max_body_bytes`, else the core's default): transports stop reading
    /// a decoded body past it.
    #[wasm_bindgen(js_name = maxBodyBytes)]
    pub fn max_body_bytes(&self) -> f64 {
        // The bound is far below 2^53 in practice; a larger one only reads more.
        #[allow(clippy::cast_precision_loss)]
        let bound = self.client.config().max_body_bytes as f64;
        bound
    }

    /// The batch JSON: transmits to send now, events, next wake-up.
    pub fn poll(&mut self, now_ms: f64) -> Result<String, JsValue> {
        let now = instant(now_ms)?;
        Ok(self.client.poll_json(now))
    }

    /// The answer to `call`'s request in flight.
    pub fn respond(
        &mut self,
        call: f64,
        status: u16,
        headers: &str,
        body: Vec<u8>,
        now_ms: f64,
    ) -> Result<(), JsValue> {
        let (call, now) = (call_id(call)?, instant(now_ms)?);
        self.client
            .respond(call, status, headers, body, now)
            .map_err(|error| thrown(&error))
    }

    /// `call`'s request in flight failed: `connect`, `timeout` or
    /// `interrupted`.
    pub fn fail(&mut self, call: f64, kind: &str, now_ms: f64) -> Result<(), JsValue> {
        let (call, now) = (call_id(call)?, instant(now_ms)?);
        self.client
            .fail(call, kind, now)
            .map_err(|error| thrown(&error))
    }

    /// Drops `call`; nothing more is reported for it.
    pub fn cancel(&mut self, call: f64) -> Result<(), JsValue> {
        self.client.cancel(call_id(call)?);
        Ok(())
    }

    /// The throttle's view of each limit, as a JSON array.
    pub fn limits(&self) -> String {
        self.client.limits_json()
    }
}
