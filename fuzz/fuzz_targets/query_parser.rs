//! The query parser on arbitrary raw query bytes, against the parameters of
//! every catalogue operation.
#![no_main]

use acd_core::model::parse_query;
use acd_core::model::Catalogue;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let catalogue = Catalogue::standard();
    for operation in catalogue.operations() {
        let _ = parse_query(bytes, &operation.params);
    }
});
