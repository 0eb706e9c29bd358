//! Deprecation notices: `Deprecation` (RFC 9745 `@<unix seconds>`, and the
//! older draft forms `true` and HTTP-date), `Sunset` (RFC 8594, an HTTP-date
//! in any of its three forms) and `Link` relations `deprecation` / `sunset`,
//! surfaced as one structured [`DeprecationWarning`] per operation.
//!
//! [`DeprecationTracker::observe`] returns a warning the first time an
//! operation's responses carry these headers, and again only if what they say
//! changes (a new sunset date, say) — not once per response. A `Sunset`
//! earlier than its `Deprecation` is reported as malformed.

use crate::http_date::parse_http_date;
use crate::model::header_names::all_values;
use litemap::LiteMap;
use serde::{Deserialize, Serialize};

/// What the `Deprecation` header said.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Deprecated {
    /// Deprecated at (or from) this instant, Unix seconds.
    At {
        /// Unix seconds.
        unix_seconds: u64,
    },
    /// Deprecated, date not given (the older `true` form).
    Yes,
}

/// One operation's deprecation state, as its responses describe it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeprecationWarning {
    /// The operation.
    pub operation_id: String,
    /// The `Deprecation` header, if readable.
    pub deprecated: Option<Deprecated>,
    /// The `Sunset` instant, Unix seconds, if readable.
    pub sunset_at: Option<u64>,
    /// `Link` target with `rel="deprecation"`.
    pub deprecation_link: Option<String>,
    /// `Link` target with `rel="sunset"`.
    pub sunset_link: Option<String>,
    /// One sentence per malformed or contradictory value.
    pub malformed: Vec<String>,
}

/// Reads the deprecation headers of one response; `None` when it has none.
pub fn parse_deprecation(
    operation_id: &str,
    headers: &[(String, String)],
) -> Option<DeprecationWarning> {
    let mut warning = DeprecationWarning {
        operation_id: operation_id.to_owned(),
        deprecated: None,
        sunset_at: None,
        deprecation_link: None,
        sunset_link: None,
        malformed: Vec::new(),
    };
    let mut seen = false;
    if let Some(value) = all_values(headers, "deprecation").next() {
        seen = true;
        let trimmed = value.trim();
        let parsed = if let Some(seconds) = trimmed.strip_prefix('@') {
            crate::model::params::parse_canonical_u64(seconds)
                .map(|unix_seconds| Deprecated::At { unix_seconds })
        } else if trimmed.eq_ignore_ascii_case("true") || trimmed == "?1" {
            Some(Deprecated::Yes)
        } else {
            parse_http_date(trimmed).map(|unix_seconds| Deprecated::At { unix_seconds })
        };
        match parsed {
            Some(parsed) => warning.deprecated = Some(parsed),
            None => warning.malformed.push(format!(
                "Deprecation: {value:?} is neither @<unix seconds> (RFC 9745), true, nor an HTTP-date"
            )),
        }
    }
    if let Some(value) = all_values(headers, "sunset").next() {
        seen = true;
        match parse_http_date(value) {
            Some(at) => warning.sunset_at = Some(at),
            None => warning
                .malformed
                .push(format!("Sunset: {value:?} is not an HTTP-date (RFC 8594)")),
        }
    }
    for value in all_values(headers, "link") {
        for (target, rels) in parse_links(value) {
            for rel in rels.split_ascii_whitespace() {
                if rel.eq_ignore_ascii_case("deprecation") && warning.deprecation_link.is_none() {
                    warning.deprecation_link = Some(target.clone());
                    seen = true;
                } else if rel.eq_ignore_ascii_case("sunset") && warning.sunset_link.is_none() {
                    warning.sunset_link = Some(target.clone());
                    seen = true;
                }
            }
        }
    }
    if let (Some(Deprecated::At { unix_seconds }), Some(sunset)) =
        (warning.deprecated, warning.sunset_at)
    {
        if sunset < unix_seconds {
            warning.malformed.push(format!(
                "Sunset ({sunset}) is earlier than Deprecation ({unix_seconds}); a sunset must \
                 follow its deprecation"
            ));
        }
    }
    seen.then_some(warning)
}

/// `<target>; rel="a b"; …, <target2>; rel=c` → `[(target, "a b"), …]`.
/// Commas inside `<…>` or quotes do not split link-values.
fn parse_links(value: &str) -> Vec<(String, String)> {
    let mut links = Vec::new();
    let mut rest = value;
    while let Some(open) = rest.find('<') {
        let Some(close) = rest[open..].find('>').map(|at| open.saturating_add(at)) else {
            break;
        };
        let target = rest[open.saturating_add(1)..close].trim().to_owned();
        let mut params = &rest[close.saturating_add(1)..];
        // The parameters end at the first comma outside quotes.
        let mut end = params.len();
        let mut quoted = false;
        for (at, byte) in params.bytes().enumerate() {
            match byte {
                b'"' => quoted = !quoted,
                b',' if !quoted => {
                    end = at;
                    break;
                }
                _ => {}
            }
        }
        let remainder = &params[end..];
        params = &params[..end];
        let mut rel = String::new();
        for param in params.split(';') {
            if let Some((name, value)) = param.split_once('=') {
                if name.trim().eq_ignore_ascii_case("rel") {
                    rel = value.trim().trim_matches('"').to_owned();
                }
            }
        }
        links.push((target, rel));
        rest = remainder;
    }
    links
}

/// Remembers what was reported per operation, so each is reported once.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeprecationTracker {
    reported: LiteMap<String, DeprecationWarning>,
}

impl DeprecationTracker {
    /// An empty tracker.
    pub fn new() -> Self {
        Self::default()
    }

    /// The warning to surface for this response, if it is news.
    pub fn observe(
        &mut self,
        operation_id: &str,
        headers: &[(String, String)],
    ) -> Option<DeprecationWarning> {
        let warning = parse_deprecation(operation_id, headers)?;
        if self.reported.get(operation_id) == Some(&warning) {
            return None;
        }
        self.reported
            .insert(operation_id.to_owned(), warning.clone());
        Some(warning)
    }

    /// Every operation's latest known state.
    pub fn known(&self) -> impl Iterator<Item = &DeprecationWarning> {
        self.reported.values()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn reads_all_forms_and_reports_once_per_operation() {
        let set = headers(&[
            ("Deprecation", "@1688169599"),
            ("Sunset", "Sunday, 06-Nov-94 08:49:37 GMT"),
            (
                "Link",
                r#"<https://d.example/a,b>; rel="deprecation"; type="text/html", <https://d.example/s>; rel=sunset"#,
            ),
        ]);
        let mut tracker = DeprecationTracker::new();
        let warning = tracker.observe("listTableRecords", &set).unwrap();
        assert_eq!(
            warning.deprecated,
            Some(Deprecated::At {
                unix_seconds: 1_688_169_599
            })
        );
        assert_eq!(warning.sunset_at, Some(784_111_777));
        assert_eq!(
            warning.deprecation_link.as_deref(),
            Some("https://d.example/a,b")
        );
        assert_eq!(warning.sunset_link.as_deref(), Some("https://d.example/s"));
        assert_eq!(warning.malformed.len(), 1, "sunset before deprecation");
        assert_eq!(tracker.observe("listTableRecords", &set), None);
        assert!(tracker.observe("getApiIndex", &set).is_some());
        let older = parse_deprecation("x", &headers(&[("Deprecation", "true")])).unwrap();
        assert_eq!(older.deprecated, Some(Deprecated::Yes));
        let date = parse_deprecation(
            "x",
            &headers(&[("Deprecation", "Sun Nov  6 08:49:37 1994")]),
        )
        .unwrap();
        assert_eq!(
            date.deprecated,
            Some(Deprecated::At {
                unix_seconds: 784_111_777
            })
        );
        assert_eq!(parse_deprecation("x", &headers(&[("Date", "x")])), None);
    }
}
