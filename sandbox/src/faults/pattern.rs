//! Path patterns of fault rules, examples and the recorded-request filter:
//! `*` matches within one segment, `**` across segments.
//!
//! A pattern is compiled once into an anchored regular expression (`*` is
//! `[^/]*`, `**` is `.*`, every other character itself) run by the `regex`
//! crate, whose automata never backtrack: matching takes time linear in the
//! path for a given pattern (at worst proportional to pattern × path), never
//! exponential. The recorded-request filter also caps the pattern's length
//! ([`MAX_PATTERN_BYTES`]).

use regex::Regex;

/// Longest pattern the recorded-request filter takes, in bytes.
pub const MAX_PATTERN_BYTES: usize = 1_024;

/// A path pattern: `*` matches within one segment, `**` across segments;
/// every other character matches itself.
#[derive(Debug, Clone)]
pub struct Pattern {
    source: String,
    /// `None` only if the expression could not be built (far beyond any
    /// pattern length in use): then nothing matches.
    regex: Option<Regex>,
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl Eq for Pattern {}

/// The regular expression of pattern `text`.
fn expression(text: &str) -> String {
    let mut expression = String::with_capacity(text.len() * 2 + 8);
    expression.push_str("^(?s:");
    let mut rest = text;
    while let Some(star) = rest.find('*') {
        expression.push_str(&regex::escape(&rest[..star]));
        rest = &rest[star..];
        if rest.starts_with("**") {
            expression.push_str(".*");
            rest = &rest[2..];
        } else {
            expression.push_str("[^/]*");
            rest = &rest[1..];
        }
    }
    expression.push_str(&regex::escape(rest));
    expression.push_str(")$");
    expression
}

impl Pattern {
    /// The pattern `text` (every text is a pattern).
    pub fn parse(text: &str) -> Self {
        Self {
            source: text.to_owned(),
            regex: Regex::new(&expression(text)).ok(),
        }
    }

    /// Whether `path` matches the whole pattern.
    pub fn matches(&self, path: &str) -> bool {
        self.regex
            .as_ref()
            .is_some_and(|regex| regex.is_match(path))
    }
}
