//! The dashboard built into the binary (cargo feature `dashboard`): the
//! directory named by `ACD_DASHBOARD_DIR` when the binary was compiled
//! (`scripts/dist` stages `wasm/demo/` with the built browser package under
//! `pkg/` there), so `acd-sandbox --dashboard` serves it with nothing else
//! installed. Without the feature nothing is embedded and a source build
//! needs no wasm toolchain.

/// Whether this binary carries the dashboard.
pub const AVAILABLE: bool = cfg!(feature = "dashboard");

#[cfg(feature = "dashboard")]
static DASHBOARD: include_dir::Dir<'static> = include_dir::include_dir!("$ACD_DASHBOARD_DIR");

/// The embedded file at `path` (relative, `/`-separated; a directory
/// answers its `index.html`): the file's own path and its bytes.
#[cfg(feature = "dashboard")]
pub fn file(path: &str) -> Option<(String, &'static [u8])> {
    let path = path.trim_end_matches('/');
    let exact = (!path.is_empty())
        .then(|| DASHBOARD.get_file(path))
        .flatten();
    let file = match exact {
        Some(file) => file,
        None if path.is_empty() => DASHBOARD.get_file("index.html")?,
        None => DASHBOARD.get_file(format!("{path}/index.html"))?,
    };
    Some((file.path().to_string_lossy().into_owned(), file.contents()))
}

/// Nothing is embedded without the `dashboard` feature.
#[cfg(not(feature = "dashboard"))]
pub fn file(_path: &str) -> Option<(String, &'static [u8])> {
    None
}
