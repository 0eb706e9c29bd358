//! Conversions between JavaScript values and the plain Rust data the core
//! takes and returns. Nothing here knows a rule of the API.
//!
//! Error sentences name the argument and the JavaScript type that was
//! passed, never the value: a header value or a credential may be a secret.

use crate::error::Failure;
use crate::member_names::snake_case_json;
use js_sys::{Array, Object, Reflect, Uint8Array, JSON};
use serde::de::DeserializeOwned;
use serde_json::Value;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

/// The largest integer a JavaScript number holds exactly (2^53 − 1).
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Checks that `value` (a JavaScript number) is a whole number of
/// milliseconds in `0..=2^53−1`, as every time argument must be.
pub fn millis_from_js(value: f64, what: &str) -> Result<u64, Failure> {
    // The range check comes first, so the cast below is exact.
    #[allow(clippy::cast_precision_loss)]
    let in_range = value.is_finite() && value >= 0.0 && value <= MAX_SAFE_INTEGER as f64;
    if !in_range || value.fract() != 0.0 {
        // The value is described, not printed: float formatting is large in wasm.
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

/// A `u64` as a JavaScript value: a number when exact, else a `BigInt`.
pub fn u64_to_js(value: u64) -> JsValue {
    if value <= MAX_SAFE_INTEGER {
        #[allow(clippy::cast_precision_loss)]
        JsValue::from_f64(value as f64)
    } else {
        JsValue::from(value)
    }
}

/// The current time in Unix milliseconds, read at the edge (web-time:
/// `Date.now()` in browsers and Node, the system clock natively).
pub fn current_unix_ms() -> u64 {
    web_time::SystemTime::now()
        .duration_since(web_time::UNIX_EPOCH)
        .map(|elapsed| u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// What kind of JavaScript value `value` is, for error sentences.
pub fn describe(value: &JsValue) -> &'static str {
    if value.is_undefined() {
        "undefined"
    } else if value.is_null() {
        "null"
    } else if value.is_string() {
        "a string"
    } else if value.as_f64().is_some() {
        "a number"
    } else if value.as_bool().is_some() {
        "a boolean"
    } else if value.is_instance_of::<Uint8Array>() {
        "a Uint8Array"
    } else if Array::is_array(value) {
        "an array"
    } else if value.is_function() {
        "a function"
    } else if value.is_object() {
        "an object"
    } else {
        "a value of another type"
    }
}

/// `object[key]`, or `undefined` when `object` is not an object.
pub fn get(object: &JsValue, key: &str) -> JsValue {
    if !object.is_object() {
        return JsValue::UNDEFINED;
    }
    Reflect::get(object, &JsValue::from_str(wasm_bindgen::intern(key)))
        .unwrap_or(JsValue::UNDEFINED)
}

/// Whether a value counts as absent (`undefined` or `null`).
pub fn is_absent(value: &JsValue) -> bool {
    value.is_undefined() || value.is_null()
}

/// A required string.
pub fn string_from_js(value: &JsValue, what: &str) -> Result<String, Failure> {
    value.as_string().ok_or_else(|| {
        Failure::argument(format!("{what} must be a string, got {}", describe(value)))
    })
}

/// An optional string (`undefined`/`null` give `None`).
pub fn optional_string(value: &JsValue, what: &str) -> Result<Option<String>, Failure> {
    if is_absent(value) {
        Ok(None)
    } else {
        string_from_js(value, what).map(Some)
    }
}

/// Bytes from a string (its UTF-8) or a `Uint8Array` (copied).
pub fn bytes_from_js(value: &JsValue, what: &str) -> Result<Vec<u8>, Failure> {
    if let Some(text) = value.as_string() {
        return Ok(text.into_bytes());
    }
    match value.dyn_ref::<Uint8Array>() {
        Some(array) => Ok(array.to_vec()),
        None => Err(Failure::argument(format!(
            "{what} must be a string or a Uint8Array, got {}",
            describe(value)
        ))),
    }
}

/// `[name, value]` entries from an iterable of pairs (an array of pairs, a
/// `Headers` or a `Map`) or from a plain object `{name: value}`.
/// `undefined`/`null` give none.
pub fn entries_from_js(value: &JsValue, what: &str) -> Result<Vec<(String, JsValue)>, Failure> {
    if is_absent(value) {
        return Ok(Vec::new());
    }
    let not_pairs = || {
        Failure::argument(format!(
            "{what} must be an array of [name, value] pairs, a Headers or Map object, or a \
             plain object, got {}",
            describe(value)
        ))
    };
    if value.is_string() || !value.is_object() {
        return Err(not_pairs());
    }
    let entries: Vec<JsValue> = if let Some(array) = value.dyn_ref::<Array>() {
        // Arrays are read by index: much cheaper than the iterator protocol.
        array.iter().collect()
    } else {
        match js_sys::try_iter(value) {
            Ok(Some(iterator)) => iterator
                .collect::<Result<Vec<_>, _>>()
                .map_err(|_| not_pairs())?,
            Ok(None) => js_sys::Object::entries(value.unchecked_ref())
                .iter()
                .collect(),
            Err(_) => return Err(not_pairs()),
        }
    };
    let mut pairs = Vec::with_capacity(entries.len());
    for (position, entry) in entries.iter().enumerate() {
        let pair = entry.dyn_ref::<Array>().filter(|pair| pair.length() == 2);
        let Some(pair) = pair else {
            return Err(Failure::argument(format!(
                "{what}[{position}] must be a [name, value] pair, got {}",
                describe(entry)
            )));
        };
        let name = pair.get(0).as_string().ok_or_else(|| {
            Failure::argument(format!(
                "{what}[{position}] name must be a string, got {}",
                describe(&pair.get(0))
            ))
        })?;
        pairs.push((name, pair.get(1)));
    }
    Ok(pairs)
}

/// Request headers (values as strings or `Uint8Array`s), see [`entries_from_js`].
pub fn headers_from_js(value: &JsValue, what: &str) -> Result<Vec<(String, Vec<u8>)>, Failure> {
    entries_from_js(value, what)?
        .into_iter()
        .map(|(name, value)| match value.as_string() {
            Some(text) => Ok((name, text.into_bytes())),
            None => {
                let bytes = bytes_from_js(&value, &format!("the value of header {name:?}"))?;
                Ok((name, bytes))
            }
        })
        .collect()
}

#[wasm_bindgen(raw_module = "../js/shapes.js")]
extern "C" {
    /// `pairsText(pairs)` from `js/shapes.js`: an array of string pairs as
    /// one NUL-separated string, or `undefined` for any other shape.
    #[wasm_bindgen(js_name = pairsText)]
    fn pairs_text(pairs: &JsValue) -> Option<String>;
    /// The NULs the last `pairsText` or `specText` put between its fields.
    #[wasm_bindgen(js_name = lastSeparators)]
    fn last_separators() -> u32;
}

/// Whether `text` holds exactly `separators` NULs: the ones the package
/// put between its fields. More mean a string it wrote held a NUL itself,
/// and then the fields cannot be told apart.
pub fn has_separators(text: &str, separators: u32) -> bool {
    let nuls = text.bytes().filter(|&byte| byte == 0).count();
    u32::try_from(nuls).is_ok_and(|nuls| nuls == separators)
}

/// `text`, the result of `pairsText` or `specText` just now, when it can
/// be split into its fields (see `has_separators`).
pub fn separable(text: Option<String>) -> Option<String> {
    text.filter(|text| has_separators(text, last_separators()))
}

/// A `Uint8Array` over `bytes` in the module's own memory: valid while
/// `bytes` stays where it is and the memory does not grow.
pub fn memory_view(bytes: &[u8]) -> js_sys::Uint8Array {
    memory_view_at(bytes.as_ptr() as usize, bytes.len())
}

/// A `Uint8Array` over the `length` bytes at `address` in the module's own
/// memory (the bytes of any value that stays where it is).
pub fn memory_view_at(address: usize, length: usize) -> js_sys::Uint8Array {
    let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    // wasm32 addresses and lengths fit in u32.
    let offset = u32::try_from(address).unwrap_or(0);
    let length = u32::try_from(length).unwrap_or(0);
    js_sys::Uint8Array::new_with_byte_offset_and_length(&memory.buffer(), offset, length)
}

/// The fields of `text` between NUL characters (the texts `js/shapes.js`
/// writes): `str::split` with a byte scan, which beats its `memchr` search
/// on fields of a few bytes.
pub fn nul_fields(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let current = rest?;
        match current.bytes().position(|byte| byte == 0) {
            Some(at) => {
                rest = current.get(at + 1..);
                current.get(..at)
            }
            None => rest.take(),
        }
    })
}

/// Pairs from the NUL-separated text of `pairsText`.
pub fn pairs_from_text(text: &str) -> Vec<(String, String)> {
    let mut parts = nul_fields(text);
    let mut pairs = Vec::new();
    while let (Some(name), Some(value)) = (parts.next(), parts.next()) {
        pairs.push((name.to_owned(), value.to_owned()));
    }
    pairs
}

/// Response headers as text (bytes that are not UTF-8 are replaced). An
/// array of string pairs, the common case, crosses as one string.
pub fn text_headers_from_js(value: &JsValue, what: &str) -> Result<Vec<(String, String)>, Failure> {
    if let Some(text) = separable(pairs_text(value)) {
        return Ok(pairs_from_text(&text));
    }
    Ok(headers_from_js(value, what)?
        .into_iter()
        .map(|(name, bytes)| (name, String::from_utf8_lossy(&bytes).into_owned()))
        .collect())
}

/// Text from a string, or from a number as JavaScript writes it.
pub fn text_from_js(value: &JsValue, what: &str) -> Result<String, Failure> {
    if let Some(text) = value.as_string() {
        return Ok(text);
    }
    if value.as_f64().is_some() {
        let number = js_sys::Number::from(value.clone());
        if let Ok(text) = number.to_string_with_radix(10) {
            return Ok(String::from(text));
        }
    }
    Err(Failure::argument(format!(
        "{what} must be a string or a number, got {}",
        describe(value)
    )))
}

/// `[name, text]` pairs (values strings or numbers), see [`entries_from_js`].
pub fn text_pairs_from_js(value: &JsValue, what: &str) -> Result<Vec<(String, String)>, Failure> {
    entries_from_js(value, what)?
        .into_iter()
        .map(|(name, value)| match value.as_string() {
            Some(text) => Ok((name, text)),
            None => {
                let text = text_from_js(&value, &format!("{what} {name:?}"))?;
                Ok((name, text))
            }
        })
        .collect()
}

/// A plain object with these members.
pub fn object(members: &[(&str, JsValue)]) -> Object {
    let object = Object::new();
    for (name, value) in members {
        // Setting a member of a fresh plain object cannot fail.
        let _ = Reflect::set(
            &object,
            &JsValue::from_str(wasm_bindgen::intern(name)),
            value,
        );
    }
    object
}

/// An optional `u64` as a number, or `undefined`.
pub fn optional_u64_to_js(value: Option<u64>) -> JsValue {
    value.map_or(JsValue::UNDEFINED, u64_to_js)
}

/// `[name, value]` pairs as a JavaScript array of two-element arrays.
pub fn pairs_to_js<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Array {
    pairs
        .into_iter()
        .map(|(name, value)| Array::of2(&JsValue::from_str(name), &JsValue::from_str(value)))
        .collect()
}

/// A JSON value as the equivalent JavaScript value.
pub fn json_to_js(value: &Value) -> JsValue {
    serde_to_js(value)
}

/// The core's JSON form of `value` (its serde serialisation) as the
/// equivalent JavaScript value (`undefined` if it cannot be serialised,
/// which the core's plain data types never cause).
pub fn serde_to_js<T: serde::Serialize + ?Sized>(value: &T) -> JsValue {
    serde_json::to_string(value)
        .ok()
        .map_or(JsValue::UNDEFINED, |text| parse_json_js(&text))
}

/// JSON text (known to be valid) as a JavaScript value.
pub fn parse_json_js(text: &str) -> JsValue {
    JSON::parse(text).unwrap_or(JsValue::UNDEFINED)
}

/// A typed value from either JSON text or a plain JavaScript object (which
/// is serialised with `JSON.stringify` first). `undefined`/`null` give `None`.
pub fn from_json_like<T: DeserializeOwned>(
    value: &JsValue,
    what: &str,
) -> Result<Option<T>, Failure> {
    if is_absent(value) {
        return Ok(None);
    }
    let text = match value.as_string() {
        Some(text) => text,
        None if value.is_object() => JSON::stringify(value)
            .ok()
            .and_then(|text| text.as_string())
            .ok_or_else(|| Failure::argument(format!("{what} cannot be written as JSON")))?,
        None => {
            return Err(Failure::argument(format!(
                "{what} must be an object or JSON text, got {}",
                describe(value)
            )))
        }
    };
    parse_json_text(&text, what).map(Some)
}

/// Parses JSON text into `T`; the sentence is serde_json's, which names the
/// offending member's type and position. Member names may be camelCase
/// (`baseUrl`) or the shared documents' snake_case (`base_url`): see
/// [`snake_case_json`].
pub fn parse_json_text<T: DeserializeOwned>(text: &str, what: &str) -> Result<T, Failure> {
    let error = |error: serde_json::Error| Failure::argument(format!("{what}: {error}"));
    serde_json::from_slice(snake_case_json(text).map_err(error)?.as_bytes()).map_err(error)
}

/// `N` bytes from `crypto.getRandomValues` (the platform's generator).
/// `instead` completes the sentence of the error on a platform without it:
/// what the caller can pass in its place.
#[cfg(any(feature = "client", feature = "gate"))]
pub(crate) fn platform_random<const N: usize>(instead: &str) -> Result<[u8; N], Failure> {
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
    fn nul_fields_split_like_str_split() {
        for text in [
            "",
            "a",
            "\0",
            "a\0",
            "\0b",
            "name\0value\0",
            "é\0ü\0\0x",
            "\0\0",
        ] {
            let ours: Vec<&str> = nul_fields(text).collect();
            let std: Vec<&str> = text.split('\0').collect();
            assert_eq!(ours, std, "{text:?}");
        }
    }

    #[test]
    fn millis_accept_whole_non_negative_safe_numbers_only() {
        assert_eq!(millis_from_js(0.0, "nowMs"), Ok(0));
        assert_eq!(
            millis_from_js(1_700_000_000_000.0, "nowMs"),
            Ok(1_700_000_000_000)
        );
        #[allow(clippy::cast_precision_loss)]
        let max = MAX_SAFE_INTEGER as f64;
        assert_eq!(millis_from_js(max, "nowMs"), Ok(MAX_SAFE_INTEGER));
        for bad in [-1.0, 0.5, f64::NAN, f64::INFINITY, max + 2.0] {
            let error = millis_from_js(bad, "nowMs").unwrap_err();
            assert!(error.message.starts_with("nowMs must be a whole number"));
        }
    }

    #[test]
    fn json_text_errors_name_the_path() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Inner {
            requests: u32,
        }
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Outer {
            limits: Inner,
        }
        let error =
            parse_json_text::<Outer>(r#"{"limits":{"requests":"x"}}"#, "config").unwrap_err();
        assert!(
            error
                .message
                .starts_with("config: invalid type: string \"x\""),
            "{}",
            error.message
        );
        assert!(parse_json_text::<Outer>(r#"{"limits":{"requests":5}}"#, "config").is_ok());
    }

    #[test]
    fn nul_separated_pairs_come_back_in_order_with_empty_values_kept() {
        assert_eq!(pairs_from_text(""), Vec::<(String, String)>::new());
        assert_eq!(
            pairs_from_text("Content-Type\0application/json\0X-Empty\0\0a:b\0c: d\0"),
            vec![
                ("Content-Type".to_owned(), "application/json".to_owned()),
                ("X-Empty".to_owned(), String::new()),
                ("a:b".to_owned(), "c: d".to_owned()),
            ]
        );
    }

    #[test]
    fn the_clock_is_read_only_here_and_is_after_2020() {
        assert!(current_unix_ms() > 1_577_836_800_000);
    }
}
