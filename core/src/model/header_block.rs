//! A header block as a host holds it — one `name: value` per line — read
//! into pairs. The one reader both roles use: the client for a response's
//! headers, the test server for a request's.

use thiserror::Error;

/// Why a header block could not be read. Names the line by number only: a
/// malformed line may hold a credential (`X-API-Key secret` without its
/// `:`), so its text is never repeated.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum HeaderBlockError {
    /// A line has no `:` between name and value.
    #[error("header line {line} has no ':'; write each header as `Name: value` on its own line")]
    NoColon {
        /// The line's number, from 1.
        line: usize,
    },
    /// A line's name before its `:` is empty or holds whitespace.
    #[error(
        "header line {line} has no valid name before ':'; a name is one word such as `Accept`"
    )]
    BadName {
        /// The line's number, from 1.
        line: usize,
    },
}

/// Splits a header block (one `name: value` per line, `\n` or `\r\n`;
/// blank lines skipped) into pairs in order, names and values trimmed of
/// surrounding whitespace.
///
/// # Errors
/// [`HeaderBlockError`] for the first line with no `:` or with no valid name.
pub fn parse_header_block(block: &str) -> Result<Vec<(String, String)>, HeaderBlockError> {
    let mut headers = Vec::new();
    for (index, line) in block.split('\n').enumerate() {
        let line_number = index.saturating_add(1);
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        let Some((name, value)) = line.split_once(':') else {
            return Err(HeaderBlockError::NoColon { line: line_number });
        };
        let name = name.trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(HeaderBlockError::BadName { line: line_number });
        }
        headers.push((name.to_owned(), value.trim().to_owned()));
    }
    Ok(headers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_become_pairs_in_order() {
        assert_eq!(
            parse_header_block("X-API-Key: k\r\nAccept:application/json\n\n  \r\nRetry-After:  3 ")
                .unwrap(),
            vec![
                ("X-API-Key".to_owned(), "k".to_owned()),
                ("Accept".to_owned(), "application/json".to_owned()),
                ("Retry-After".to_owned(), "3".to_owned()),
            ]
        );
        assert_eq!(parse_header_block("").unwrap(), Vec::new());
    }

    #[test]
    fn a_bad_line_is_named_by_number_without_its_text() {
        let no_colon = parse_header_block("Accept: a\nX-API-Key secret-value").unwrap_err();
        assert_eq!(no_colon, HeaderBlockError::NoColon { line: 2 });
        assert_eq!(
            no_colon.to_string(),
            "header line 2 has no ':'; write each header as `Name: value` on its own line"
        );
        assert_eq!(
            parse_header_block(": v").unwrap_err(),
            HeaderBlockError::BadName { line: 1 }
        );
        assert_eq!(
            parse_header_block("\nX Key: v").unwrap_err().to_string(),
            "header line 2 has no valid name before ':'; a name is one word such as `Accept`"
        );
    }
}
