//! The uniffi bindings generator, built from the same uniffi version as
//! `acd-ffi` so the generated Python and Kotlin always match the library.
//!
//! maturin finds this binary by its name (`uniffi-bindgen`, a bin target of
//! a workspace package) and runs it with `cargo run`; the scripts call it as
//! `target/debug/uniffi-bindgen generate --library ...`.

fn main() {
    uniffi::uniffi_bindgen_main()
}
