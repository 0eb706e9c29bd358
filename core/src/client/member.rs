//! One member of a JSON object, read without building the object: a run's
//! status (`PollOptions::status_field`), a keyset pager's order value and
//! the `type` of an error's JSON form.

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt;

/// The string value of member `name` of the JSON object `json`, or `None`
/// when `json` is not an object, has no such member or its value is not a
/// string. When the member repeats, the last one counts (as serde_json's
/// own maps read it).
pub fn string_member(json: &str, name: &str) -> Option<String> {
    serde_json::from_slice(member(json, name)?.get().as_bytes()).ok()
}

/// The JSON text of member `name` of the JSON object `json`, or `None` when
/// `json` is not an object or has no such member. When the member repeats,
/// the last one counts.
pub fn member(json: &str, name: &str) -> Option<Box<RawValue>> {
    let mut deserializer = serde_json::Deserializer::from_slice(json.as_bytes());
    let found = deserializer.deserialize_map(Member(name)).ok()?;
    deserializer.end().ok()?;
    found
}

/// Finds one member's value.
struct Member<'n>(&'n str);

impl<'de> Visitor<'de> for Member<'_> {
    type Value = Option<Box<RawValue>>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(
        self,
        mut members: A,
    ) -> Result<Option<Box<RawValue>>, A::Error> {
        let mut found = None;
        while let Some(name) = members.next_key::<String>()? {
            if name == self.0 {
                found = Some(members.next_value()?);
            } else {
                members.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::{member, string_member};

    #[test]
    fn the_last_string_member_of_that_name_is_read() {
        let json = r#"{"id":"r1","status":"running","n":{"status":"x"}}"#;
        assert_eq!(string_member(json, "status").as_deref(), Some("running"));
        assert_eq!(
            string_member(r#"{"s":"a","s":"b\u00e9"}"#, "s").as_deref(),
            Some("bé")
        );
        assert_eq!(string_member(r#"{"s":"a","s":1}"#, "s"), None);
    }

    #[test]
    fn a_member_comes_back_as_its_json_text() {
        let json = r#"{"a": [1, {"b": 2}] , "c":1.50}"#;
        assert_eq!(
            member(json, "a").map(|raw| raw.get().to_owned()).as_deref(),
            Some(r#"[1, {"b": 2}]"#)
        );
        assert_eq!(
            member(json, "c").map(|raw| raw.get().to_owned()).as_deref(),
            Some("1.50")
        );
        assert!(member(json, "b").is_none());
    }

    #[test]
    fn anything_else_is_none() {
        for json in [
            r#"{"status":1}"#,
            r#"{"status":null}"#,
            r#"{"other":"x"}"#,
            r#"["status"]"#,
            r#""status""#,
            r#"{"status":"x"} 1"#,
            r#"{"status":"x""#,
        ] {
            assert_eq!(string_member(json, "status"), None, "{json}");
        }
    }
}
