//! The uniffi bindings generator, built from the same uniffi version as the
//! library so the generated Python and Kotlin always match it.

fn main() {
    uniffi::uniffi_bindgen_main()
}
