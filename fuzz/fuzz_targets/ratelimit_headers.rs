//! The client's rate-limit header reader (RateLimit-* trio, x-ratelimit-*,
//! RateLimit/RateLimit-Policy structured fields, Retry-After, Date) on
//! arbitrary header lines; the first line is the caller's clock (Unix ms).
#![no_main]

use acd_core::client::parse_rate_limit_headers;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let message = acd_fuzz::message(bytes);
    let now = acd_fuzz::decimal(message.first).unwrap_or(1_700_000_000_000);
    let headers = acd_fuzz::text_headers(&message.headers);
    let parsed = parse_rate_limit_headers(&headers, now);
    for observation in &parsed.observations {
        if let Some(limit) = observation.limit {
            assert!(observation.remaining <= limit);
        }
    }
});
