//! `--static DIR`: the files of DIR under `/demo/`, read-only; and
//! `--dashboard`: the browser dashboard as the repository builds it, the
//! page from `wasm/demo/` and the package `scripts/lib/build-wasm.sh`
//! writes to `wasm/pkg/` under `/demo/pkg/`, with no folder to assemble.
//!
//! Path segments are percent-decoded strictly; a segment that is empty,
//! starts with `.` (so `..` and hidden files), or holds `/`, `\` or NUL is
//! refused, and the resolved file must still lie inside DIR once symbolic
//! links are followed. A directory serves its `index.html`. Anything else is
//! a JSON 404. Files are streamed in chunks of [`STREAM_CHUNK_BYTES`], so a
//! response holds at most one chunk of its file in memory however slowly it
//! is read; files above [`MAX_FILE_BYTES`] are not served.

use crate::handler::App;
use axum::body::Body;
use axum::extract::State;
use axum::http::header::{
    CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE, LOCATION, X_CONTENT_TYPE_OPTIONS,
};
use axum::http::{HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio_util::io::ReaderStream;

/// Largest file served, in bytes.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// Bytes read from a file at a time: a response holds at most this much of
/// its file in memory (files are streamed, never read whole).
pub const STREAM_CHUNK_BYTES: usize = 64 * 1024;

/// What is served under `/demo/`.
#[derive(Debug, Clone)]
pub struct StaticRoots {
    /// The directory served at `/demo/`.
    pub demo: PathBuf,
    /// The directory served at `/demo/pkg/` instead of `demo/pkg`, if any.
    pub pkg: Option<PathBuf>,
    /// Serve the dashboard built into the binary instead (`crate::embedded`).
    pub embedded: bool,
}

/// The dashboard built into the binary, when it carries one.
pub fn embedded_dashboard() -> Option<StaticRoots> {
    crate::embedded::AVAILABLE.then(|| StaticRoots {
        demo: PathBuf::new(),
        pkg: None,
        embedded: true,
    })
}

/// The dashboard's directories in the source tree of `wasm_dir` (`demo/`
/// and the built `pkg/`), or a sentence saying what to run first.
pub fn dashboard(wasm_dir: &Path) -> Result<StaticRoots, String> {
    let demo = wasm_dir.join("demo");
    let pkg = wasm_dir.join("pkg");
    let demo = std::fs::canonicalize(&demo)
        .ok()
        .filter(|dir| dir.join("index.html").is_file())
        .ok_or_else(|| format!("{} has no dashboard page (index.html)", demo.display()))?;
    let pkg = std::fs::canonicalize(&pkg)
        .ok()
        .filter(|dir| dir.join("index.js").is_file())
        .ok_or_else(|| {
            format!(
                "the browser package is not built ({} has no index.js); build it with \
                 scripts/lib/install-wasm-toolchain.sh && scripts/lib/build-wasm.sh",
                pkg.display()
            )
        })?;
    Ok(StaticRoots {
        demo,
        pkg: Some(pkg),
        embedded: false,
    })
}

/// `/demo` → `/demo/`.
pub async fn redirect() -> Response {
    (
        StatusCode::PERMANENT_REDIRECT,
        [(LOCATION, HeaderValue::from_static("/demo/"))],
    )
        .into_response()
}

fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        r#"{"detail":"No such file under /demo/.","status":404}"#,
    )
        .into_response()
}

fn hex(byte: u8) -> Option<u8> {
    char::from(byte)
        .to_digit(16)
        .and_then(|digit| u8::try_from(digit).ok())
}

/// Strict percent-decoding of one path segment (`+` stays `+`).
fn decode_segment(raw: &str) -> Option<String> {
    let bytes = raw.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            let high = hex(*bytes.get(at + 1)?)?;
            let low = hex(*bytes.get(at + 2)?)?;
            decoded.push(high * 16 + low);
            at += 3;
        } else {
            decoded.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8(decoded).ok()
}

/// The file a request path names, before symbolic links are resolved.
pub fn resolve(root: &Path, request_path: &str) -> Option<PathBuf> {
    let rest = request_path.strip_prefix("/demo/")?;
    let mut path = root.to_path_buf();
    let segments: Vec<&str> = rest.split('/').collect();
    for (n, raw) in segments.iter().enumerate() {
        if raw.is_empty() && n + 1 == segments.len() {
            break;
        }
        let segment = decode_segment(raw)?;
        if segment.is_empty() || segment.starts_with('.') || segment.contains(['/', '\\', '\0']) {
            return None;
        }
        path.push(segment);
    }
    Some(path)
}

fn content_type(path: &Path) -> &'static str {
    let extension = path
        .extension()
        .and_then(|extension| extension.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    match extension.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "wasm" => "application/wasm",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "txt" | "md" => "text/plain; charset=utf-8",
        "ts" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// Where a response's bytes come from.
enum Source {
    /// Embedded in the binary: served without a copy.
    Embedded(&'static [u8]),
    /// A file of that length, streamed.
    File(u64, tokio::fs::File),
}

/// The embedded file a request path names (same segment rules as [`resolve`]).
fn open_embedded(uri: &Uri) -> Option<(PathBuf, Source)> {
    let relative = resolve(Path::new(""), uri.path())?;
    let name = relative
        .components()
        .map(|part| part.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/");
    let (path, bytes) = crate::embedded::file(&name)?;
    Some((PathBuf::from(path), Source::Embedded(bytes)))
}

async fn open(roots: &StaticRoots, uri: &Uri) -> Option<(PathBuf, Source)> {
    if roots.embedded {
        return open_embedded(uri);
    }
    let (root, request_path) = match (&roots.pkg, uri.path().strip_prefix("/demo/pkg/")) {
        (Some(pkg), Some(rest)) => (pkg, format!("/demo/{rest}")),
        _ => (&roots.demo, uri.path().to_owned()),
    };
    let mut path = resolve(root, &request_path)?;
    if tokio::fs::metadata(&path).await.ok()?.is_dir() {
        path.push("index.html");
    }
    let path = tokio::fs::canonicalize(&path).await.ok()?;
    if !path.starts_with(root) {
        return None;
    }
    let file = tokio::fs::File::open(&path).await.ok()?;
    let metadata = file.metadata().await.ok()?;
    if !metadata.is_file() || metadata.len() > MAX_FILE_BYTES {
        return None;
    }
    Some((path, Source::File(metadata.len(), file)))
}

/// `GET /demo/...`.
pub async fn serve(State(app): State<Arc<App>>, uri: Uri) -> Response {
    let Some(roots) = app.static_roots() else {
        return not_found();
    };
    match open(roots, &uri).await {
        Some((path, source)) => {
            let (length, body) = match source {
                Source::Embedded(bytes) => (
                    u64::try_from(bytes.len()).unwrap_or(u64::MAX),
                    Body::from(bytes::Bytes::from_static(bytes)),
                ),
                Source::File(length, file) => {
                    // At most `length` bytes, should the file grow while it is sent.
                    let reader = tokio::io::AsyncReadExt::take(file, length);
                    let stream = ReaderStream::with_capacity(reader, STREAM_CHUNK_BYTES);
                    (length, Body::from_stream(stream))
                }
            };
            (
                [
                    (CONTENT_TYPE, HeaderValue::from_static(content_type(&path))),
                    (CACHE_CONTROL, HeaderValue::from_static("no-cache")),
                    (X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
                    (CONTENT_LENGTH, HeaderValue::from(length)),
                ],
                body,
            )
                .into_response()
        }
        None => not_found(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_inside_the_root_only() {
        let root = Path::new("/srv/demo");
        assert_eq!(resolve(root, "/demo/"), Some(root.to_path_buf()));
        assert_eq!(
            resolve(root, "/demo/app/main.js"),
            Some(root.join("app").join("main.js"))
        );
        assert_eq!(resolve(root, "/demo/a%20b.txt"), Some(root.join("a b.txt")));
        for bad in [
            "/demo/../etc/passwd",
            "/demo/%2e%2e/etc/passwd",
            "/demo/a/..",
            "/demo/.env",
            "/demo/a%2Fb",
            "/demo/a%5Cb",
            "/demo/a%00",
            "/demo/%zz",
            "/demo/%ff",
            "/demo//x",
            "/other/x",
        ] {
            assert_eq!(resolve(root, bad), None, "{bad}");
        }
    }

    #[test]
    fn content_types_by_extension() {
        assert_eq!(
            content_type(Path::new("index.html")),
            "text/html; charset=utf-8"
        );
        assert_eq!(content_type(Path::new("a.WASM")), "application/wasm");
        assert_eq!(content_type(Path::new("blob")), "application/octet-stream");
    }
}
