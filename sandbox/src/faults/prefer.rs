//! The `Prefer` request header (RFC 7240) as the sandbox reads it under
//! `--faults`, in Prism's style:
//!
//! * `code=N`: answer with status N (any error status, or a status the
//!   operation declares, 2xx included);
//! * `example=NAME`: answer with the configuration's example NAME;
//! * `retry-after=S`: the `Retry-After` of an answer asked for by `code`;
//! * `latency=MS`: wait MS milliseconds first;
//! * `drop`: close the connection without an answer;
//! * `truncate`: send half the body, then close the connection.
//!
//! Preferences are separated by `,` (several `Prefer` fields are one list),
//! their parameters by `;`, and both are read alike; names are
//! case-insensitive; values may be quoted. As RFC 7240 says, a preference
//! the sandbox does not know is ignored, and only the first of two with the
//! same name counts. A known one with a value it cannot take is a
//! [`PreferError`], which the sandbox answers with a `400` naming it.

use super::{MAX_LATENCY_MS, MAX_RETRY_AFTER};

/// Longest example name, in bytes.
pub const MAX_EXAMPLE_NAME: usize = 128;

/// What a request's `Prefer` fields ask for (each part absent unless asked).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Preferences {
    /// `code=N`.
    pub code: Option<u16>,
    /// `example=NAME`.
    pub example: Option<String>,
    /// `retry-after=S`.
    pub retry_after: Option<u64>,
    /// `latency=MS`.
    pub latency_ms: Option<u64>,
    /// `drop`.
    pub drop: bool,
    /// `truncate`.
    pub truncate: bool,
}

impl Preferences {
    /// Whether nothing is asked for.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// A `Prefer` preference the sandbox knows but cannot honour as written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PreferError {
    /// The header is not UTF-8.
    #[error("the Prefer header is not valid UTF-8")]
    NotUtf8,
    /// A value is not what the preference takes.
    #[error("Prefer {preference}: {expected}")]
    Malformed {
        /// The preference as written (cut to 64 characters).
        preference: String,
        /// What it takes.
        expected: &'static str,
    },
    /// `retry-after` without `code`.
    #[error("Prefer retry-after needs a code too, e.g. code=429, retry-after=2")]
    RetryAfterWithoutCode,
}

/// A preference as written, cut for an error message.
fn shown(name: &str, value: Option<&str>) -> String {
    let text = match value {
        Some(value) => format!("{name}={value}"),
        None => name.to_owned(),
    };
    text.chars().take(64).collect()
}

fn whole_number(value: Option<&str>, max: u64) -> Option<u64> {
    value
        .filter(|value| !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|value| value.parse::<u64>().ok())
        .filter(|number| *number <= max)
}

/// Reads the `Prefer` field values of one request (see the module doc).
pub fn parse_prefer<'a>(
    values: impl IntoIterator<Item = &'a [u8]>,
) -> Result<Preferences, PreferError> {
    let mut asked = Preferences::default();
    let mut seen: Vec<String> = Vec::new();
    for value in values {
        let text = std::str::from_utf8(value).map_err(|_| PreferError::NotUtf8)?;
        for part in text.split([',', ';']) {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            let (name, value) = match part.split_once('=') {
                Some((name, value)) => (name.trim(), Some(value.trim())),
                None => (part, None),
            };
            let name = name.to_ascii_lowercase();
            if seen.contains(&name) {
                continue;
            }
            let value = value.map(|value| {
                value
                    .strip_prefix('"')
                    .and_then(|inner| inner.strip_suffix('"'))
                    .unwrap_or(value)
            });
            let malformed = |expected| PreferError::Malformed {
                preference: shown(&name, value),
                expected,
            };
            match name.as_str() {
                "code" => {
                    let code = whole_number(value, 599)
                        .filter(|code| *code >= 100)
                        .ok_or_else(|| malformed("the value must be a status from 100 to 599"))?;
                    asked.code = u16::try_from(code).ok();
                }
                "retry-after" => {
                    asked.retry_after =
                        Some(whole_number(value, MAX_RETRY_AFTER).ok_or_else(|| {
                            malformed("the value must be whole seconds from 0 to 86400")
                        })?);
                }
                "latency" => {
                    asked.latency_ms =
                        Some(whole_number(value, MAX_LATENCY_MS).ok_or_else(|| {
                            malformed("the value must be whole milliseconds from 0 to 60000")
                        })?);
                }
                "example" => {
                    let name = value
                        .filter(|name| {
                            !name.is_empty()
                                && name.len() <= MAX_EXAMPLE_NAME
                                && name.bytes().all(|b| b.is_ascii_graphic())
                        })
                        .ok_or_else(|| {
                            malformed("the value must name an example of the configuration")
                        })?;
                    asked.example = Some(name.to_owned());
                }
                "drop" | "truncate" => {
                    if value.is_some_and(|value| !value.is_empty()) {
                        return Err(malformed("it takes no value (write drop or truncate)"));
                    }
                    if name == "drop" {
                        asked.drop = true;
                    } else {
                        asked.truncate = true;
                    }
                }
                // Unknown preferences are ignored (RFC 7240, section 2).
                _ => continue,
            }
            seen.push(name);
        }
    }
    if asked.retry_after.is_some() && asked.code.is_none() {
        return Err(PreferError::RetryAfterWithoutCode);
    }
    Ok(asked)
}
