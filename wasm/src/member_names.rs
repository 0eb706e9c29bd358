//! camelCase member names read as snake_case: JSON text copied member by
//! member with its names renamed (`windowMs` to `window_ms`), so that
//! configuration and options may use either form.
//!
//! The copy streams from serde_json's reader to text (no `serde_json::Value`
//! tree in between, which keeps the browser module small); numbers keep
//! their exact values and strings their exact contents.

use serde::de::{DeserializeSeed, Deserializer, Error, MapAccess, SeqAccess, Visitor};
use std::fmt::{self, Write};

/// Members whose values are wire documents or caller data, kept verbatim.
const VERBATIM_MEMBERS: [&str; 3] = ["index", "tables", "connections"];

/// Members whose string values name a variant (`apiKey` for `api_key`).
const VARIANT_MEMBERS: [&str; 4] = ["kind", "type", "api_key_header", "egress"];

/// `text` (JSON) with every camelCase member name renamed to snake_case,
/// recursively, except inside wire documents and caller data
/// ([`VERBATIM_MEMBERS`]); the string values of [`VARIANT_MEMBERS`] are
/// renamed too (`apiKey` to `api_key`). Snake_case stays as it is.
/// Errors: `text` is not one JSON value (serde_json's sentence).
pub fn snake_case_json(text: &str) -> Result<String, serde_json::Error> {
    let mut out = String::with_capacity(text.len() + 16);
    let mut deserializer = serde_json::Deserializer::from_slice(text.as_bytes());
    Copy {
        out: &mut out,
        mode: Mode::Rename,
    }
    .deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(out)
}

/// `windowMs` as `window_ms`; names without capitals are returned unchanged.
pub fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for character in name.chars() {
        if character.is_ascii_uppercase() {
            out.push('_');
            out.push(character.to_ascii_lowercase());
        } else {
            out.push(character);
        }
    }
    out
}

/// What happens to the names below a value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Member names are renamed.
    Rename,
    /// As `Rename`, and a string value is a variant name, renamed too.
    Variant,
    /// Nothing is renamed.
    Verbatim,
}

/// Copies one JSON value to `out`.
struct Copy<'o> {
    out: &'o mut String,
    mode: Mode,
}

impl Copy<'_> {
    fn string(&mut self, text: &str) {
        // Writing a string into JSON cannot fail.
        self.out
            .push_str(&serde_json::to_string(text).unwrap_or_default());
    }
}

impl<'de> DeserializeSeed<'de> for Copy<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Copy<'_> {
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E: Error>(self, value: bool) -> Result<(), E> {
        self.out.push_str(if value { "true" } else { "false" });
        Ok(())
    }

    fn visit_i64<E: Error>(self, value: i64) -> Result<(), E> {
        write!(self.out, "{value}").map_err(E::custom)
    }

    fn visit_u64<E: Error>(self, value: u64) -> Result<(), E> {
        write!(self.out, "{value}").map_err(E::custom)
    }

    fn visit_f64<E: Error>(self, value: f64) -> Result<(), E> {
        self.out
            .push_str(&serde_json::to_string(&value).map_err(E::custom)?);
        Ok(())
    }

    fn visit_str<E: Error>(mut self, value: &str) -> Result<(), E> {
        if self.mode == Mode::Variant {
            self.string(&snake_case(value));
        } else {
            self.string(value);
        }
        Ok(())
    }

    fn visit_unit<E: Error>(self) -> Result<(), E> {
        self.out.push_str("null");
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<(), A::Error> {
        let mode = if self.mode == Mode::Verbatim {
            Mode::Verbatim
        } else {
            Mode::Rename
        };
        self.out.push('[');
        let mut first = true;
        loop {
            let mark = self.out.len();
            if !first {
                self.out.push(',');
            }
            let copy = Copy {
                out: &mut *self.out,
                mode,
            };
            if items.next_element_seed(copy)?.is_none() {
                self.out.truncate(mark);
                break;
            }
            first = false;
        }
        self.out.push(']');
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut members: A) -> Result<(), A::Error> {
        self.out.push('{');
        let mut first = true;
        while let Some(name) = members.next_key::<String>()? {
            if !first {
                self.out.push(',');
            }
            first = false;
            let (name, mode) = if self.mode == Mode::Verbatim {
                (name, Mode::Verbatim)
            } else {
                let name = snake_case(&name);
                let mode = if VERBATIM_MEMBERS.contains(&name.as_str()) {
                    Mode::Verbatim
                } else if VARIANT_MEMBERS.contains(&name.as_str()) {
                    Mode::Variant
                } else {
                    Mode::Rename
                };
                (name, mode)
            };
            self.string(&name);
            self.out.push(':');
            members.next_value_seed(Copy {
                out: &mut *self.out,
                mode,
            })?;
        }
        self.out.push('}');
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camel_case_members_are_renamed_except_in_wire_documents() {
        let text = r#"{"baseUrl":"http://x","limits":{"credential":{"requests":5,"windowMs":60000}},
            "catalogue":[{"extraLimits":[]}],"credentials":[{"kind":"apiKey","user":"someUser"}],
            "index":{"rateLimits":1,"tableNames":["aB"]},"already_snake":true,"type":{"maxItems":null},
            "egress":"stableUrl","name":"keepThisValue"}"#;
        assert_eq!(
            snake_case_json(text).ok().as_deref(),
            Some(
                r#"{"base_url":"http://x","limits":{"credential":{"requests":5,"window_ms":60000}},"catalogue":[{"extra_limits":[]}],"credentials":[{"kind":"api_key","user":"someUser"}],"index":{"rateLimits":1,"tableNames":["aB"]},"already_snake":true,"type":{"max_items":null},"egress":"stable_url","name":"keepThisValue"}"#
            )
        );
    }

    #[test]
    fn numbers_and_strings_are_copied_exactly() {
        let text =
            r#"[18446744073709551615,-9223372036854775808,0.1,1e300,-0.5,"a\"b\\c\u00e9\n",[],{}]"#;
        assert_eq!(
            snake_case_json(text).ok().as_deref(),
            Some(
                r#"[18446744073709551615,-9223372036854775808,0.1,1e+300,-0.5,"a\"b\\cé\n",[],{}]"#
            )
        );
    }

    #[test]
    fn text_that_is_not_one_json_value_gets_serde_json_sentence() {
        let error = snake_case_json(r#"{"a":1"#)
            .err()
            .map(|error| error.to_string());
        assert_eq!(
            error.as_deref(),
            Some("EOF while parsing an object at line 1 column 6")
        );
        let error = snake_case_json("[1] 2")
            .err()
            .map(|error| error.to_string());
        assert_eq!(
            error.as_deref(),
            Some("trailing characters at line 1 column 5")
        );
    }
}
