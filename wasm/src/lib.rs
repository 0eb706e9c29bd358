//! # acd-wasm
//!
//! acd for JavaScript: a thin wasm-bindgen layer over acd-core, built into
//! the npm package under `wasm/pkg` (browsers and Node). It converts values
//! and forwards; no rule, bound, default or sentence is written here.
//!
//! * [`client`]: the client role (`Client`, `ClientRequest`).
//! * [`response`]: interpreted responses (`ApiResponse`) and result objects.
//! * [`lowlevel`]: `Throttle`, `RetryPlanner` and the header parsers.
//! * [`gate`]: the server role (`Gate`, `Admitted`, `GateResponse`).
//! * [`error`]: failures as JavaScript `Error` subclasses with a `code`.
//! * [`js`]: conversions between JavaScript values and Rust data.
//!
//! Time is a JavaScript number of Unix milliseconds passed to every call
//! that needs it; only the `*Now` conveniences read the clock (`web-time`).
//! Names are camelCase in JavaScript; configuration documents (`GateConfig`)
//! keep the snake_case JSON shared with the sandbox and the vectors.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "client")]
pub mod client;
pub mod error;
#[cfg(feature = "gate")]
pub mod gate;
pub mod js;
#[cfg(feature = "client")]
pub mod lowlevel;
#[cfg(feature = "client")]
pub mod response;
mod types;

use wasm_bindgen::prelude::*;

/// The current time in Unix milliseconds (`Date.now()`), for callers that
/// want the clock read at the edge.
#[wasm_bindgen(js_name = nowMs)]
pub fn now_ms() -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let now = js::current_unix_ms() as f64;
    now
}

/// The version of acd this package was built from.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}
