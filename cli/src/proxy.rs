//! The proxy of the command, from the environment as curl reads it:
//! `HTTP_PROXY` (or `http_proxy`) for an `http://` base URL, `HTTPS_PROXY`
//! (or `https_proxy`) for an `https://` one, `ALL_PROXY` (or `all_proxy`)
//! for either when the scheme's own is unset; `NO_PROXY` (or `no_proxy`)
//! lists hosts reached directly (`*` for all, `.example.com` or
//! `*.example.com` for subdomains). Empty variables count as unset. The
//! proxy is an HTTP CONNECT tunnel (`http://` or `https://` proxy URL);
//! the API's credentials travel inside the tunnel, never to the proxy.

use crate::setup::SetupError;
use ureq::{Proxy, ProxyProtocol};

/// A variable's value, or `None` when unset or empty.
fn variable(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.is_empty())
}

/// The first set variable of `names`, with its name.
fn first(names: &[&'static str]) -> Option<(&'static str, String)> {
    names
        .iter()
        .find_map(|name| variable(name).map(|value| (*name, value)))
}

/// The proxy for requests to `base_url` (already checked to be a URL).
pub fn for_base_url(base_url: &str) -> Result<Option<Proxy>, SetupError> {
    let Ok(target) = ureq::http::Uri::try_from(base_url) else {
        return Ok(None);
    };
    let own: &[&'static str] = if target.scheme_str() == Some("https") {
        &["HTTPS_PROXY", "https_proxy"]
    } else {
        &["HTTP_PROXY", "http_proxy"]
    };
    let Some((name, value)) = first(own).or_else(|| first(&["ALL_PROXY", "all_proxy"])) else {
        return Ok(None);
    };
    if let Some((_, list)) = first(&["NO_PROXY", "no_proxy"]) {
        let mut matcher = Proxy::builder(ProxyProtocol::Http);
        for entry in list
            .split(',')
            .map(str::trim)
            .filter(|entry| !entry.is_empty())
        {
            matcher = matcher.no_proxy(entry);
        }
        if matcher
            .build()
            .is_ok_and(|matcher| matcher.is_no_proxy(&target))
        {
            return Ok(None);
        }
    }
    let refuse = |problem: &str| {
        Err(SetupError(format!(
            "{name} {value:?} {problem}; give an http:// or https:// proxy URL like \
             http://proxy.example:3128"
        )))
    };
    match Proxy::new(&value) {
        Ok(proxy) if matches!(proxy.protocol(), ProxyProtocol::Http | ProxyProtocol::Https) => {
            Ok(Some(proxy))
        }
        Ok(_) => refuse("is a SOCKS proxy, which this client does not speak"),
        Err(_) => refuse("is not a proxy URL"),
    }
}
