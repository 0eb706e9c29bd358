//! The client driver for JavaScript: `Client`, the core's one driver, with
//! coarse calls so a drive loop crosses the boundary a few times per
//! request: `pollTransmits(nowMs)` (every request due, at once), `handle`,
//! `pollEvents()` (every event, at once) and `pollTimeout()`.
//!
//! Events are plain objects tagged by `type` with camelCase members (see
//! [`crate::events`]). Specs and responses in their common shapes are
//! written by the package into a scratch buffer the driver owns and read
//! there (`startScratch`, `handleScratch`).

use crate::client::{client_error, outcome_from_js, spec_from_js, JsClientRequest};
use crate::error::{ErrorClass, Failure};
use crate::events::{event_to_js, raw_array_text};
use crate::js::{self, object};
use acd_core::client::{
    ApiResponse, AttemptState, CallId, Client, ClientConfig, ConnectionPagerOptions, Entropy,
    Event, PollOptions, TablePagerOptions, Transmit,
};
use js_sys::{Array, Uint8Array};
use serde_json::value::RawValue;
use wasm_bindgen::convert::IntoWasmAbi;
use wasm_bindgen::prelude::*;

// The hot path's objects are built by `js/shapes.js`: one call each instead
// of one crossing per member.
#[wasm_bindgen(raw_module = "../js/shapes.js")]
extern "C" {
    #[wasm_bindgen(js_name = pushCallEvent)]
    fn shape_push_call_event(out: &Array, id: f64, event: JsValue);
    #[wasm_bindgen(js_name = pushRecordsEvent)]
    fn shape_push_records_event(out: &Array, id: f64, status: u16, text: &str);
    #[wasm_bindgen(js_name = pushDoneEvent)]
    fn shape_push_done_event(out: &Array, id: f64);
    #[wasm_bindgen(js_name = transmit)]
    fn shape_transmit(id: f64, request: u32) -> JsValue;
}

/// The driver of the client role: it owns its calls (single requests,
/// table and connection pagers, run pollers) and every rule around them.
#[wasm_bindgen(js_name = Client)]
pub struct JsClient {
    pub(crate) inner: Client,
    /// Bytes the package's `Client` class writes a spec or a response into
    /// (through `scratchView`) before `startScratch` or `handleScratch`
    /// reads them, and reads a page's records from after
    /// `pollEventsMailbox`: no allocation and no copy loop per string.
    pub(crate) scratch: Vec<u8>,
    /// Numbers the common cases of `pollTransmitsMailbox` and
    /// `pollEventsMailbox` leave for the package's `Client` class to read
    /// (through `mailboxView`) instead of objects built across the
    /// boundary. Boxed, so it stays where it is.
    pub(crate) mailbox: Box<[f64; crate::fast_path::MAILBOX_SLOTS]>,
}

/// 32 bytes from `crypto.getRandomValues` (the platform's generator).
fn platform_entropy() -> Result<[u8; 32], Failure> {
    js::platform_random::<32>("pass 32 random bytes as `entropy`")
}

fn entropy_from_js(entropy: Option<Uint8Array>) -> Result<Entropy, Failure> {
    let bytes = match entropy {
        None => platform_entropy()?,
        Some(bytes) => {
            let mut out = [0u8; 32];
            if bytes.length() != 32 {
                return Err(Failure::argument(format!(
                    "entropy must be 32 random bytes (a Uint8Array), got {} bytes",
                    bytes.length()
                )));
            }
            bytes.copy_to(&mut out);
            out
        }
    };
    Ok(Entropy(bytes))
}

pub(crate) fn call_id_from_js(id: f64) -> Result<CallId, Failure> {
    js::millis_from_js(id, "call id").map(CallId)
}

fn options_from_js<T: serde::de::DeserializeOwned + Default>(
    value: Option<JsValue>,
    what: &str,
) -> Result<T, Failure> {
    Ok(js::from_json_like(&value.unwrap_or(JsValue::UNDEFINED), what)?.unwrap_or_default())
}

#[wasm_bindgen(js_class = Client)]
impl JsClient {
    /// A client with `config` (every member optional, camelCase or the
    /// shared documents' snake_case). `entropy` (32 bytes) seeds jitter and
    /// idempotency keys unless `config.seed` is set; by default it comes
    /// from `crypto.getRandomValues`, so no two clients draw alike.
    /// Throws `AcdConfigError` when the configuration is refused.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "ClientConfig | string | null")] config: Option<
            JsValue,
        >,
        entropy: Option<Uint8Array>,
    ) -> Result<JsClient, JsValue> {
        let config: ClientConfig = js::from_json_like(
            &config.unwrap_or(JsValue::UNDEFINED),
            "client configuration",
        )
        .map_err(|failure| Failure::new(ErrorClass::Config, "INVALID_CONFIG", failure.message))?
        .unwrap_or_default();
        let entropy = match config.seed {
            Some(seed) => Entropy::from_seed(seed),
            None => entropy_from_js(entropy)?,
        };
        Client::new(config, entropy)
            .map(|inner| JsClient {
                inner,
                scratch: Vec::new(),
                mailbox: Box::default(),
            })
            .map_err(|error| client_error(&error))
    }

    /// Builds and validates a request without starting a call (advanced
    /// use: the driver builds its own); throws `AcdRequestError`. An
    /// automatic idempotency key comes from the client's one key stream,
    /// so it never repeats a key of a call the client started.
    pub fn build(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "RequestSpecInit")] spec: JsValue,
    ) -> Result<JsClientRequest, JsValue> {
        let spec = spec_from_js(&spec)?;
        self.inner
            .build(&spec)
            .map(|inner| JsClientRequest {
                inner,
                attempt: AttemptState::default(),
            })
            .map_err(|error| client_error(&error))
    }

    /// The largest response body the client accepts, in bytes (the
    /// configuration's `maxBodyBytes`, 32 MiB by default): a transport stops
    /// reading a body as soon as it passes this, and reads none of a body
    /// whose `Content-Length` is above it.
    #[wasm_bindgen(getter, js_name = maxBodyBytes)]
    pub fn max_body_bytes(&self) -> f64 {
        #[allow(clippy::cast_precision_loss)]
        let bytes = self.inner.config().max_body_bytes as f64;
        bytes
    }

    /// Tokens left in the retry budget.
    #[wasm_bindgen(getter, js_name = budgetAvailable)]
    pub fn budget_available(&self) -> u32 {
        self.inner.budget().available()
    }

    /// Starts one call; throws `AcdRequestError` (nothing is sent) when the
    /// spec is invalid. Returns the call's id.
    pub fn start(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "RequestSpecInit")] spec: JsValue,
    ) -> Result<f64, JsValue> {
        let spec = spec_from_js(&spec)?;
        let id = self
            .inner
            .start(spec)
            .map_err(|error| client_error(&error))?;
        Ok(id_number(id))
    }

    /// Starts a pager over `table`'s records.
    #[wasm_bindgen(js_name = startTablePager)]
    pub fn start_table_pager(
        &mut self,
        table: &str,
        #[wasm_bindgen(unchecked_param_type = "TablePagerOptions")] options: Option<JsValue>,
    ) -> Result<f64, JsValue> {
        let options: TablePagerOptions = options_from_js(options, "table pager options")?;
        let id = self
            .inner
            .start_table_pager(table, options)
            .map_err(|error| client_error(&error))?;
        Ok(id_number(id))
    }

    /// Starts a pager over `connection`'s records of entity `entityId`.
    #[wasm_bindgen(js_name = startConnectionPager)]
    pub fn start_connection_pager(
        &mut self,
        connection: &str,
        #[wasm_bindgen(js_name = entityId)] entity_id: &str,
        #[wasm_bindgen(unchecked_param_type = "ConnectionPagerOptions")] options: Option<JsValue>,
    ) -> Result<f64, JsValue> {
        let options: ConnectionPagerOptions = options_from_js(options, "connection pager options")?;
        let id = self
            .inner
            .start_connection_pager(connection, entity_id, options)
            .map_err(|error| client_error(&error))?;
        Ok(id_number(id))
    }

    /// Starts polling run `runId` until a terminal status.
    #[wasm_bindgen(js_name = startRunPoller)]
    pub fn start_run_poller(
        &mut self,
        #[wasm_bindgen(js_name = runId)] run_id: &str,
        #[wasm_bindgen(unchecked_param_type = "PollOptions")] options: Option<JsValue>,
    ) -> Result<f64, JsValue> {
        let options: PollOptions = options_from_js(options, "poll options")?;
        let id = self
            .inner
            .start_run_poller(run_id, options)
            .map_err(|error| client_error(&error))?;
        Ok(id_number(id))
    }

    /// Drops call `id`: nothing more is emitted for it.
    pub fn cancel(&mut self, id: f64) -> Result<(), JsValue> {
        self.inner.cancel(call_id_from_js(id)?);
        Ok(())
    }

    /// The earliest instant (Unix ms) at which `pollTransmits` may have
    /// something new; `undefined` when nothing waits.
    #[wasm_bindgen(js_name = pollTimeout, unchecked_return_type = "number | undefined")]
    pub fn poll_timeout(&self) -> JsValue {
        js::optional_u64_to_js(self.inner.poll_timeout().map(u64::from))
    }

    /// How the attempt sent for call `id` ended: `{status, headers, body}`
    /// or `{type: "transport", failure: "connect" | "timeout" | "interrupted"}`.
    /// Throws only for misuse (unknown id, nothing in flight).
    pub fn handle(
        &mut self,
        id: f64,
        #[wasm_bindgen(unchecked_param_type = "Outcome")] outcome: JsValue,
        #[wasm_bindgen(js_name = nowMs)] now_ms: f64,
    ) -> Result<(), JsValue> {
        let id = call_id_from_js(id)?;
        let now = js::millis_from_js(now_ms, "nowMs")?;
        let outcome = outcome_from_js(&outcome)?;
        self.inner
            .handle(id, outcome, now)
            .map_err(|error| client_error(&error))
    }

    /// Whether no call is live.
    #[wasm_bindgen(getter, js_name = isIdle)]
    pub fn is_idle(&self) -> bool {
        self.inner.is_idle()
    }

    /// The throttle's model of every limit seen, at `nowMs`, for display.
    #[wasm_bindgen(unchecked_return_type = "LimitState[]")]
    pub fn limits(&self, #[wasm_bindgen(js_name = nowMs)] now_ms: f64) -> Result<Array, JsValue> {
        let now = acd_core::UnixMillis::new(js::millis_from_js(now_ms, "nowMs")?);
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
                        js::optional_u64_to_js(
                            model.window_end.filter(|end| *end > now).map(u64::from),
                        ),
                    ),
                    ("readyAt", js::u64_to_js(model.ready_at(now).as_millis())),
                ]))
            })
            .collect())
    }
}

/// The events `JsClient::take_events` took: the common case as its parts,
/// or every event as the `pollEvents` list.
pub(crate) enum Polled {
    /// A page of records of call `id`, then its `done`, and nothing else.
    RecordsThenDone {
        /// The call.
        id: CallId,
        /// The page's status.
        status: u16,
        /// The page's records.
        records: Vec<Box<RawValue>>,
    },
    /// Every event, as `pollEvents` lists them.
    List(Array),
    /// No event.
    Nothing,
}

impl JsClient {
    /// The `pollTransmits` list of `polled` (transmits already taken) and
    /// every other request due at `now`, each request as its handle (see
    /// `request_handle`).
    pub(crate) fn transmit_list(&mut self, polled: [Transmit; 2], now: u64) -> Array {
        let out = Array::new();
        let rest = std::iter::from_fn(|| self.inner.poll_transmit(now));
        for transmit in polled.into_iter().chain(rest) {
            out.push(&shape_transmit(
                id_number(transmit.id),
                request_handle(transmit),
            ));
        }
        out
    }

    /// Every event so far: the common case (a page of records and then
    /// the call's end, and nothing else) as its parts, anything else as
    /// the `pollEvents` list, one crossing per event.
    pub(crate) fn take_events(&mut self) -> Polled {
        let Some((first_id, first)) = self.inner.poll_event() else {
            return Polled::Nothing;
        };
        let next = self.inner.poll_event();
        let third = next.as_ref().and_then(|_| self.inner.poll_event());
        match (first, next, third) {
            (
                Event::Response {
                    response: ApiResponse::Records { status, records },
                    ..
                },
                Some((id, Event::Done)),
                None,
            ) if id == first_id => Polled::RecordsThenDone {
                id,
                status,
                records,
            },
            (first, next, third) => {
                let out = Array::new();
                let rest = std::iter::from_fn(|| self.inner.poll_event());
                let events = std::iter::once((first_id, first)).chain(next).chain(third);
                for (id, event) in events.chain(rest) {
                    let id = id_number(id);
                    match &event {
                        Event::Response {
                            response: ApiResponse::Records { status, records },
                            ..
                        } => {
                            shape_push_records_event(&out, id, *status, &raw_array_text(records));
                        }
                        Event::Done => shape_push_done_event(&out, id),
                        _ => shape_push_call_event(&out, id, event_to_js(&event)),
                    }
                }
                Polled::List(out)
            }
        }
    }
}

/// The handle of `transmit`'s request as JavaScript gets it: the address
/// wasm-bindgen gives a `ClientRequest` it hands over (32 bits on wasm32),
/// which the package's `Client` class (js/driver.js) wraps and releases,
/// so no finalizer is registered per request.
pub(crate) fn request_handle(transmit: Transmit) -> u32 {
    let handle = JsClientRequest {
        inner: transmit.request,
        attempt: AttemptState::default(),
    }
    .into_abi();
    u32::try_from(handle.into_usize()).unwrap_or(0)
}

/// A call id as a JavaScript number (ids count up from 1, far below 2^53).
pub(crate) fn id_number(id: CallId) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let number = id.0 as f64;
    number
}
