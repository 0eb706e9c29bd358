//! The client's `interpret` on arbitrary response bytes (status line, header
//! lines, body), for every catalogue operation.
#![no_main]

use acd_core::client::{interpret, HttpResponse};
use acd_core::model::Catalogue;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let message = acd_fuzz::message(bytes);
    let status = acd_fuzz::decimal(message.first)
        .and_then(|status| u16::try_from(status).ok())
        .unwrap_or(200);
    let response = HttpResponse {
        status,
        headers: acd_fuzz::text_headers(&message.headers),
        body: message.body.to_vec(),
    };
    for operation in Catalogue::standard().operations() {
        let _ = interpret(operation, &response);
    }
});
