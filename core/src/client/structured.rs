//! A small, tolerant reader of RFC 8941 structured-field lists, enough for
//! the IETF rate-limit draft: `"name";key=1;other=2, token;key=3`.
//!
//! Members are a string or token followed by parameters; parameter values
//! are integers, tokens, strings or booleans. Anything else makes the whole
//! field unreadable (`None`), which callers treat as "ignore this header".

/// One list member: its name and parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Item {
    pub(crate) name: String,
    pub(crate) params: Vec<(String, Param)>,
}

/// A parameter value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Param {
    Integer(u64),
    Other,
}

impl Item {
    /// The non-negative integer parameter `key`.
    pub(crate) fn integer(&self, key: &str) -> Option<u64> {
        self.params
            .iter()
            .find(|(name, _)| name == key)
            .and_then(|(_, value)| match value {
                Param::Integer(number) => Some(*number),
                Param::Other => None,
            })
    }
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn advance(&mut self, by: usize) {
        self.at = self.at.saturating_add(by);
    }

    /// The bytes from `start` to the cursor (empty if `start` is past it).
    fn since(&self, start: usize) -> &'a [u8] {
        self.bytes.get(start..self.at).unwrap_or_default()
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_spaces(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.advance(1);
        }
    }

    fn string(&mut self) -> Option<String> {
        self.advance(1); // opening quote
        let mut out = Vec::new();
        loop {
            match self.peek()? {
                b'"' => {
                    self.advance(1);
                    return String::from_utf8(out).ok();
                }
                b'\\' => {
                    let escaped = *self.bytes.get(self.at.saturating_add(1))?;
                    if escaped != b'"' && escaped != b'\\' {
                        return None;
                    }
                    out.push(escaped);
                    self.advance(2);
                }
                byte if (0x20..0x7f).contains(&byte) => {
                    out.push(byte);
                    self.advance(1);
                }
                _ => return None,
            }
        }
    }

    fn token(&mut self) -> Option<String> {
        let start = self.at;
        while self.peek().is_some_and(|byte| {
            byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~:/".contains(&byte)
        }) {
            self.advance(1);
        }
        let text = std::str::from_utf8(self.since(start)).ok()?;
        let first = text.bytes().next()?;
        (first.is_ascii_alphabetic() || first == b'*').then(|| text.to_owned())
    }

    fn key(&mut self) -> Option<String> {
        let start = self.at;
        while self.peek().is_some_and(|byte| {
            byte.is_ascii_lowercase() || byte.is_ascii_digit() || b"_-.*".contains(&byte)
        }) {
            self.advance(1);
        }
        (self.at > start).then(|| String::from_utf8_lossy(self.since(start)).into_owned())
    }

    fn value(&mut self) -> Option<Param> {
        match self.peek()? {
            b'"' => self.string().map(|_| Param::Other),
            b'?' => {
                self.advance(1);
                match self.peek()? {
                    b'0' | b'1' => {
                        self.advance(1);
                        Some(Param::Other)
                    }
                    _ => None,
                }
            }
            b'0'..=b'9' => {
                let start = self.at;
                while self.peek().is_some_and(|byte| byte.is_ascii_digit()) {
                    self.advance(1);
                }
                if self.at.saturating_sub(start) > 15 || self.peek() == Some(b'.') {
                    return None;
                }
                std::str::from_utf8(self.since(start))
                    .ok()?
                    .parse()
                    .ok()
                    .map(Param::Integer)
            }
            b':' => {
                self.advance(1);
                while self
                    .peek()
                    .is_some_and(|byte| byte.is_ascii_alphanumeric() || b"+/=".contains(&byte))
                {
                    self.advance(1);
                }
                (self.peek() == Some(b':')).then(|| {
                    self.advance(1);
                    Param::Other
                })
            }
            b'-' => None,
            _ => self.token().map(|_| Param::Other),
        }
    }
}

/// Parses a list; `None` when any member is malformed.
pub(crate) fn parse_list(text: &str) -> Option<Vec<Item>> {
    let mut cursor = Cursor {
        bytes: text.as_bytes(),
        at: 0,
    };
    let mut items = Vec::new();
    cursor.skip_spaces();
    if cursor.peek().is_none() {
        return Some(items);
    }
    loop {
        cursor.skip_spaces();
        let name = match cursor.peek()? {
            b'"' => cursor.string()?,
            _ => cursor.token()?,
        };
        let mut params = Vec::new();
        while cursor.peek() == Some(b';') {
            cursor.advance(1);
            cursor.skip_spaces();
            let key = cursor.key()?;
            let value = if cursor.peek() == Some(b'=') {
                cursor.advance(1);
                cursor.value()?
            } else {
                Param::Other
            };
            params.push((key, value));
        }
        items.push(Item { name, params });
        cursor.skip_spaces();
        match cursor.peek() {
            None => return Some(items),
            Some(b',') => cursor.advance(1),
            Some(_) => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_strings_tokens_and_parameters() {
        let items =
            parse_list(r#""a\"b";r=5;t=10, day;q=1000;w=86400;x="y";b=?1;pk=:YWJj:"#).unwrap();
        assert_eq!(items[0].name, "a\"b");
        assert_eq!(items[0].integer("r"), Some(5));
        assert_eq!(items[1].name, "day");
        assert_eq!(items[1].integer("w"), Some(86_400));
        assert_eq!(items[1].integer("x"), None);
        assert_eq!(parse_list(""), Some(vec![]));
        for bad in ["\"open", "a;r=-1", "a;r=1.5", "a b", "a,", "1a", "a;pk=:YW"] {
            assert_eq!(parse_list(bad), None, "{bad}");
        }
    }
}
