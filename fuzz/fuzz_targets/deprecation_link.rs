//! The Deprecation, Sunset and Link (`rel="deprecation"`/`"sunset"`) header
//! readers on arbitrary header lines.
#![no_main]

use acd_core::client::parse_deprecation;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let message = acd_fuzz::message(bytes);
    let mut headers = acd_fuzz::text_headers(&message.headers);
    // The first line is a Link value of its own, so that every input reaches
    // the Link parser.
    headers.push((
        "Link".to_owned(),
        String::from_utf8_lossy(message.first).into_owned(),
    ));
    let _ = parse_deprecation("listTableRecords", &headers);
});
