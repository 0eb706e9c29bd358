//! The few conversions at the edge: a JavaScript number as Unix
//! milliseconds, and bytes from the platform's random generator. Sentences
//! name the argument and what was passed, never the value.

use crate::error::Failure;
use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::JsCast;

/// The largest integer a JavaScript number holds exactly (2^53 − 1).
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Checks that `value` (a JavaScript number) is a whole number of
/// milliseconds in `0..=2^53−1`, as every time argument must be.
pub fn millis_from_js(value: f64, what: &str) -> Result<u64, Failure> {
    // The range check comes first, so the cast below is exact.
    #[allow(clippy::cast_precision_loss)]
    let in_range = value.is_finite() && value >= 0.0 && value <= MAX_SAFE_INTEGER as f64;
    if !in_range || value.fract() != 0.0 {
        let got = if value.is_nan() {
            "NaN"
        } else if !value.is_finite() {
            "an infinite number"
        } else if value < 0.0 {
            "a negative number"
        } else if value.fract() != 0.0 {
            "a fraction"
        } else {
            "a number above 2^53-1"
        };
        return Err(Failure::argument(format!(
            "{what} must be a whole number of Unix milliseconds between 0 and 2^53-1 \
             (e.g. Date.now()), got {got}"
        )));
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Ok(value as u64)
}

/// `N` bytes from `crypto.getRandomValues`; `instead` says what to do
/// on a platform without it.
pub fn platform_random<const N: usize>(instead: &str) -> Result<[u8; N], Failure> {
    let missing = || {
        Failure::argument(format!(
            "this platform has no crypto.getRandomValues: {instead}"
        ))
    };
    let crypto = Reflect::get(&js_sys::global(), &"crypto".into()).map_err(|_| missing())?;
    let fill = Reflect::get(&crypto, &"getRandomValues".into())
        .ok()
        .and_then(|fill| fill.dyn_into::<js_sys::Function>().ok())
        .ok_or_else(missing)?;
    let length = u32::try_from(N).map_err(|_| missing())?;
    let bytes = Uint8Array::new_with_length(length);
    fill.call1(&crypto, &bytes).map_err(|_| missing())?;
    let mut out = [0u8; N];
    bytes.copy_to(&mut out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_arguments_are_whole_milliseconds_within_2_pow_53() {
        assert_eq!(
            millis_from_js(1_700_000_000_000.0, "nowMs"),
            Ok(1_700_000_000_000)
        );
        for (value, got) in [
            (-1.0, "a negative number"),
            (1.5, "a fraction"),
            (f64::NAN, "NaN"),
        ] {
            let failure = millis_from_js(value, "nowMs").unwrap_err();
            assert_eq!(failure.class, "AcdArgumentError");
            assert!(
                failure.message.ends_with(&format!("got {got}")),
                "{}",
                failure.message
            );
        }
    }
}
