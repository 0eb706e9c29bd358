//! `Retry-After` (whole seconds or an HTTP-date, read against `Date`) and the
//! HTTP-date parser on arbitrary bytes: the first line is the `Retry-After`
//! value, the second the `Date` value.
#![no_main]

use acd_core::client::parse_rate_limit_headers;
use acd_core::http_date::parse_http_date;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let text = String::from_utf8_lossy(bytes);
    let mut lines = text.splitn(2, '\n');
    let retry_after = lines.next().unwrap_or_default();
    let date = lines.next().unwrap_or_default();
    let _ = parse_http_date(retry_after);
    let _ = parse_http_date(date);
    let now = acd_core::UnixMillis::new(1_700_000_000_000);
    let mut headers = vec![("Retry-After".to_owned(), retry_after.to_owned())];
    if !date.is_empty() {
        headers.push(("Date".to_owned(), date.to_owned()));
    }
    let parsed = parse_rate_limit_headers(&headers, now);
    if let Some(at) = parsed.retry_at {
        assert!(at >= now, "Retry-After points into the past: {at}");
    }
});
