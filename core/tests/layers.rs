//! The layers of the core, checked from its module graph: every file under
//! `src/` is parsed (syn) and every path it names (`use` trees and paths in
//! code, `crate::`, `super::` and `self::` resolved against the file's
//! module) gives an edge from the file's top-level module to the top-level
//! module it reaches. The allowed edges:
//!
//! * `model` (the API as data) uses none of `limit`, `gate`, `client`,
//!   `sim`, `openapi`;
//! * `client` uses none of `limit`, `gate`, `sim`, `openapi` (so the
//!   `client` feature builds without `gate`);
//! * `limit` uses none of `gate`, `client`, `sim` (it may use `model`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// Top-level module -> the top-level modules it names, with one example
/// path each (for the failure message).
type Graph = BTreeMap<String, BTreeMap<String, String>>;

const RULES: &[(&str, &[&str])] = &[
    ("model", &["limit", "gate", "client", "sim", "openapi"]),
    ("client", &["limit", "gate", "sim", "openapi"]),
    ("limit", &["gate", "client", "sim"]),
];

struct Collector<'g> {
    /// The module the visitor is in, from the crate root.
    module: Vec<String>,
    file: String,
    graph: &'g mut Graph,
}

impl Collector<'_> {
    /// Resolves a path's leading segments to the top-level module it
    /// reaches, if it stays inside the crate.
    fn top_level(&self, segments: &[String]) -> Option<String> {
        let mut base: Vec<String> = match segments.first()?.as_str() {
            "crate" => Vec::new(),
            "super" | "self" => self.module.clone(),
            _ => return None,
        };
        let mut rest = segments;
        if segments.first()? == "crate" {
            rest = &segments[1..];
        }
        for segment in rest {
            match segment.as_str() {
                "super" => {
                    base.pop();
                }
                "self" => {}
                other => {
                    base.push(other.to_owned());
                    break;
                }
            }
        }
        base.first().cloned()
    }

    fn note(&mut self, segments: &[String]) {
        let (Some(from), Some(to)) = (self.module.first().cloned(), self.top_level(segments))
        else {
            return;
        };
        if from != to {
            let shown = format!("{}: {}", self.file, segments.join("::"));
            self.graph
                .entry(from)
                .or_default()
                .entry(to)
                .or_insert(shown);
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(path) => {
                prefix.push(path.ident.to_string());
                self.use_tree(prefix, &path.tree);
                prefix.pop();
            }
            syn::UseTree::Name(name) => {
                prefix.push(name.ident.to_string());
                self.note(&prefix.clone());
                prefix.pop();
            }
            syn::UseTree::Rename(rename) => {
                prefix.push(rename.ident.to_string());
                self.note(&prefix.clone());
                prefix.pop();
            }
            syn::UseTree::Glob(_) => self.note(&prefix.clone()),
            syn::UseTree::Group(group) => {
                for tree in &group.items {
                    self.use_tree(prefix, tree);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &item.tree);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.note(&segments);
        syn::visit::visit_path(self, path);
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        self.module.push(item.ident.to_string());
        syn::visit::visit_item_mod(self, item);
        self.module.pop();
    }
}

/// The module path of a file under `src/` (`limit/keyed.rs` ->
/// `[limit, keyed]`, `model/mod.rs` -> `[model]`, `lib.rs` -> `[]`).
fn module_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|part| part.to_string_lossy().trim_end_matches(".rs").to_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

fn add_source(graph: &mut Graph, relative: &Path, source: &str) {
    let file = syn::parse_file(source)
        .unwrap_or_else(|error| panic!("{} does not parse: {error}", relative.display()));
    let mut collector = Collector {
        module: module_of(relative),
        file: relative.display().to_string(),
        graph,
    };
    collector.visit_file(&file);
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read a source directory") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

fn core_graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut graph = Graph::new();
    for path in files {
        let source = std::fs::read_to_string(&path).expect("read a source file");
        let relative = path.strip_prefix(&src).expect("a file under src");
        add_source(&mut graph, relative, &source);
    }
    graph
}

/// Every edge that breaks a rule, as `from -> to (file: path)`.
fn violations(graph: &Graph) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (from, forbidden) in RULES {
        for to in *forbidden {
            if let Some(example) = graph.get(*from).and_then(|edges| edges.get(*to)) {
                found.insert(format!("{from} -> {to} ({example})"));
            }
        }
    }
    found
}

#[test]
fn the_core_keeps_its_layers() {
    let graph = core_graph();
    // The graph is real: edges every layering has.
    let reaches = |from: &str, to: &str| graph.get(from).is_some_and(|e| e.contains_key(to));
    assert!(reaches("limit", "model"), "{graph:#?}");
    assert!(reaches("client", "model"), "{graph:#?}");
    assert!(reaches("gate", "limit"), "{graph:#?}");
    assert_eq!(violations(&graph), BTreeSet::new());
    // No cycle between model and limit.
    assert!(!reaches("model", "limit"));
}

#[test]
fn the_checker_sees_each_form_of_a_forbidden_path() {
    for (file, source, edge) in [
        ("model/x.rs", "use crate::limit::Quota;", "model -> limit"),
        (
            "model/x.rs",
            "use super::super::gate::Gate;",
            "model -> gate",
        ),
        ("model/mod.rs", "use super::client;", "model -> client"),
        (
            "client/x.rs",
            "use crate::{model::Quota, limit::{self, Gcra}};",
            "client -> limit",
        ),
        (
            "client/x.rs",
            "fn f() { let _ = crate::gate::demo::credentials(); }",
            "client -> gate",
        ),
        (
            "client/x.rs",
            "mod t { use super::super::super::limit::*; }",
            "client -> limit",
        ),
        ("limit/x.rs", "type G = crate::gate::Gate;", "limit -> gate"),
    ] {
        let mut graph = Graph::new();
        add_source(&mut graph, Path::new(file), source);
        let found = violations(&graph);
        assert!(
            found.iter().any(|v| v.starts_with(edge)),
            "{source} in {file}: {found:?}"
        );
    }
    // Allowed: model -> model, limit -> model, a path outside the crate.
    let mut graph = Graph::new();
    add_source(
        &mut graph,
        Path::new("model/x.rs"),
        "use super::quota::Quota; use std::fmt;",
    );
    add_source(
        &mut graph,
        Path::new("limit/x.rs"),
        "use crate::model::Quota;",
    );
    assert_eq!(violations(&graph), BTreeSet::new());
}
