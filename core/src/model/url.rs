//! URL parsing, written once (RFC 3986, by `iri-string`): the index's URI
//! fields, the client's base URL and the gate's base and stable-egress URLs
//! all go through here.

use iri_string::types::UriStr;

/// The path the stable-egress URL takes under the base URL when it is not
/// set: `{base_url}/egress`. The one rule of the client's configuration,
/// the gate's default and the sandbox (which serves it there too).
pub const STABLE_EGRESS_PATH: &str = "/egress";

/// The stable-egress URL of a base URL when none is set: `{base_url}/egress`.
pub fn stable_egress_url_for(base_url: &str) -> String {
    format!("{base_url}{STABLE_EGRESS_PATH}")
}

/// Why a URL was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{url:?} {problem}")]
pub struct UrlError {
    /// The URL as given, without its user info (see `without_user_info`): a
    /// password there must not reach an error message.
    pub url: String,
    /// What is wrong and what is accepted.
    pub problem: &'static str,
}

/// An absolute `http`/`https` URL with a host, no user info, query or
/// fragment, and no trailing slash: what a base URL must look like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpUrl {
    text: String,
    segments: Vec<String>,
}

impl HttpUrl {
    /// Parses a base URL such as `https://api.example.com` or
    /// `https://egress.example.com/egress`.
    pub fn parse(text: &str) -> Result<Self, UrlError> {
        let fail = |problem| UrlError {
            url: without_user_info(text),
            problem,
        };
        let uri = UriStr::new(text)
            .map_err(|_| fail("is not a URL (RFC 3986); write it like https://api.example.com"))?;
        if !["http", "https"]
            .iter()
            .any(|scheme| uri.scheme_str().eq_ignore_ascii_case(scheme))
        {
            return Err(fail("must start with http:// or https://"));
        }
        let authority = uri
            .authority_components()
            .ok_or(fail("needs a host, as in https://api.example.com"))?;
        if authority.host().is_empty() {
            return Err(fail("needs a host, as in https://api.example.com"));
        }
        if authority.userinfo().is_some() {
            return Err(fail("must not carry user info (user@ or user:password@)"));
        }
        if uri.query_str().is_some() || uri.fragment_str().is_some() {
            return Err(fail("must not have a query or fragment"));
        }
        let path = uri.path_str();
        if path.ends_with('/') {
            return Err(fail("must not end with '/'"));
        }
        let segments = path
            .split('/')
            .filter(|segment| !segment.is_empty())
            .map(str::to_owned)
            .collect();
        Ok(Self {
            text: text.to_owned(),
            segments,
        })
    }

    /// The URL as given.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The path's segments, still percent-encoded (empty for a bare host).
    pub fn path_segments(&self) -> &[String] {
        &self.segments
    }
}

/// `text` with any user info (`user@` or `user:password@` before the host)
/// removed, for showing a URL that may not even parse: the authority is
/// what follows `scheme://` (or the start) up to the first `/`, `?` or `#`,
/// and everything in it up to its last `@` goes.
pub fn without_user_info(text: &str) -> String {
    let (scheme, rest) = match text.find("://") {
        Some(at) => text.split_at(at.saturating_add(3)),
        None => ("", text),
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = rest.get(..authority_end).unwrap_or_default();
    match authority.rfind('@') {
        Some(at) => format!(
            "{scheme}{}",
            rest.get(at.saturating_add(1)..).unwrap_or_default()
        ),
        None => text.to_owned(),
    }
}

/// Whether `text` is an absolute URI (a scheme, then the rest), as the
/// index's URI fields must be.
pub fn is_absolute_uri(text: &str) -> bool {
    UriStr::new(text).is_ok_and(|uri| !uri.scheme_str().is_empty())
        && !text.contains(char::is_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls() {
        let url = HttpUrl::parse("https://h.example:8443/egress/v").unwrap();
        assert_eq!(url.path_segments(), ["egress", "v"]);
        assert!(HttpUrl::parse("http://127.0.0.1:8080")
            .unwrap()
            .path_segments()
            .is_empty());
        for bad in [
            "http://h/",
            "ftp://h",
            "http://",
            "http://u:p@h",
            "http://h?x=1",
            "http://h#f",
            "h.example",
            "http://exa mple",
            "",
        ] {
            assert!(HttpUrl::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            HttpUrl::parse("http://h/").unwrap_err().to_string(),
            "\"http://h/\" must not end with '/'"
        );
        assert_eq!(
            HttpUrl::parse("https://ada:pw@h.example/x")
                .unwrap_err()
                .to_string(),
            "\"https://h.example/x\" must not carry user info (user@ or user:password@)"
        );
    }

    #[test]
    fn user_info_is_never_shown() {
        for (given, shown) in [
            ("https://ada:pw@h.example/a@b", "https://h.example/a@b"),
            ("ftp://u@h", "ftp://h"),
            ("u:p@h/x", "h/x"),
            ("https://a@b:pw@h?q=@", "https://h?q=@"),
            ("https://h.example/a@b", "https://h.example/a@b"),
            ("", ""),
        ] {
            assert_eq!(without_user_info(given), shown, "{given}");
        }
    }

    #[test]
    fn absolute_uris() {
        assert!(is_absolute_uri("https://example.com/a"));
        assert!(is_absolute_uri("urn:isbn:123"));
        assert!(!is_absolute_uri("/relative"));
        assert!(!is_absolute_uri("example.com"));
        assert!(!is_absolute_uri("https://exa mple.com"));
    }
}
