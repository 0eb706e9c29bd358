//! Query parameter specifications and their validators.
//!
//! One validator per parameter kind, used by the gate when a request comes in
//! and by the client when it builds one, so a bad page size is refused with
//! the same sentence before any I/O as after it.

use litemap::LiteMap;
use serde::{Deserialize, Serialize};

/// Largest text value (in bytes) echoed back in a problem sentence.
const ECHO_LIMIT: usize = 64;

/// What a parameter means, independent of the name it is given.
///
/// The spec leaves most parameter names open; roles let typed views such as
/// [`Params::offset`] find a parameter whatever it is called.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamRole {
    /// Number of records to skip.
    Offset,
    /// Maximum number of records to return (page size).
    Limit,
    /// Column used to order results.
    OrderBy,
    /// Sort direction, `asc` or `desc`.
    Direction,
    /// Lower bound: only rows whose order column is greater are returned.
    After,
    /// Connection entity identifier.
    EntityId,
    /// Connection filter, a string holding JSON.
    Filter,
    /// A parameter of a caller-defined operation.
    Custom,
}

/// The type and bounds of one parameter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ParamKind {
    /// A non-negative integer in canonical decimal form within `min..=max`.
    Integer {
        /// Smallest accepted value.
        min: u64,
        /// Largest accepted value.
        max: u64,
        /// Value used when the parameter is absent.
        default: Option<u64>,
    },
    /// One of a fixed set of strings.
    Enum {
        /// Accepted values, compared exactly (case-sensitive).
        values: Vec<String>,
        /// Value used when the parameter is absent.
        default: Option<String>,
    },
    /// A non-empty string of at most `max_bytes` bytes.
    Text {
        /// Longest accepted value, in bytes.
        max_bytes: usize,
    },
    /// A string that must parse as JSON, bounded in size and nesting.
    Json {
        /// Longest accepted value, in bytes.
        max_bytes: usize,
        /// Deepest accepted nesting of arrays and objects.
        max_depth: usize,
    },
}

/// One query parameter of an operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParamSpec {
    /// The name on the wire.
    pub name: String,
    /// What the parameter means.
    pub role: ParamRole,
    /// Type and bounds.
    pub kind: ParamKind,
    /// Whether a request without it is invalid.
    pub required: bool,
}

/// A validated parameter value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ParamValue {
    /// An integer parameter.
    Integer(u64),
    /// A text, enum or JSON parameter (JSON kept as its source text).
    Text(String),
}

/// One problem with one parameter, as reported in a 400 `errors` array.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParamProblem {
    /// The parameter's name (as sent, or as specified when missing).
    pub parameter: String,
    /// A sentence saying what is wrong and what is accepted.
    pub problem: String,
}

impl ParamProblem {
    /// A problem with `parameter`, described by `problem`.
    pub fn new(parameter: impl Into<String>, problem: impl Into<String>) -> Self {
        Self {
            parameter: parameter.into(),
            problem: problem.into(),
        }
    }
}

/// The validated parameters of one request, defaults applied.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Params {
    values: LiteMap<String, ParamValue>,
    roles: LiteMap<ParamRole, String>,
}

impl Params {
    /// Records a validated value for the parameter described by `spec`.
    pub(crate) fn insert(&mut self, spec: &ParamSpec, value: ParamValue) {
        self.set(spec.role, &spec.name, value);
    }

    /// Sets the parameter `name` playing `role` (for callers that build
    /// parameters without a query, such as a simulation's expected order).
    pub fn set(&mut self, role: ParamRole, name: &str, value: ParamValue) {
        if role != ParamRole::Custom {
            self.roles.insert(role, name.to_owned());
        }
        self.values.insert(name.to_owned(), value);
    }

    /// The value of the parameter called `name`, if present or defaulted.
    pub fn get(&self, name: &str) -> Option<&ParamValue> {
        self.values.get(name)
    }

    /// All values, by parameter name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &ParamValue)> {
        self.values
            .iter()
            .map(|(name, value)| (name.as_str(), value))
    }

    /// The name of the parameter playing `role` in this request's
    /// operation, when it was given or defaulted.
    pub fn name_of(&self, role: ParamRole) -> Option<&str> {
        self.roles.get(&role).map(String::as_str)
    }

    /// The value of the parameter playing `role`, if any.
    pub fn by_role(&self, role: ParamRole) -> Option<&ParamValue> {
        self.roles.get(&role).and_then(|name| self.values.get(name))
    }

    fn integer(&self, role: ParamRole) -> Option<u64> {
        match self.by_role(role) {
            Some(ParamValue::Integer(value)) => Some(*value),
            _ => None,
        }
    }

    fn text(&self, role: ParamRole) -> Option<&str> {
        match self.by_role(role) {
            Some(ParamValue::Text(value)) => Some(value),
            _ => None,
        }
    }

    /// Records to skip (role [`ParamRole::Offset`]).
    pub fn offset(&self) -> Option<u64> {
        self.integer(ParamRole::Offset)
    }

    /// Page size (role [`ParamRole::Limit`]).
    pub fn limit(&self) -> Option<u64> {
        self.integer(ParamRole::Limit)
    }

    /// Order column (role [`ParamRole::OrderBy`]).
    pub fn order_by(&self) -> Option<&str> {
        self.text(ParamRole::OrderBy)
    }

    /// `true` when the direction is `desc` (role [`ParamRole::Direction`]).
    pub fn descending(&self) -> bool {
        self.text(ParamRole::Direction) == Some("desc")
    }

    /// Lower bound of the order column (role [`ParamRole::After`]).
    pub fn after(&self) -> Option<&str> {
        self.text(ParamRole::After)
    }

    /// Connection entity (role [`ParamRole::EntityId`]).
    pub fn entity_id(&self) -> Option<&str> {
        self.text(ParamRole::EntityId)
    }

    /// Filter JSON text (role [`ParamRole::Filter`]).
    pub fn filter(&self) -> Option<&str> {
        self.text(ParamRole::Filter)
    }
}

impl ParamSpec {
    /// Validates one decoded value against this spec.
    ///
    /// The sentence of the returned problem names the accepted form, so a
    /// person can fix the request from it alone.
    pub fn validate(&self, raw: &str) -> Result<ParamValue, ParamProblem> {
        let fail = |problem: String| Err(ParamProblem::new(&self.name, problem));
        match &self.kind {
            ParamKind::Integer { min, max, .. } => match parse_canonical_u64(raw) {
                Some(value) if (*min..=*max).contains(&value) => Ok(ParamValue::Integer(value)),
                Some(_) | None if raw.bytes().all(|b| b.is_ascii_digit()) && !raw.is_empty() => {
                    fail(format!(
                        "must be an integer from {min} to {max}; got {}",
                        echo(raw)
                    ))
                }
                _ => fail(format!(
                    "must be an integer from {min} to {max} written in plain decimal digits \
                     (no sign, spaces, leading zeros, decimals or exponents); got {}",
                    echo(raw)
                )),
            },
            ParamKind::Enum { values, .. } => {
                if values.iter().any(|allowed| allowed == raw) {
                    Ok(ParamValue::Text(raw.to_owned()))
                } else {
                    fail(format!(
                        "must be one of {}; got {}",
                        values.join(", "),
                        echo(raw)
                    ))
                }
            }
            ParamKind::Text { max_bytes } => {
                if raw.is_empty() {
                    fail("must not be empty".to_owned())
                } else if raw.len() > *max_bytes {
                    fail(format!(
                        "must be at most {max_bytes} bytes long; got {} bytes",
                        raw.len()
                    ))
                } else {
                    Ok(ParamValue::Text(raw.to_owned()))
                }
            }
            ParamKind::Json {
                max_bytes,
                max_depth,
            } => {
                if raw.len() > *max_bytes {
                    return fail(format!(
                        "must be at most {max_bytes} bytes of JSON; got {} bytes",
                        raw.len()
                    ));
                }
                if nesting_depth(raw) > *max_depth {
                    return fail(format!(
                        "must nest arrays and objects at most {max_depth} deep"
                    ));
                }
                match serde_json::from_slice::<serde::de::IgnoredAny>(raw.as_bytes()) {
                    Ok(_) => Ok(ParamValue::Text(raw.to_owned())),
                    Err(error) => fail(format!("must be valid JSON ({error})")),
                }
            }
        }
    }

    /// The value used when the parameter is absent, if it has one.
    pub fn default_value(&self) -> Option<ParamValue> {
        match &self.kind {
            ParamKind::Integer { default, .. } => default.map(ParamValue::Integer),
            ParamKind::Enum { default, .. } => default.clone().map(ParamValue::Text),
            ParamKind::Text { .. } | ParamKind::Json { .. } => None,
        }
    }

    /// The problem reported when a required parameter is absent.
    pub fn missing_problem(&self) -> ParamProblem {
        ParamProblem::new(&self.name, "is required")
    }
}

/// Parses plain decimal digits with no sign, spaces or leading zeros.
///
/// `"0"` and `"5000"` parse; `"+5"`, `"05"`, `" 5"`, `"1.0"`, `"1e3"` and
/// values past `u64::MAX` do not.
pub fn parse_canonical_u64(raw: &str) -> Option<u64> {
    let bytes = raw.as_bytes();
    let canonical = match bytes {
        [] => false,
        [b'0'] => true,
        [b'0', ..] => false,
        _ => bytes.iter().all(u8::is_ascii_digit),
    };
    if canonical {
        raw.parse().ok()
    } else {
        None
    }
}

/// Quotes a value for a problem sentence, cut to a readable length.
fn echo(raw: &str) -> String {
    if raw.len() <= ECHO_LIMIT {
        return format!("{raw:?}");
    }
    let mut end = ECHO_LIMIT;
    while !raw.is_char_boundary(end) {
        end = end.saturating_sub(1);
    }
    format!("{:?}… ({} bytes)", &raw[..end], raw.len())
}

/// The deepest nesting of `[`/`{` outside strings; cheap, run before parsing
/// so deeply nested input never reaches the recursive parser.
fn nesting_depth(raw: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for byte in raw.bytes() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth = depth.saturating_add(1);
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page_size() -> ParamSpec {
        ParamSpec {
            name: "limit".into(),
            role: ParamRole::Limit,
            kind: ParamKind::Integer {
                min: 1,
                max: 5000,
                default: Some(100),
            },
            required: false,
        }
    }

    #[test]
    fn integers_must_be_canonical_decimal() {
        for bad in ["+5", "05", " 5", "5 ", "1.0", "1e3", "-1", "", "0x10", "١"] {
            assert!(
                page_size().validate(bad).is_err(),
                "{bad:?} should be refused"
            );
        }
        assert_eq!(page_size().validate("5000"), Ok(ParamValue::Integer(5000)));
        assert_eq!(page_size().validate("1"), Ok(ParamValue::Integer(1)));
        let problem = page_size().validate("5001").unwrap_err();
        assert_eq!(
            problem.problem,
            "must be an integer from 1 to 5000; got \"5001\""
        );
        let overflow = page_size().validate("18446744073709551616").unwrap_err();
        assert!(overflow
            .problem
            .starts_with("must be an integer from 1 to 5000"));
    }

    #[test]
    fn json_is_bounded_in_size_and_depth() {
        let spec = ParamSpec {
            name: "filter".into(),
            role: ParamRole::Filter,
            kind: ParamKind::Json {
                max_bytes: 64,
                max_depth: 3,
            },
            required: false,
        };
        assert!(spec.validate(r#"{"a":[1,{"b":2}]}"#).is_ok());
        assert!(spec.validate("[[[[1]]]]").is_err());
        assert!(spec.validate(r#"{"a":"[[[[["}"#).is_ok());
        assert!(spec.validate("{").is_err());
        assert!(spec.validate(&"1".repeat(65)).is_err());
    }

    #[test]
    fn long_values_are_echoed_cut() {
        let problem = page_size().validate(&"x".repeat(1000)).unwrap_err();
        assert!(problem.problem.len() < 300);
        assert!(problem.problem.contains("(1000 bytes)"));
    }
}
