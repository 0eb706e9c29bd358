//! # acd-wasm
//!
//! acd for JavaScript: a thin wasm-bindgen layer over acd-core, built into
//! the npm package under `wasm/pkg` (browsers and Node). It forwards bytes
//! and JSON text; no rule, bound, default or sentence is written here.
//!
//! * [`wire`]: the client role's driver (`Driver`), the driver protocol of
//!   `docs/driver-protocol.md`: config and call specs in as JSON bytes,
//!   outcomes in as status, header block and body, one batch out per poll.
//! * [`gate`]: the server role, one crossing per decision.
//! * [`sim`]: the virtual-time simulation.
//! * [`test_server`]: the core's test server (`TestServer`), for tests.
//! * [`webhooks`]: webhook verification and signing (the core's JSON form).
//! * [`error`]: failures as the package's `Error` subclasses.
//! * [`js`]: the few conversions at the edge (time, randomness).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod error;
#[cfg(feature = "gate")]
pub mod gate;
pub mod js;
#[cfg(feature = "sim")]
pub mod sim;
#[cfg(all(feature = "gate", feature = "client"))]
pub mod test_server;
pub mod webhooks;
#[cfg(feature = "client")]
pub mod wire;

use wasm_bindgen::prelude::*;

// The modules' allocator: talc, which is faster and smaller than the
// default of wasm32 (dlmalloc).
#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// The version of acd this package was built from.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

/// Core's one list of error categories with the class each language raises
/// for each and the CLI's exit status (`ErrorCategory::classes`), as JSON.
#[wasm_bindgen(js_name = errorCategoriesJson)]
pub fn error_categories_json() -> String {
    acd_core::client::ErrorCategory::table_json()
}

/// A client error in the core's JSON form as the driver protocol's flat
/// error object (what a `failed` event carries), or `None` if it is not one.
#[wasm_bindgen(js_name = clientErrorJson)]
pub fn client_error_json(json: &str) -> Option<String> {
    serde_json::from_str::<acd_core::client::ClientError>(json)
        .ok()
        .map(|error| acd_core::client::wire::ErrorJson(&error).to_json())
}
