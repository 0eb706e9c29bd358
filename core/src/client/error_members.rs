//! An error response's body as the client reads it: the `detail` sentence,
//! and every other member kept as JSON text ([`ExtraMembers`]), so that
//! reading an error builds no `serde_json::Value` tree.

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;
use std::fmt;

/// The members of an API error body other than `detail` and `status`, as
/// one JSON object's text with its members in name order (when a name
/// repeats in the body, its last value counts), e.g.
/// `{"errors":[{"parameter":"limit","problem":"…"}]}` for a 400.
///
/// It serialises as that object. [`ExtraMembers::member`] reads one member
/// and [`ExtraMembers::to_map`] parses them all.
#[derive(Clone)]
pub struct ExtraMembers(Box<RawValue>);

impl ExtraMembers {
    /// No members: `{}`.
    pub fn empty() -> Self {
        Self::from_sorted(Vec::new())
    }

    /// The object's JSON text.
    pub fn as_json(&self) -> &str {
        self.0.get()
    }

    /// The object as raw JSON.
    pub fn as_raw(&self) -> &RawValue {
        &self.0
    }

    /// `true` when there are no members.
    pub fn is_empty(&self) -> bool {
        self.0.get() == "{}"
    }

    /// The JSON text of member `name`, if present.
    pub fn member(&self, name: &str) -> Option<Box<RawValue>> {
        super::member::member(self.0.get(), name)
    }

    /// The members as a JSON map.
    pub fn to_map(&self) -> serde_json::Map<String, serde_json::Value> {
        serde_json::from_str(self.0.get()).unwrap_or_default()
    }

    /// The object of `members`, already in name order without repeats.
    fn from_sorted(members: Vec<(String, Box<RawValue>)>) -> Self {
        let mut text = String::from("{");
        for (index, (name, value)) in members.iter().enumerate() {
            if index > 0 {
                text.push(',');
            }
            // A string always serialises; the fallback keeps valid JSON.
            text.push_str(&serde_json::to_string(name).unwrap_or_else(|_| "\"\"".to_owned()));
            text.push(':');
            text.push_str(value.get());
        }
        text.push('}');
        Self(RawValue::from_string(text).unwrap_or_else(|_| empty_object()))
    }
}

fn empty_object() -> Box<RawValue> {
    // "{}" is valid JSON; a RawValue of it always builds.
    RawValue::from_string("{}".to_owned()).unwrap_or_else(|_| RawValue::NULL.to_owned())
}

impl Default for ExtraMembers {
    fn default() -> Self {
        Self::empty()
    }
}

impl PartialEq for ExtraMembers {
    fn eq(&self, other: &Self) -> bool {
        self.0.get() == other.0.get()
    }
}

impl Eq for ExtraMembers {}

impl fmt::Debug for ExtraMembers {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.0.get())
    }
}

impl Serialize for ExtraMembers {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ExtraMembers {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(Members)
    }
}

/// Reads any JSON object into [`ExtraMembers`].
struct Members;

impl<'de> Visitor<'de> for Members {
    type Value = ExtraMembers;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ExtraMembers, A::Error> {
        // Each value is read as a `Value`, not a `RawValue`: an error read
        // back from JSON (a tagged `ClientError`) reaches here through
        // serde's buffered content, which cannot hand out raw text. Error
        // bodies of responses never take this path (see `ErrorReply`).
        let mut members = Vec::new();
        while let Some(name) = map.next_key::<String>()? {
            let value = map.next_value::<serde_json::Value>()?;
            let raw = serde_json::value::to_raw_value(&value).map_err(de::Error::custom)?;
            members.push((name, raw));
        }
        Ok(sorted(members))
    }
}

/// `members` in name order; of a repeated name, the last value.
fn sorted(mut members: Vec<(String, Box<RawValue>)>) -> ExtraMembers {
    // A stable sort keeps repeats in body order; keep the last of each run.
    members.sort_by(|a, b| a.0.cmp(&b.0));
    let mut kept: Vec<(String, Box<RawValue>)> = Vec::with_capacity(members.len());
    for member in members {
        match kept.last_mut() {
            Some(last) if last.0 == member.0 => *last = member,
            _ => kept.push(member),
        }
    }
    ExtraMembers::from_sorted(kept)
}

/// An error body read by the client: `detail` (required, a string),
/// `status` (optional, a number from 0 to 65535 or null) and the rest.
pub(crate) struct ErrorReply {
    /// The body's `detail` sentence.
    pub detail: String,
    /// Every other member.
    pub extra: ExtraMembers,
}

impl ErrorReply {
    /// Parses an error body, requiring a string `detail`.
    pub fn from_slice(bytes: &[u8]) -> Result<Self, serde_json::Error> {
        let mut deserializer = serde_json::Deserializer::from_slice(bytes);
        let reply = deserializer.deserialize_map(ReplyVisitor)?;
        deserializer.end()?;
        Ok(reply)
    }
}

/// Reads an error body's members.
struct ReplyVisitor;

impl<'de> Visitor<'de> for ReplyVisitor {
    type Value = ErrorReply;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("struct ErrorBody")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ErrorReply, A::Error> {
        let mut detail: Option<String> = None;
        let mut status_seen = false;
        let mut members = Vec::new();
        while let Some(name) = map.next_key::<String>()? {
            match name.as_str() {
                "detail" if detail.is_some() => return Err(de::Error::duplicate_field("detail")),
                "detail" => detail = Some(map.next_value()?),
                "status" if status_seen => return Err(de::Error::duplicate_field("status")),
                "status" => {
                    map.next_value::<Option<u16>>()?;
                    status_seen = true;
                }
                _ => members.push((name, map.next_value::<Box<RawValue>>()?)),
            }
        }
        let detail = detail.ok_or_else(|| de::Error::missing_field("detail"))?;
        Ok(ErrorReply {
            detail,
            extra: sorted(members),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_api_error_with_extra_members_reads_back_from_its_json() {
        let json = r#"{"type":"api","status":400,"detail":"limit is out of range","extra":{"errors":[{"parameter":"limit","problem":"must be an integer from 1 to 5000"}],"a":1}}"#;
        let error: crate::client::ClientError = serde_json::from_str(json).unwrap();
        let crate::client::ClientError::Api { extra, status, .. } = &error else {
            panic!("an api error, got {error:?}")
        };
        assert_eq!(*status, 400);
        assert_eq!(
            extra.as_json(),
            r#"{"a":1,"errors":[{"parameter":"limit","problem":"must be an integer from 1 to 5000"}]}"#
        );
        let again: crate::client::ClientError =
            serde_json::from_str(&serde_json::to_string(&error).unwrap()).unwrap();
        assert_eq!(again, error);
    }

    fn read(body: &str) -> Result<ErrorReply, String> {
        ErrorReply::from_slice(body.as_bytes()).map_err(|error| error.to_string())
    }

    #[test]
    fn detail_and_status_are_read_and_the_rest_kept_in_name_order() {
        let reply =
            read(r#"{"detail":"Rate limit exceeded.","status":429,"limit":"x","errors":[1, 2]}"#)
                .unwrap();
        assert_eq!(reply.detail, "Rate limit exceeded.");
        assert_eq!(reply.extra.as_json(), r#"{"errors":[1, 2],"limit":"x"}"#);
        assert_eq!(reply.extra.member("limit").unwrap().get(), r#""x""#);
        assert_eq!(reply.extra.to_map()["errors"][1], 2);
    }

    #[test]
    fn a_repeated_extra_member_keeps_its_last_value_and_names_are_escaped() {
        let reply = read(r#"{"a\"b":1,"detail":"d","z":1,"z":2}"#).unwrap();
        assert_eq!(reply.extra.as_json(), r#"{"a\"b":1,"z":2}"#);
        assert_eq!(
            read(r#"{"detail":"d"}"#).unwrap().extra,
            ExtraMembers::empty()
        );
        assert!(ExtraMembers::empty().is_empty());
    }

    #[test]
    fn bodies_that_are_not_error_objects_are_refused_with_serde_sentences() {
        assert_eq!(
            read(r#"{"status":500}"#).err().unwrap(),
            "missing field `detail` at line 1 column 14"
        );
        assert_eq!(
            read("<html>").err().unwrap(),
            "expected value at line 1 column 1"
        );
        assert!(read(r#"{"detail":5}"#)
            .err()
            .unwrap()
            .starts_with("invalid type: integer `5`, expected a string"));
        assert!(read(r#"{"detail":"a","status":70000}"#).is_err());
        assert!(read(r#"{"detail":"a","detail":"b"}"#)
            .err()
            .unwrap()
            .starts_with("duplicate field `detail`"));
        assert!(read(r#"{"detail":"a"} x"#).is_err());
        assert!(read(r#"[1]"#)
            .err()
            .unwrap()
            .starts_with("invalid type: sequence, expected struct ErrorBody"));
        assert_eq!(read(r#"{"detail":"a","status":null}"#).unwrap().detail, "a");
    }

    #[test]
    fn extra_members_round_trip_as_an_object() {
        let extra: ExtraMembers = serde_json::from_str(r#"{"b":[true],"a":{"c":null}}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&extra).unwrap(),
            r#"{"a":{"c":null},"b":[true]}"#
        );
        assert!(serde_json::from_str::<ExtraMembers>("[]").is_err());
        assert_eq!(format!("{extra:?}"), r#"{"a":{"c":null},"b":[true]}"#);
    }
}
