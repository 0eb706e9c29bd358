//! `acd api --jq EXPR`: the response body filtered by a jq expression, run
//! by the `jaq` crates (a jq implementation in Rust). Like `gh api --jq`,
//! each output is written on its own line: strings as their raw text,
//! everything else as compact JSON.

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{data, unwrap_valr, Compiler, Ctx, Vars};
use jaq_json::Val;

/// A jq expression that does not compile, or a run that fails.
#[derive(Debug, thiserror::Error)]
pub enum JqError {
    /// The expression does not parse or names an unknown filter.
    #[error("--jq {expression:?} is not a jq expression this client understands ({problem})")]
    Compile {
        /// The expression.
        expression: String,
        /// What the parser or compiler said.
        problem: String,
    },
    /// The response body is not JSON.
    #[error("--jq needs a JSON response, and the body is not JSON ({0})")]
    NotJson(String),
    /// The filter failed on the response.
    #[error("--jq {expression:?} failed on the response: {problem}")]
    Run {
        /// The expression.
        expression: String,
        /// jq's error.
        problem: String,
    },
}

type Filter = jaq_core::compile::Filter<jaq_core::Native<data::JustLut<Val>>>;

fn compile(expression: &str) -> Result<Filter, JqError> {
    let failed = |problem: String| JqError::Compile {
        expression: expression.to_owned(),
        problem,
    };
    let defs = jaq_core::defs()
        .chain(jaq_std::defs())
        .chain(jaq_json::defs());
    let funs = jaq_core::funs()
        .chain(jaq_std::funs())
        .chain(jaq_json::funs());
    let loader = Loader::new(defs);
    let arena = Arena::default();
    let program = File {
        code: expression,
        path: (),
    };
    let modules = loader
        .load(&arena, program)
        .map_err(|errors| failed(format!("{} parse error(s)", errors.len())))?;
    Compiler::default()
        .with_funs(funs)
        .compile(modules)
        .map_err(|errors| {
            let names: Vec<String> = errors
                .iter()
                .flat_map(|(_, errors)| errors.iter().map(|(name, _)| (*name).to_owned()))
                .collect();
            failed(format!("unknown: {}", names.join(", ")))
        })
}

/// Checks that `expression` compiles (before anything is sent).
pub fn check(expression: &str) -> Result<(), JqError> {
    compile(expression).map(|_| ())
}

/// Runs `expression` on `body`: one line per output.
pub fn apply(expression: &str, body: &[u8]) -> Result<Vec<u8>, JqError> {
    let filter = compile(expression)?;
    let input =
        jaq_json::read::parse_single(body).map_err(|error| JqError::NotJson(error.to_string()))?;
    let ctx = Ctx::<data::JustLut<Val>>::new(&filter.lut, Vars::new([]));
    let mut out = Vec::new();
    for value in filter.id.run((ctx, input)).map(unwrap_valr) {
        let value = value.map_err(|error| JqError::Run {
            expression: expression.to_owned(),
            problem: error.to_string(),
        })?;
        match &value {
            Val::TStr(text) => out.extend_from_slice(text),
            other => out.extend_from_slice(other.to_string().as_bytes()),
        }
        out.push(b'\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_raw_and_values_compact_one_per_line() {
        let body = br#"{"data":[{"id":1,"name":"a b"},{"id":2,"name":"c"}]}"#;
        let out = apply(".data[] | .name", body).unwrap();
        assert_eq!(out, b"a b\nc\n");
        let out = apply(".data[0]", body).unwrap();
        assert_eq!(out, b"{\"id\":1,\"name\":\"a b\"}\n");
        let out = apply("[.data[].id] | length", body).unwrap();
        assert_eq!(out, b"2\n");
    }

    #[test]
    fn bad_expressions_and_bodies_are_errors() {
        assert!(matches!(check(".[ "), Err(JqError::Compile { .. })));
        assert!(matches!(
            check("nosuchfilter"),
            Err(JqError::Compile { .. })
        ));
        assert!(matches!(apply(".", b"<html>"), Err(JqError::NotJson(_))));
        assert!(matches!(
            apply("error(\"x\")", b"{}"),
            Err(JqError::Run { .. })
        ));
    }
}
