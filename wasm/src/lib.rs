//! # acd-wasm
//!
//! acd for JavaScript: a thin wasm-bindgen layer over acd-core, built into
//! the npm package under `wasm/pkg` (browsers and Node). It converts values
//! and forwards; no rule, bound, default or sentence is written here.
//!
//! * [`driver`]: the client role's one driver (`Client`): start calls,
//!   `pollTransmits`, `handle`, `pollEvents`, `pollTimeout`.
//! * [`events`]: its events and interpreted responses as plain objects.
//! * [`fast_path`]: the driver's calls for the package's `Client` class,
//!   where the common shapes cross as bytes and numbers.
//! * [`client`]: the values it reads and hands out (`ClientRequest`).
//! * [`lowlevel`]: `Throttle`, `RetryPlanner` and the header parsers.
//! * [`sim`]: the virtual-time simulation (`simulate`).
//! * [`gate`]: the server role (`Gate`, `Admitted`, `GateResponse`).
//! * [`error`]: failures as JavaScript `Error` subclasses with a `code`.
//! * [`js`]: conversions between JavaScript values and Rust data.
//!
//! Time is a JavaScript number of Unix milliseconds passed to every call
//! that needs it; only the `*Now` conveniences read the clock (`web-time`).
//! Names are camelCase in JavaScript, configuration included (the
//! snake_case of the documents shared with the sandbox and the vectors is
//! accepted too); every discriminated union is tagged by `type`.
// The one module with `unsafe` is the allocator (`small_blocks`), and it
// says why each step is sound; everything else is safe code. (The memory
// routines of the speed-first module are crate acd-wasm-mem.)
#![deny(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "client")]
pub mod client;
#[cfg(feature = "client")]
pub mod driver;
pub mod error;
#[cfg(feature = "client")]
pub mod events;
#[cfg(feature = "client")]
pub mod fast_path;
#[cfg(feature = "gate")]
pub mod gate;
pub mod js;
#[cfg(feature = "lowlevel")]
pub mod lowlevel;
mod member_names;
#[cfg(feature = "sim")]
pub mod sim;
pub mod small_blocks;
#[cfg(all(feature = "gate", feature = "client"))]
pub mod test_server;
mod types;
#[cfg(feature = "client")]
pub mod wire;

// The speed-first module's memcpy, memmove, memset and memcmp (linked for
// their C symbols; nothing here calls them by name).
#[cfg(all(target_family = "wasm", feature = "mem-routines"))]
use acd_wasm_mem as _;

use wasm_bindgen::prelude::*;

// The modules' allocator: talc, which is faster and smaller than the
// default of wasm32 (dlmalloc). The speed-first module keeps freed small
// blocks for reuse in front of it (`small_blocks`, feature `block-cache`):
// allocation was a fifth of a client call's time in wasm with talc alone.
// The size-first client module does without the cache (about 500 bytes).
#[cfg(all(
    target_family = "wasm",
    not(target_feature = "atomics"),
    feature = "block-cache"
))]
#[global_allocator]
static ALLOCATOR: small_blocks::SmallBlocks<talc::wasm::WasmDynamicTalc> =
    small_blocks::SmallBlocks::new(talc::wasm::new_wasm_dynamic_allocator());
#[cfg(all(
    target_family = "wasm",
    not(target_feature = "atomics"),
    not(feature = "block-cache")
))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

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
