//! `ApiIndex::from_json` (parse and check the index) on arbitrary bytes; an
//! index it accepts must serialise and read back to the same value.
#![no_main]

use acd_core::model::ApiIndex;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(index) = ApiIndex::from_json(bytes) {
        let again = ApiIndex::from_json(&index.to_bytes());
        assert!(again.as_ref().ok() == Some(&index), "{again:?}");
    }
});
