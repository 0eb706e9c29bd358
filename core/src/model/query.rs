//! Strict parsing of a raw query string against an operation's parameters.
//!
//! Rules (each one listed in the README's table of choices):
//! * `+` decodes to a space, `%XX` to a byte; any other use of `%` is an error;
//! * decoded names and values must be UTF-8;
//! * a parameter given twice, or one the operation does not define, is an error;
//! * every problem is collected, not only the first.

use super::params::{ParamProblem, ParamSpec, Params};
use std::borrow::Cow;

/// Most problems listed in one response; the detail sentence gives the total.
pub const MAX_REPORTED_PROBLEMS: usize = 20;

/// The name used in a problem when a parameter name itself cannot be decoded.
const UNREADABLE_NAME: &str = "(unreadable name)";

/// Parses `raw_query` (the bytes after `?`, without `#`) against `specs`.
///
/// Returns the validated parameters with defaults applied, or every problem
/// found, in the order met.
pub fn parse_query(raw_query: &[u8], specs: &[ParamSpec]) -> Result<Params, Vec<ParamProblem>> {
    let mut problems = Vec::new();
    let mut seen: Vec<Option<String>> = vec![None; specs.len()];
    for pair in raw_query.split(|&byte| byte == b'&') {
        if pair.is_empty() {
            continue;
        }
        let mut halves = pair.splitn(2, |&byte| byte == b'=');
        let raw_name = halves.next().unwrap_or_default();
        let raw_value = halves.next().unwrap_or_default();
        let name = match decode_component(raw_name) {
            Ok(name) => name,
            Err(reason) => {
                problems.push(ParamProblem::new(UNREADABLE_NAME, format!("name {reason}")));
                continue;
            }
        };
        let Some(index) = specs.iter().position(|spec| spec.name == name) else {
            problems.push(ParamProblem::new(
                name.as_ref(),
                format!("is not a parameter of this operation; {}", accepted(specs)),
            ));
            continue;
        };
        let value = match decode_component(raw_value) {
            Ok(value) => value,
            Err(reason) => {
                problems.push(ParamProblem::new(name.as_ref(), format!("value {reason}")));
                continue;
            }
        };
        let Some(slot) = seen.get_mut(index) else {
            continue;
        };
        if slot.is_some() {
            problems.push(ParamProblem::new(
                name.as_ref(),
                "is given more than once; give it at most once",
            ));
            continue;
        }
        *slot = Some(value.into_owned());
    }

    let mut params = Params::default();
    for (spec, value) in specs.iter().zip(seen) {
        match value {
            Some(raw) => match spec.validate(&raw) {
                Ok(value) => params.insert(spec, value),
                Err(problem) => problems.push(problem),
            },
            None => match spec.default_value() {
                Some(value) => params.insert(spec, value),
                None if spec.required => problems.push(spec.missing_problem()),
                None => {}
            },
        }
    }
    // A name met twice gives one problem per extra occurrence; keep the list short.
    problems.dedup();
    if problems.is_empty() {
        Ok(params)
    } else {
        Err(problems)
    }
}

/// Validates already-decoded `(name, value)` pairs against `specs`, with the
/// same rules as [`parse_query`]. The client role uses this before encoding.
pub fn validate_pairs<'a>(
    pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    specs: &[ParamSpec],
) -> Result<Params, Vec<ParamProblem>> {
    let encoded: Vec<u8> = pairs
        .into_iter()
        .map(|(name, value)| format!("{}={}", encode_component(name), encode_component(value)))
        .collect::<Vec<_>>()
        .join("&")
        .into_bytes();
    parse_query(&encoded, specs)
}

/// Percent-encodes a query name or value so that [`parse_query`] decodes it
/// back exactly (unreserved characters stay, everything else is `%XX`).
pub fn encode_component(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, QUERY_COMPONENT).to_string()
}

/// Everything but RFC 3986 unreserved characters is encoded.
const QUERY_COMPONENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Decodes one query component strictly; the error completes a sentence.
pub fn decode_component(raw: &[u8]) -> Result<Cow<'_, str>, &'static str> {
    let mut rest = raw;
    while let Some((&byte, tail)) = rest.split_first() {
        rest = match (byte, tail) {
            (b'%', [high, low, after @ ..])
                if high.is_ascii_hexdigit() && low.is_ascii_hexdigit() =>
            {
                after
            }
            (b'%', _) => {
                return Err("has a '%' that is not followed by two hex digits; encode '%' as %25")
            }
            _ => tail,
        };
    }
    if !raw.iter().any(|&byte| byte == b'%' || byte == b'+') {
        return std::str::from_utf8(raw)
            .map(Cow::Borrowed)
            .map_err(|_| INVALID_UTF8);
    }
    let plus_as_space: Vec<u8> = raw
        .iter()
        .map(|&byte| if byte == b'+' { b' ' } else { byte })
        .collect();
    let decoded: Vec<u8> = percent_encoding::percent_decode(&plus_as_space).collect();
    String::from_utf8(decoded)
        .map(Cow::Owned)
        .map_err(|_| INVALID_UTF8)
}

const INVALID_UTF8: &str = "is not valid UTF-8 once percent-decoded";

fn accepted(specs: &[ParamSpec]) -> String {
    if specs.is_empty() {
        "this operation takes no query parameters".to_owned()
    } else {
        let names: Vec<&str> = specs.iter().map(|spec| spec.name.as_str()).collect();
        format!("accepted: {}", names.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ParamKind, ParamRole, ParamValue};

    fn specs() -> Vec<ParamSpec> {
        vec![
            ParamSpec {
                name: "offset".into(),
                role: ParamRole::Offset,
                kind: ParamKind::Integer {
                    min: 0,
                    max: u64::MAX,
                    default: Some(0),
                },
                required: false,
            },
            ParamSpec {
                name: "entity_id".into(),
                role: ParamRole::EntityId,
                kind: ParamKind::Text { max_bytes: 256 },
                required: true,
            },
        ]
    }

    #[test]
    fn decodes_and_applies_defaults() {
        let params = parse_query(b"entity_id=a%20b+c", &specs()).unwrap();
        assert_eq!(params.entity_id(), Some("a b c"));
        assert_eq!(params.offset(), Some(0));
    }

    #[test]
    fn collects_every_problem() {
        let problems = parse_query(b"offset=x&offset=1&bogus=1&%zz=1", &specs()).unwrap_err();
        let names: Vec<&str> = problems.iter().map(|p| p.parameter.as_str()).collect();
        assert_eq!(
            names,
            [
                "offset",
                "bogus",
                "(unreadable name)",
                "offset",
                "entity_id"
            ]
        );
    }

    #[test]
    fn invalid_utf8_and_bad_percent_are_problems() {
        assert!(parse_query(b"entity_id=%ff", &specs()).is_err());
        assert!(parse_query(b"entity_id=%4", &specs()).is_err());
        assert!(parse_query(b"entity_id=\xff", &specs()).is_err());
    }

    #[test]
    fn encode_then_parse_round_trips() {
        let params = validate_pairs([("entity_id", "a&b=c %+/é")], &specs()).unwrap();
        assert_eq!(
            params.get("entity_id"),
            Some(&ParamValue::Text("a&b=c %+/é".into()))
        );
    }
}
