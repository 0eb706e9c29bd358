//! Unit-only enums written as their wire names (`"api_key"`, `"url_path"`).
//!
//! [`wire_enum!`] writes `Serialize` and `Deserialize` for such an enum from
//! one list of `Variant = "name"` pairs. Every enum it covers reads its name
//! through [`variant_index`], one function per JSON reader for all of them,
//! where serde's derive writes a visitor per enum; the sentences are serde's
//! own (`unknown variant `x`, expected `a` or `b``).

use serde::de::{Deserializer, Error, Visitor};
use std::fmt;

/// The position of the wire name `deserializer` holds in `names`; any other
/// string is serde's `unknown variant` error, any other value a type error.
pub(crate) fn variant_index<'de, D: Deserializer<'de>>(
    deserializer: D,
    names: &'static [&'static str],
) -> Result<usize, D::Error> {
    deserializer.deserialize_str(WireName(names))
}

/// Reads one of its names, as its position.
struct WireName(&'static [&'static str]);

impl Visitor<'_> for WireName {
    type Value = usize;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a variant name")
    }

    fn visit_str<E: Error>(self, name: &str) -> Result<usize, E> {
        self.0
            .iter()
            .position(|candidate| *candidate == name)
            .ok_or_else(|| E::unknown_variant(name, self.0))
    }
}

/// `Serialize`, `Deserialize` and `wire_name()` for a unit-only enum, from
/// its variants' wire names: `wire_enum!(Kind { ApiKey = "api_key", OAuthToken = "oauth2" });`.
macro_rules! wire_enum {
    ($ty:ident { $($variant:ident = $name:literal),+ $(,)? }) => {
        impl $ty {
            /// The variant's wire name.
            pub(crate) fn wire_name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }
        }

        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.wire_name())
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                const NAMES: &[&str] = &[$($name),+];
                const VARIANTS: &[$ty] = &[$($ty::$variant),+];
                let index = $crate::model::wire_enum::variant_index(deserializer, NAMES)?;
                VARIANTS.get(index).copied().ok_or_else(|| {
                    <D::Error as serde::de::Error>::unknown_variant("", NAMES)
                })
            }
        }
    };
}
pub(crate) use wire_enum;

#[cfg(test)]
mod tests {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Pair {
        First,
        Second,
    }
    wire_enum!(Pair { First = "first_one", Second = "second" });

    #[test]
    fn names_read_and_write_both_ways() {
        assert_eq!(
            serde_json::to_string(&Pair::First).ok().as_deref(),
            Some("\"first_one\"")
        );
        assert_eq!(
            serde_json::to_string(&Pair::Second).ok().as_deref(),
            Some("\"second\"")
        );
        let read: Result<Vec<Pair>, _> = serde_json::from_str(r#"["second","first_one"]"#);
        assert_eq!(read.ok(), Some(vec![Pair::Second, Pair::First]));
    }

    #[test]
    fn other_names_and_types_get_serde_sentences() {
        let error = serde_json::from_str::<Pair>(r#""third""#)
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            error.as_deref(),
            Some("unknown variant `third`, expected `first_one` or `second` at line 1 column 7")
        );
        let error = serde_json::from_str::<Pair>("1")
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            error.as_deref(),
            Some("invalid type: integer `1`, expected a variant name at line 1 column 1")
        );
    }
}
