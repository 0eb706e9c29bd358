//! The client's state machines for JavaScript: `Call`, `Pager`, `RunPoller`.
//!
//! Each has `poll(client, nowMs)`, which answers a `Step`
//! (`{kind: "send", request}`, `{kind: "wait", until}`, `{kind: "awaiting"}`
//! or `{kind: "done"}`), and `handle(client, outcome, nowMs)`, which takes
//! the outcome of the request in flight and reports what it did. The caller
//! owns the transport and the clock.

use crate::client::{client_error, outcome_from_js, spec_from_js, JsClient, JsClientRequest};
use crate::error::Failure;
use crate::js::{self, get, object};
use crate::response::{cause_to_js, records_to_js, result_to_js};
use acd_core::client::{
    Call, CallEvent, ConnectionPagerOptions, EgressMode, Pager, PagerEvent, PagingMode, PollEvent,
    PollOptions, RunPoller, Step, TablePagerOptions,
};
use wasm_bindgen::prelude::*;

fn step_to_js(step: Step) -> JsValue {
    match step {
        Step::Send(request) => object(&[
            ("kind", "send".into()),
            ("request", JsClientRequest { inner: *request }.into()),
        ]),
        Step::WaitUntil(until) => {
            object(&[("kind", "wait".into()), ("until", js::u64_to_js(until))])
        }
        Step::AwaitingResponse => object(&[("kind", "awaiting".into())]),
        Step::Done => object(&[("kind", "done".into())]),
    }
    .into()
}

fn optional_u64(value: &JsValue, what: &str) -> Result<Option<u64>, Failure> {
    match value.as_f64() {
        Some(number) => js::millis_from_js(number, what).map(Some),
        None if js::is_absent(value) => Ok(None),
        None => Err(Failure::argument(format!("{what} must be a number"))),
    }
}

fn optional_bool(value: &JsValue, what: &str) -> Result<Option<bool>, Failure> {
    match value.as_bool() {
        Some(flag) => Ok(Some(flag)),
        None if js::is_absent(value) => Ok(None),
        None => Err(Failure::argument(format!("{what} must be a boolean"))),
    }
}

/// One logical call of one request, retries included.
#[wasm_bindgen(js_name = Call)]
pub struct JsCall {
    inner: Call,
}

#[wasm_bindgen(js_class = Call)]
impl JsCall {
    /// A call of an already built request (the request object stays usable).
    #[wasm_bindgen(constructor)]
    pub fn new(request: &JsClientRequest) -> JsCall {
        JsCall {
            inner: Call::new(request.inner.clone()),
        }
    }

    /// What to do at `nowMs`: send (the send is recorded), wait, or nothing.
    #[wasm_bindgen(unchecked_return_type = "Step")]
    pub fn poll(
        &mut self,
        client: &mut JsClient,
        #[wasm_bindgen(js_name = nowMs)] now_ms: f64,
    ) -> Result<JsValue, JsValue> {
        let now = js::millis_from_js(now_ms, "nowMs")?;
        Ok(step_to_js(self.inner.poll(&mut client.inner, now)))
    }

    /// Takes the outcome of the attempt in flight: `{kind: "retrying", at,
    /// attempt, cause}` or `{kind: "finished", ok, response | error}`;
    /// `undefined` when nothing is in flight.
    #[wasm_bindgen(unchecked_return_type = "CallEvent | undefined")]
    pub fn handle(
        &mut self,
        client: &mut JsClient,
        #[wasm_bindgen(unchecked_param_type = "OutcomeInit")] outcome: JsValue,
        #[wasm_bindgen(js_name = nowMs)] now_ms: f64,
    ) -> Result<JsValue, JsValue> {
        let now = js::millis_from_js(now_ms, "nowMs")?;
        let outcome = outcome_from_js(&outcome)?;
        Ok(match self.inner.handle(&mut client.inner, &outcome, now) {
            None => JsValue::UNDEFINED,
            Some(CallEvent::Retrying { at, attempt, cause }) => object(&[
                ("kind", "retrying".into()),
                ("at", js::u64_to_js(at)),
                ("attempt", attempt.into()),
                ("cause", cause_to_js(&cause)),
            ])
            .into(),
            Some(CallEvent::Finished(result)) => result_to_js("finished", result).into(),
        })
    }

    /// Whether the call is over.
    #[wasm_bindgen(getter, js_name = isFinished)]
    pub fn is_finished(&self) -> bool {
        self.inner.is_finished()
    }
}

/// Pages through a table's or a connection's records, waiting for the
/// throttle between pages instead of meeting a 429.
#[wasm_bindgen(js_name = Pager)]
pub struct JsPager {
    inner: Pager,
}

#[wasm_bindgen(js_class = Pager)]
impl JsPager {
    /// A pager over table `table`. Options: `pageSize` (1 to 5000),
    /// `orderBy` (keyset paging when ascending), `descending`, `offsetOnly`,
    /// `credential` (an id).
    pub fn table(
        table: String,
        #[wasm_bindgen(unchecked_param_type = "TablePagerOptionsInit")] options: Option<JsValue>,
    ) -> Result<JsPager, JsValue> {
        let options = options.unwrap_or(JsValue::UNDEFINED);
        let defaults = TablePagerOptions::default();
        let options = TablePagerOptions {
            page_size: optional_u64(&get(&options, "pageSize"), "options.pageSize")?
                .unwrap_or(defaults.page_size),
            order_by: js::optional_string(&get(&options, "orderBy"), "options.orderBy")?,
            descending: optional_bool(&get(&options, "descending"), "options.descending")?
                .unwrap_or(defaults.descending),
            offset_only: optional_bool(&get(&options, "offsetOnly"), "options.offsetOnly")?
                .unwrap_or(defaults.offset_only),
            credential: js::optional_string(&get(&options, "credential"), "options.credential")?,
        };
        Ok(JsPager {
            inner: Pager::table(table, options),
        })
    }

    /// A pager over `connection`'s records of `entity`. Options: `pageSize`
    /// (1 to 500), `filter` (JSON text), `egress`, `credential`.
    pub fn connection(
        connection: String,
        entity: String,
        #[wasm_bindgen(unchecked_param_type = "ConnectionPagerOptionsInit")] options: Option<
            JsValue,
        >,
    ) -> Result<JsPager, JsValue> {
        let options = options.unwrap_or(JsValue::UNDEFINED);
        let defaults = ConnectionPagerOptions::default();
        let egress =
            match js::optional_string(&get(&options, "egress"), "options.egress")?.as_deref() {
                None | Some("default") => EgressMode::Default,
                Some("header") => EgressMode::Header,
                Some("url") => EgressMode::Url,
                Some(_) => {
                    return Err(Failure::argument(
                        "options.egress must be \"default\", \"header\" or \"url\"",
                    )
                    .into())
                }
            };
        let options = ConnectionPagerOptions {
            page_size: optional_u64(&get(&options, "pageSize"), "options.pageSize")?
                .unwrap_or(defaults.page_size),
            filter: js::optional_string(&get(&options, "filter"), "options.filter")?,
            egress,
            credential: js::optional_string(&get(&options, "credential"), "options.credential")?,
        };
        Ok(JsPager {
            inner: Pager::connection(connection, entity, options),
        })
    }

    /// What to do at `nowMs`. Throws `AcdRequestError` when the page request
    /// cannot be built (e.g. an invalid page size); paging then stops.
    #[wasm_bindgen(unchecked_return_type = "Step")]
    pub fn poll(
        &mut self,
        client: &mut JsClient,
        #[wasm_bindgen(js_name = nowMs)] now_ms: f64,
    ) -> Result<JsValue, JsValue> {
        let now = js::millis_from_js(now_ms, "nowMs")?;
        self.inner
            .poll(&mut client.inner, now)
            .map(step_to_js)
            .map_err(|error| client_error(&error))
    }

    /// Takes the outcome of the page request in flight: `{kind: "page",
    /// records, recordsJson, last}`, `{kind: "retrying", at, cause}` or
    /// `{kind: "failed", error}`; `undefined` when nothing is in flight.
    #[wasm_bindgen(unchecked_return_type = "PagerEvent | undefined")]
    pub fn handle(
        &mut self,
        client: &mut JsClient,
        #[wasm_bindgen(unchecked_param_type = "OutcomeInit")] outcome: JsValue,
        #[wasm_bindgen(js_name = nowMs)] now_ms: f64,
    ) -> Result<JsValue, JsValue> {
        let now = js::millis_from_js(now_ms, "nowMs")?;
        let outcome = outcome_from_js(&outcome)?;
        Ok(match self.inner.handle(&mut client.inner, &outcome, now) {
            None => JsValue::UNDEFINED,
            Some(PagerEvent::Page { records, last }) => {
                let json: js_sys::Array = records
                    .iter()
                    .map(|record| JsValue::from_str(record.get()))
                    .collect();
                object(&[
                    ("kind", "page".into()),
                    ("records", records_to_js(&records).into()),
                    ("recordsJson", json.into()),
                    ("last", last.into()),
                ])
                .into()
            }
            Some(PagerEvent::Retrying { at, cause }) => object(&[
                ("kind", "retrying".into()),
                ("at", js::u64_to_js(at)),
                ("cause", cause_to_js(&cause)),
            ])
            .into(),
            Some(PagerEvent::Failed(error)) => {
                object(&[("kind", "failed".into()), ("error", client_error(&error))]).into()
            }
        })
    }

    /// `"offset"` or `"keyset"`.
    #[wasm_bindgen(getter, unchecked_return_type = "\"offset\" | \"keyset\"")]
    pub fn mode(&self) -> String {
        match self.inner.mode() {
            PagingMode::Offset => "offset",
            PagingMode::Keyset => "keyset",
        }
        .into()
    }

    /// Pages delivered so far.
    #[wasm_bindgen(getter)]
    pub fn pages(&self) -> f64 {
        #[allow(clippy::cast_precision_loss)]
        let pages = self.inner.pages() as f64;
        pages
    }

    /// Whether paging is over (last page seen, or failed).
    #[wasm_bindgen(getter, js_name = isFinished)]
    pub fn is_finished(&self) -> bool {
        self.inner.is_finished()
    }
}

/// Polls one agent run about once per second until a terminal state,
/// slowing down on 429s.
#[wasm_bindgen(js_name = RunPoller)]
pub struct JsRunPoller {
    inner: RunPoller,
}

#[wasm_bindgen(js_class = RunPoller)]
impl JsRunPoller {
    /// A poller that reads the run with `spec` (a GET answering `{data: run}`).
    /// Options: `intervalMs`, `jitterPerMille`, `statusField`,
    /// `terminalStates`, `deadlineMs`, `maxIntervalMs`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "RequestSpecInit")] spec: JsValue,
        #[wasm_bindgen(unchecked_param_type = "PollOptionsInit")] options: Option<JsValue>,
    ) -> Result<JsRunPoller, JsValue> {
        let spec = spec_from_js(&spec)?;
        let options = options.unwrap_or(JsValue::UNDEFINED);
        let defaults = PollOptions::default();
        let number = |name: &str, default: u64| -> Result<u64, Failure> {
            Ok(optional_u64(&get(&options, name), &format!("options.{name}"))?.unwrap_or(default))
        };
        let states = get(&options, "terminalStates");
        let terminal_states = if js::is_absent(&states) {
            defaults.terminal_states.clone()
        } else {
            let array = states.dyn_ref::<js_sys::Array>().ok_or_else(|| {
                Failure::argument("options.terminalStates must be an array of strings")
            })?;
            array
                .iter()
                .enumerate()
                .map(|(at, state)| {
                    js::string_from_js(&state, &format!("options.terminalStates[{at}]"))
                })
                .collect::<Result<Vec<_>, _>>()?
        };
        let options = PollOptions {
            interval_ms: number("intervalMs", defaults.interval_ms)?,
            jitter_per_mille: number("jitterPerMille", defaults.jitter_per_mille)?,
            status_field: js::optional_string(
                &get(&options, "statusField"),
                "options.statusField",
            )?
            .unwrap_or(defaults.status_field),
            terminal_states,
            deadline_ms: number("deadlineMs", defaults.deadline_ms)?,
            max_interval_ms: number("maxIntervalMs", defaults.max_interval_ms)?,
        };
        Ok(JsRunPoller {
            inner: RunPoller::new(spec, options),
        })
    }

    /// What to do at `nowMs`. Throws `AcdRequestError` when the poll request
    /// cannot be built; polling then stops.
    #[wasm_bindgen(unchecked_return_type = "Step")]
    pub fn poll(
        &mut self,
        client: &mut JsClient,
        #[wasm_bindgen(js_name = nowMs)] now_ms: f64,
    ) -> Result<JsValue, JsValue> {
        let now = js::millis_from_js(now_ms, "nowMs")?;
        self.inner
            .poll(&mut client.inner, now)
            .map(step_to_js)
            .map_err(|error| client_error(&error))
    }

    /// Takes the outcome of the poll in flight: `{kind: "status", state,
    /// terminal, run}`, `{kind: "retrying", at, cause}`, `{kind: "failed",
    /// error}` or `{kind: "deadlineReached", deadlineAt, lastState}`.
    #[wasm_bindgen(unchecked_return_type = "PollEvent | undefined")]
    pub fn handle(
        &mut self,
        client: &mut JsClient,
        #[wasm_bindgen(unchecked_param_type = "OutcomeInit")] outcome: JsValue,
        #[wasm_bindgen(js_name = nowMs)] now_ms: f64,
    ) -> Result<JsValue, JsValue> {
        let now = js::millis_from_js(now_ms, "nowMs")?;
        let outcome = outcome_from_js(&outcome)?;
        Ok(match self.inner.handle(&mut client.inner, &outcome, now) {
            None => JsValue::UNDEFINED,
            Some(PollEvent::Status {
                state,
                terminal,
                run,
            }) => object(&[
                ("kind", "status".into()),
                ("state", state.into()),
                ("terminal", terminal.into()),
                ("run", js::parse_json_js(run.get())),
            ])
            .into(),
            Some(PollEvent::Retrying { at, cause }) => object(&[
                ("kind", "retrying".into()),
                ("at", js::u64_to_js(at)),
                ("cause", cause_to_js(&cause)),
            ])
            .into(),
            Some(PollEvent::Failed(error)) => {
                object(&[("kind", "failed".into()), ("error", client_error(&error))]).into()
            }
            Some(PollEvent::DeadlineReached {
                deadline_at,
                last_state,
            }) => object(&[
                ("kind", "deadlineReached".into()),
                ("deadlineAt", js::u64_to_js(deadline_at)),
                (
                    "lastState",
                    last_state.map_or(JsValue::UNDEFINED, JsValue::from),
                ),
            ])
            .into(),
        })
    }

    /// Polls answered so far.
    #[wasm_bindgen(getter)]
    pub fn polls(&self) -> f64 {
        #[allow(clippy::cast_precision_loss)]
        let polls = self.inner.polls() as f64;
        polls
    }

    /// Whether polling is over.
    #[wasm_bindgen(getter, js_name = isFinished)]
    pub fn is_finished(&self) -> bool {
        self.inner.is_finished()
    }
}
