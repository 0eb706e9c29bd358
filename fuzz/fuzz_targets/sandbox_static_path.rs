//! The sandbox's `/demo/` path resolution on arbitrary request paths: a
//! path it accepts always names a file strictly inside the served root,
//! through plain names only (no `..`, no hidden file, no separator smuggled
//! in by percent-encoding).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::{Component, Path};

fuzz_target!(|bytes: &[u8]| {
    let text = String::from_utf8_lossy(bytes);
    let root = Path::new("/srv/demo");
    for path in [text.to_string(), format!("/demo/{text}")] {
        let Some(resolved) = acd_sandbox::static_files::resolve(root, &path) else {
            continue;
        };
        let rest = resolved
            .strip_prefix(root)
            .unwrap_or_else(|_| panic!("{path:?} resolved outside the root: {resolved:?}"));
        for component in rest.components() {
            let Component::Normal(name) = component else {
                panic!("{path:?} resolved through {component:?}: {resolved:?}");
            };
            let name = name.to_string_lossy();
            assert!(
                !name.is_empty() && !name.starts_with('.') && !name.contains(['\\', '\0']),
                "{path:?} resolved through {name:?}"
            );
        }
    }
});
