//! How error sentences write times: an instant as an RFC 3339 date in UTC
//! ([`date_text`], e.g. `2023-11-14T22:23:20Z`) and a span as a duration a
//! person reads at a glance ([`duration_text`], e.g. `1.5 s`, `10 min`).
//! Every sentence of [`super::ClientError`] uses these two, never raw
//! Unix milliseconds.

use crate::UnixMillis;

/// `at` as an RFC 3339 date in UTC, with milliseconds only when not zero
/// (`2023-11-14T22:13:20Z`, `2023-11-14T22:13:20.500Z`).
pub fn date_text(at: UnixMillis) -> String {
    let millis = at.as_millis();
    let seconds = millis / 1000;
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    let (year, month, day) = civil_from_days(days);
    let (hour, minute, second) = (rest / 3600, rest % 3600 / 60, rest % 60);
    let fraction = match millis % 1000 {
        0 => String::new(),
        ms => format!(".{ms:03}"),
    };
    format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}{fraction}Z")
}

/// The civil date of `days` after 1970-01-01 (H. Hinnant's algorithm; every
/// step stays in range, the saturating forms only satisfy the lint).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days.saturating_add(719_468);
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = doe
        .saturating_sub(doe / 1460)
        .saturating_add(doe / 36_524)
        .saturating_sub(doe / 146_096)
        / 365;
    let year_start = yoe
        .saturating_mul(365)
        .saturating_add(yoe / 4)
        .saturating_sub(yoe / 100);
    let doy = doe.saturating_sub(year_start);
    let mp = doy.saturating_mul(5).saturating_add(2) / 153;
    let day = doy
        .saturating_sub(mp.saturating_mul(153).saturating_add(2) / 5)
        .saturating_add(1);
    let month = if mp < 10 {
        mp.saturating_add(3)
    } else {
        mp.saturating_sub(9)
    };
    let year = era
        .saturating_mul(400)
        .saturating_add(yoe)
        .saturating_add(u64::from(month <= 2));
    (year, month, day)
}

/// `ms` as a duration: `250 ms`, `1.5 s`, `2 min 5 s`, `3 h 20 min`.
pub fn duration_text(ms: u64) -> String {
    const MINUTE: u64 = 60_000;
    const HOUR: u64 = 60 * MINUTE;
    if ms < 1000 {
        return format!("{ms} ms");
    }
    if ms < MINUTE {
        let tenths = ms.saturating_add(50) / 100;
        return if tenths % 10 == 0 {
            format!("{} s", tenths / 10)
        } else {
            format!("{}.{} s", tenths / 10, tenths % 10)
        };
    }
    let (big, small, big_unit, small_unit) = if ms < HOUR {
        (ms / MINUTE, ms % MINUTE / 1000, "min", "s")
    } else {
        (ms / HOUR, ms % HOUR / MINUTE, "h", "min")
    };
    if small == 0 {
        format!("{big} {big_unit}")
    } else {
        format!("{big} {big_unit} {small} {small_unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_rfc_3339_in_utc() {
        assert_eq!(date_text(UnixMillis::ZERO), "1970-01-01T00:00:00Z");
        assert_eq!(
            date_text(UnixMillis::new(1_700_000_000_000)),
            "2023-11-14T22:13:20Z"
        );
        assert_eq!(
            date_text(UnixMillis::new(951_782_400_500)),
            "2000-02-29T00:00:00.500Z"
        );
        // The end of time still writes a date (no panic, no overflow).
        assert!(date_text(UnixMillis::MAX).ends_with('Z'));
    }

    #[test]
    fn durations_read_as_a_person_says_them() {
        assert_eq!(duration_text(0), "0 ms");
        assert_eq!(duration_text(50), "50 ms");
        assert_eq!(duration_text(1000), "1 s");
        assert_eq!(duration_text(1500), "1.5 s");
        assert_eq!(duration_text(59_999), "60 s");
        assert_eq!(duration_text(120_000), "2 min");
        assert_eq!(duration_text(125_000), "2 min 5 s");
        assert_eq!(duration_text(600_000), "10 min");
        assert_eq!(duration_text(3_600_000), "1 h");
        assert_eq!(duration_text(12_000_000), "3 h 20 min");
        assert!(duration_text(u64::MAX).ends_with("min"));
        assert_eq!(duration_text(3_660_000), "1 h 1 min");
    }
}
