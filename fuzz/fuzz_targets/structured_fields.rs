//! The structured-field parser (RFC 9651 lists, as `RateLimit` and
//! `RateLimit-Policy` carry them) on arbitrary bytes: the whole input is the
//! value of both headers.
#![no_main]

use acd_core::client::parse_rate_limit_headers;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let value = String::from_utf8_lossy(bytes).into_owned();
    let headers = vec![
        ("RateLimit-Policy".to_owned(), value.clone()),
        ("RateLimit".to_owned(), value),
    ];
    let _ = parse_rate_limit_headers(&headers, 1_700_000_000_000);
});
