//! The fast paths of the client driver for the package's `Client` class
//! (js/driver.js): the common shapes cross as bytes and numbers instead of
//! objects built member by member across the boundary.
//!
//! * On the way in, a spec or a response is written by `js/shapes.js` into
//!   the scratch buffer (`scratchView`) and read there (`startScratch`,
//!   `handleScratch`).
//! * On the way out, one due request (`pollTransmitsMailbox`), or a page
//!   of records followed by its call's end (`pollEventsMailbox`), leaves
//!   numbers in the mailbox (`mailboxView`) and the records' JSON text in
//!   the scratch buffer; anything else is the list `pollTransmits` or
//!   `pollEvents` gives, handed to `stash` in `js/shapes.js`.
//!
//! These calls are not part of the typed API (`skip_typescript`); every
//! rule stays in the core, and every other shape takes the checked
//! member-by-member path with its error sentences.

use crate::client::{client_error, spec_from_text, status_from_js};
use crate::driver::{call_id_from_js, id_number, request_handle, JsClient, Polled};
use crate::error::Failure;
use crate::events::{raw_array_length, raw_array_parts};
use crate::js;
use acd_core::client::{HttpResponse, Outcome};
use js_sys::{Array, Uint8Array};
use serde_json::value::RawValue;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(raw_module = "../js/shapes.js")]
extern "C" {
    /// Keeps `list` for the package's `Client` class to take.
    #[wasm_bindgen(js_name = stash)]
    fn shape_stash(list: Array);
}

/// The scratch buffer's first size, in bytes; it grows to what a call needs.
const SCRATCH_BYTES: usize = 1024;

/// Slots of the mailbox (f64s). After `pollTransmitsMailbox` returned 1:
/// the call id, then the request's handle. After `pollEventsMailbox`
/// returned a length: the call id, the page's status, then the scratch
/// buffer's address and length (the package's view of it is stale when
/// they differ).
pub const MAILBOX_SLOTS: usize = 4;

/// `startScratch` when the text was not read (see there).
const NOT_READ: f64 = -1.0;

/// `pollEventsMailbox` when the events were handed to `stash`.
const EVENTS_STASHED: f64 = -1.0;
/// `pollEventsMailbox` when there were no events.
const NO_EVENTS: f64 = -2.0;

#[wasm_bindgen(js_class = Client)]
impl JsClient {
    /// A view of the scratch buffer, at least `atLeast` bytes long (the
    /// buffer grows when it is shorter). The view stays valid until the
    /// next `scratchView` or until the module's memory grows (its length
    /// then reads 0). For the package's `Client` class.
    #[wasm_bindgen(js_name = scratchView, skip_typescript)]
    pub fn scratch_view(&mut self, at_least: u32) -> Uint8Array {
        let wanted = usize::try_from(at_least).unwrap_or(usize::MAX);
        if self.scratch.len() < wanted.max(SCRATCH_BYTES) {
            self.scratch = vec![0; wanted.max(SCRATCH_BYTES).next_power_of_two()];
        }
        js::memory_view(&self.scratch)
    }

    /// `start` for a spec written by `specText` as `length` UTF-8 bytes at
    /// the start of the scratch buffer, with `separators` NULs between its
    /// fields. Returns -1 (and starts nothing) when the text holds more
    /// NULs (a string of the spec held one): the package then reads the
    /// spec member by member.
    #[wasm_bindgen(js_name = startScratch, skip_typescript)]
    pub fn start_scratch(&mut self, length: u32, separators: u32) -> Result<f64, JsValue> {
        let text = scratch_text(&self.scratch, 0, length)?;
        if !js::has_separators(text, separators) {
            return Ok(NOT_READ);
        }
        let spec = spec_from_text(text)?;
        let id = self
            .inner
            .start(spec)
            .map_err(|error| client_error(&error))?;
        Ok(id_number(id))
    }

    /// `handle` for a response written to the scratch buffer: the
    /// `pairsText` of its headers (`headersLength` UTF-8 bytes, with
    /// `separators` NULs between its fields), then its body (`bodyLength`
    /// bytes). Returns false (and handles nothing) when the headers' text
    /// holds more NULs (a name or value held one): the package then reads
    /// the outcome member by member.
    #[wasm_bindgen(js_name = handleScratch, skip_typescript)]
    pub fn handle_scratch(
        &mut self,
        id: f64,
        status: f64,
        headers_length: u32,
        body_length: u32,
        separators: u32,
        now_ms: f64,
    ) -> Result<bool, JsValue> {
        let id = call_id_from_js(id)?;
        let now = js::millis_from_js(now_ms, "nowMs")?;
        let text = scratch_text(&self.scratch, 0, headers_length)?;
        if !js::has_separators(text, separators) {
            return Ok(false);
        }
        let headers = js::pairs_from_text(text);
        let body = scratch_bytes(&self.scratch, headers_length, body_length)?.to_vec();
        let response = HttpResponse {
            status: status_from_js(Some(status), "outcome")?,
            headers,
            body,
        };
        self.inner
            .handle(id, Outcome::Response(response), now)
            .map_err(|error| client_error(&error))?;
        Ok(true)
    }

    /// A view of the mailbox's bytes (`MAILBOX_SLOTS` little-endian f64s),
    /// valid until the module's memory grows (its length then reads 0).
    #[wasm_bindgen(js_name = mailboxView, skip_typescript)]
    pub fn mailbox_view(&self) -> Uint8Array {
        js::memory_view_at(
            self.mailbox.as_ptr() as usize,
            std::mem::size_of_val(&*self.mailbox),
        )
    }

    /// `pollTransmits` for the package's `Client` class: 0 when nothing is
    /// due; 1 when one request is, its call id and handle in the mailbox;
    /// 2 when more are, their list (as `pollTransmits` gives it) handed to
    /// `stash`.
    #[wasm_bindgen(js_name = pollTransmitsMailbox, skip_typescript)]
    pub fn poll_transmits_mailbox(&mut self, now_ms: f64) -> Result<u32, JsValue> {
        let now = js::millis_from_js(now_ms, "nowMs")?;
        let Some(first) = self.inner.poll_transmit(now) else {
            return Ok(0);
        };
        if let Some(second) = self.inner.poll_transmit(now) {
            shape_stash(self.transmit_list([first, second], now));
            return Ok(2);
        }
        self.post([id_number(first.id), f64::from(request_handle(first))]);
        Ok(1)
    }

    /// `pollEvents` for the package's `Client` class: when the events are a
    /// page of records of one call and then its `done`, and nothing else,
    /// the records' JSON array goes to the scratch buffer, the call id, the
    /// status and the buffer's address and length to the mailbox, and the
    /// text's length in bytes is returned; -2 when there are no events;
    /// otherwise -1, with the list (as `pollEvents` gives it) handed to
    /// `stash`.
    #[wasm_bindgen(js_name = pollEventsMailbox, skip_typescript)]
    pub fn poll_events_mailbox(&mut self) -> f64 {
        match self.take_events() {
            Polled::Nothing => NO_EVENTS,
            Polled::List(list) => {
                shape_stash(list);
                EVENTS_STASHED
            }
            Polled::RecordsThenDone {
                id,
                status,
                records,
            } => {
                let length = self.put_records(&records);
                self.post([
                    id_number(id),
                    f64::from(status),
                    address_number(self.scratch.as_ptr()),
                    length_number(self.scratch.len()),
                ]);
                length_number(length)
            }
        }
    }
}

impl JsClient {
    /// Writes `numbers` to the first slots of the mailbox.
    fn post<const N: usize>(&mut self, numbers: [f64; N]) {
        for (slot, number) in self.mailbox.iter_mut().zip(numbers) {
            *slot = number;
        }
    }

    /// Writes `records` as one JSON array at the start of the scratch
    /// buffer (which grows when it is too short; the package then takes a
    /// fresh view, as the mailbox tells it the buffer's new address and
    /// length); returns its length.
    fn put_records(&mut self, records: &[Box<RawValue>]) -> usize {
        let length = raw_array_length(records);
        if self.scratch.len() < length.max(SCRATCH_BYTES) {
            self.scratch = vec![0; length.max(SCRATCH_BYTES).next_power_of_two()];
        }
        // The buffer holds `length` bytes, so every part finds its place.
        let mut at = 0;
        for part in raw_array_parts(records) {
            let end = at + part.len();
            if let Some(target) = self.scratch.get_mut(at..end) {
                target.copy_from_slice(part.as_bytes());
            }
            at = end;
        }
        length
    }
}

/// An address in the module's memory as a JavaScript number.
fn address_number(address: *const u8) -> f64 {
    length_number(address as usize)
}

/// A byte count of the module's memory (below 2^32) as a JavaScript number.
fn length_number(length: usize) -> f64 {
    f64::from(u32::try_from(length).unwrap_or(u32::MAX))
}

/// `length` bytes of `scratch` from `start`; a failure when the package
/// asked for more than the buffer holds.
fn scratch_bytes(scratch: &[u8], start: u32, length: u32) -> Result<&[u8], Failure> {
    let start = usize::try_from(start).unwrap_or(usize::MAX);
    let length = usize::try_from(length).unwrap_or(usize::MAX);
    start
        .checked_add(length)
        .and_then(|end| scratch.get(start..end))
        .ok_or_else(|| {
            Failure::argument("the scratch buffer holds fewer bytes than were announced")
        })
}

/// `scratch_bytes` as UTF-8 text.
fn scratch_text(scratch: &[u8], start: u32, length: u32) -> Result<&str, Failure> {
    std::str::from_utf8(scratch_bytes(scratch, start, length)?)
        .map_err(|_| Failure::argument("the scratch buffer does not hold UTF-8 text"))
}
