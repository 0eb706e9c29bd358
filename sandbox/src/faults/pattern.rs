//! Path patterns of fault rules, examples and the recorded-request filter:
//! `*` matches within one segment, `**` across segments.

/// One token of a [`Pattern`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Byte(u8),
    Star,
    DoubleStar,
}

/// A path pattern: `*` matches within one segment, `**` across segments;
/// every other byte matches itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern(Vec<Token>);

impl Pattern {
    /// The pattern `text` (every text is a pattern).
    pub fn parse(text: &str) -> Self {
        let mut tokens = Vec::with_capacity(text.len());
        let bytes = text.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            if bytes[at] == b'*' {
                if bytes.get(at + 1) == Some(&b'*') {
                    tokens.push(Token::DoubleStar);
                    at += 2;
                } else {
                    tokens.push(Token::Star);
                    at += 1;
                }
            } else {
                tokens.push(Token::Byte(bytes[at]));
                at += 1;
            }
        }
        Self(tokens)
    }

    /// Whether `path` matches: one pass per token over the path's positions.
    pub fn matches(&self, path: &str) -> bool {
        let path = path.as_bytes();
        // reachable[i]: the tokens so far can match path[..i].
        let mut reachable = vec![false; path.len() + 1];
        reachable[0] = true;
        for token in &self.0 {
            let mut next = vec![false; path.len() + 1];
            match token {
                Token::Byte(byte) => {
                    for i in 0..path.len() {
                        next[i + 1] = reachable[i] && path[i] == *byte;
                    }
                }
                Token::Star | Token::DoubleStar => {
                    let crosses = *token == Token::DoubleStar;
                    for i in 0..=path.len() {
                        next[i] = reachable[i]
                            || (i > 0 && next[i - 1] && (crosses || path[i - 1] != b'/'));
                    }
                }
            }
            reachable = next;
        }
        reachable[path.len()]
    }
}
