//! Shared input decoding of the fuzz targets: arbitrary bytes read as an
//! HTTP/1.1-like message head, so that seed files stay readable and the
//! fuzzer's mutations map onto request lines, header lines and bodies.
//!
//! ```text
//! FIRST LINE\n          request line ("GET /api/v1 ...") or status ("200")
//! Name: value\n         zero or more header lines (a line without ':' is
//! \n                    a name with an empty value)
//! body...               everything after the first empty line
//! ```
//! `\r` before `\n` is dropped. Never panics, on any bytes.
#![forbid(unsafe_code)]

/// One message: its first line, its header lines and its body, all raw.
#[derive(Debug, Default)]
pub struct Message<'a> {
    /// The first line, without its line end.
    pub first: &'a [u8],
    /// `(name, value)` pairs, raw; the value's leading spaces are trimmed.
    pub headers: Vec<(&'a [u8], &'a [u8])>,
    /// Everything after the blank line that ends the head.
    pub body: &'a [u8],
}

fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Splits `bytes` into a [`Message`].
pub fn message(bytes: &[u8]) -> Message<'_> {
    let mut message = Message::default();
    let mut rest = bytes;
    let mut first = true;
    loop {
        let (line, next, ended) = match rest.iter().position(|&b| b == b'\n') {
            Some(at) => (&rest[..at], &rest[at + 1..], false),
            None => (rest, &rest[rest.len()..], true),
        };
        let line = strip_cr(line);
        rest = next;
        if first {
            message.first = line;
            first = false;
        } else if line.is_empty() {
            message.body = rest;
            return message;
        } else {
            let (name, value) = match line.iter().position(|&b| b == b':') {
                Some(at) => (&line[..at], &line[at + 1..]),
                None => (line, &line[line.len()..]),
            };
            let start = value.iter().position(|&b| b != b' ').unwrap_or(value.len());
            message.headers.push((name, &value[start..]));
        }
        if ended {
            return message;
        }
    }
}

/// The headers as the client sees them: text, invalid UTF-8 replaced.
pub fn text_headers(headers: &[(&[u8], &[u8])]) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(name, value)| {
            (
                String::from_utf8_lossy(name).into_owned(),
                String::from_utf8_lossy(value).into_owned(),
            )
        })
        .collect()
}

/// Decimal digits as an integer (`None` for anything else or overflow).
pub fn decimal(bytes: &[u8]) -> Option<u64> {
    std::str::from_utf8(bytes).ok()?.trim().parse().ok()
}

/// An in-memory limiter whose counters are thrown away by
/// [`FreshLimits::reset`]: a gate built once per process starts every input
/// with fresh limits, as a gate built per input would.
pub struct FreshLimits {
    current: std::sync::RwLock<std::sync::Arc<dyn acd_core::limit::RateLimiter>>,
}

impl FreshLimits {
    fn fresh() -> std::sync::Arc<dyn acd_core::limit::RateLimiter> {
        acd_core::limit::in_memory(
            acd_core::limit::LimitAlgorithm::FixedWindow,
            acd_core::limit::LimiterConfig::default(),
        )
    }

    /// Limits with no counter.
    pub fn new() -> Self {
        Self {
            current: std::sync::RwLock::new(Self::fresh()),
        }
    }

    /// Forgets every counter.
    pub fn reset(&self) {
        *self
            .current
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Self::fresh();
    }
}

impl Default for FreshLimits {
    fn default() -> Self {
        Self::new()
    }
}

impl acd_core::limit::RateLimiter for FreshLimits {
    fn acquire(
        &self,
        checks: &[acd_core::limit::LimitCheck<'_>],
        now: acd_core::UnixMillis,
    ) -> acd_core::limit::StackDecision {
        let current = self
            .current
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        current.acquire(checks, now)
    }
}
