//! HTTP-date (RFC 9110 §5.6.7) conversions to and from Unix seconds.
//!
//! A thin wrapper over the `httpdate` crate. `std::time::SystemTime` appears
//! here only as the crate's exchange type built from the caller's numbers;
//! no clock is ever read.

use std::time::{Duration, UNIX_EPOCH};

/// Formats Unix seconds as an IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
///
/// Returns `None` for instants the format cannot express (after year 9999).
pub fn format_http_date(unix_seconds: u64) -> Option<String> {
    // httpdate supports years up to 9999.
    const MAX_SECONDS: u64 = 253_402_300_799;
    if unix_seconds > MAX_SECONDS {
        return None;
    }
    let instant = UNIX_EPOCH.checked_add(Duration::from_secs(unix_seconds))?;
    Some(httpdate::fmt_http_date(instant))
}

/// Parses any of the three HTTP-date forms (IMF-fixdate, RFC 850, asctime)
/// into Unix seconds. Returns `None` for anything else or dates before 1970.
pub fn parse_http_date(text: &str) -> Option<u64> {
    let instant = httpdate::parse_http_date(text.trim()).ok()?;
    instant
        .duration_since(UNIX_EPOCH)
        .ok()
        .map(|elapsed| elapsed.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_parses_all_three_forms() {
        assert_eq!(
            format_http_date(784_111_777).as_deref(),
            Some("Sun, 06 Nov 1994 08:49:37 GMT")
        );
        assert_eq!(
            parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(784_111_777)
        );
        assert_eq!(
            parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"),
            Some(784_111_777)
        );
        assert_eq!(
            parse_http_date("Sun Nov  6 08:49:37 1994"),
            Some(784_111_777)
        );
        assert_eq!(parse_http_date("yesterday"), None);
        assert_eq!(format_http_date(u64::MAX), None);
    }
}
