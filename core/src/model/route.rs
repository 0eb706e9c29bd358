//! The catalogue's one router: method + request target → operation (or
//! the 404 and 405 sentences), under `/api/{version}` and the stable-egress
//! prefix. The gate routes every request with it (its step 1: 404, 405
//! with `Allow`, another version); clients that take a raw target (`acd
//! api METHOD PATH`) route through the same [`Router`], so a path means the
//! same operation on both sides.

use crate::model::{Catalogue, Operation};

/// Where a request target leads: `'c` is the catalogue's lifetime, `'a`
/// the request's.
pub enum Route<'c, 'a> {
    /// An operation serves this method and path.
    Matched {
        /// The operation, from the catalogue.
        operation: &'c Operation,
        /// Raw (still percent-encoded) values of the path placeholders.
        raw_params: Vec<&'a [u8]>,
        /// Whether the request came in under the stable-egress URL.
        via_egress: bool,
        /// The raw query (after `?`, before any `#`).
        raw_query: &'a [u8],
    },
    /// Nothing is served here; the sentence says what is.
    NotFound(String),
    /// The path exists but not for this method.
    MethodNotAllowed {
        /// The methods that are served, for `Allow`.
        allow: String,
        /// The sentence for the body.
        detail: String,
    },
}

/// Matches targets against the catalogue under `/api/{version}` and the
/// stable-egress prefix.
#[derive(Debug, Clone)]
pub struct Router {
    version: String,
    egress: Option<Vec<String>>,
}

impl Router {
    /// A router for `/api/{version}`, and for the stable-egress prefix's
    /// segments (`egress`) followed by `/{version}` when there is one.
    pub fn new(version: String, egress: Option<Vec<String>>) -> Self {
        Self { version, egress }
    }

    /// Where `target` (a path with an optional query, as sent) leads for
    /// `method`.
    pub fn route<'c, 'a>(
        &self,
        catalogue: &'c Catalogue,
        method: &str,
        target: &'a [u8],
    ) -> Route<'c, 'a> {
        let without_fragment = split_once(target, b'#').0;
        let (path, raw_query) = split_once(without_fragment, b'?');
        let shown = String::from_utf8_lossy(path);
        if path.first() != Some(&b'/') {
            return Route::NotFound(format!(
                "The request path {shown:?} must start with '/'; the API is under /api/{}.",
                self.version
            ));
        }
        let segments: Vec<&[u8]> = path
            .get(1..)
            .unwrap_or_default()
            .split(|&byte| byte == b'/')
            .collect();
        let (rest, via_egress) = match self.strip_root(&segments) {
            Some(found) => found,
            None => return Route::NotFound(self.not_found_detail(&segments, &shown)),
        };
        let mut allowed: Vec<&str> = Vec::new();
        for operation in catalogue.operations() {
            if operation.outside_root || (via_egress && !operation.stable_egress) {
                continue;
            }
            let Some(raw_params) = operation.path.match_segments(rest) else {
                continue;
            };
            if operation.method == method {
                return Route::Matched {
                    operation,
                    raw_params,
                    via_egress,
                    raw_query,
                };
            }
            allowed.push(&operation.method);
        }
        if allowed.is_empty() {
            return Route::NotFound(format!(
                "No operation is served at {shown:?}. See the index at /api/{} for what is.",
                self.version
            ));
        }
        allowed.sort_unstable();
        allowed.dedup();
        let allow = allowed.join(", ");
        Route::MethodNotAllowed {
            detail: format!(
                "Method {method} is not allowed on {shown:?}; use {allow}.",
                method = printable(method)
            ),
            allow,
        }
    }

    /// Strips `/api/{version}` or the egress prefix + `/{version}`.
    fn strip_root<'s, 'a>(&self, segments: &'s [&'a [u8]]) -> Option<(&'s [&'a [u8]], bool)> {
        let version = self.version.as_bytes();
        if let [b"api", found, rest @ ..] = segments {
            if *found == version {
                return Some((rest, false));
            }
        }
        let egress = self.egress.as_ref()?;
        if segments.len() > egress.len()
            && segments
                .iter()
                .zip(egress)
                .all(|(segment, expected)| *segment == expected.as_bytes())
            && segments.get(egress.len()) == Some(&version)
        {
            return Some((segments.get(egress.len().saturating_add(1)..)?, true));
        }
        None
    }

    fn not_found_detail(&self, segments: &[&[u8]], shown: &str) -> String {
        if let [b"api", other, ..] = segments {
            let looks_like_version = matches!(
                other.split_first(),
                Some((b'v', digits)) if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
            );
            if looks_like_version {
                return format!(
                    "API version {} is not served; the supported version is {} at /api/{}.",
                    String::from_utf8_lossy(other),
                    self.version,
                    self.version
                );
            }
        }
        format!(
            "No operation is served at {shown:?}. The API is under /api/{}.",
            self.version
        )
    }
}

fn split_once(bytes: &[u8], separator: u8) -> (&[u8], &[u8]) {
    let mut halves = bytes.splitn(2, |&byte| byte == separator);
    let before = halves.next().unwrap_or_default();
    (before, halves.next().unwrap_or_default())
}

/// A method as it may be shown in a sentence (printable ASCII, cut short).
fn printable(method: &str) -> String {
    method
        .chars()
        .filter(|c| c.is_ascii_graphic())
        .take(32)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_match_is_the_catalogue_entry_itself() {
        let catalogue = Catalogue::for_clients();
        let router = Router::new("v1".into(), Some(vec!["egress".into()]));
        let Route::Matched {
            operation,
            raw_params,
            via_egress,
            raw_query,
        } = router.route(&catalogue, "POST", b"/api/v1/agents/a%201/runs?x=1#f")
        else {
            panic!("POST /agents/{{agent_id}}/runs is served");
        };
        assert!(std::ptr::eq(
            operation,
            catalogue.get("createAgentRun").unwrap()
        ));
        assert_eq!(raw_params, [b"a%201".as_slice()]);
        assert!(!via_egress);
        assert_eq!(raw_query, b"x=1");
        let Route::Matched {
            operation,
            via_egress,
            ..
        } = router.route(&catalogue, "GET", b"/egress/v1/connections/crm/records")
        else {
            panic!("connection records are served through stable egress");
        };
        assert_eq!(operation.id, "listConnectionRecords");
        assert!(via_egress);
        let Route::MethodNotAllowed { allow, .. } =
            router.route(&catalogue, "DELETE", b"/api/v1/runs/r1")
        else {
            panic!("DELETE is not served on a run");
        };
        assert_eq!(allow, "GET");
        assert!(matches!(
            router.route(&catalogue, "GET", b"/egress/v1/tables/t"),
            Route::NotFound(_)
        ));
    }
}
