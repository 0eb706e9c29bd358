//! `acd api METHOD PATH` with the flags of `gh api`: the request the
//! command line describes, or a pager for `--paginate`. The target is
//! routed by the core (`ClientConfig::route_target`, through the catalogue
//! router the gate uses), `-H` headers are the call's own headers (the core
//! refuses those it sets itself), and a paged read becomes the core's pager
//! (`CallSpec::pages_of`). Everything here fails before any request is sent.

use crate::args::ApiArgs;
use crate::engine::Job;
use crate::setup::{Printing, SetupError};
use acd_core::client::{CallOptions, CallSpec, ClientConfig};
use serde_json::{Map, Value};
use std::io::Read;

fn fail<T>(message: impl Into<String>) -> Result<T, SetupError> {
    Err(SetupError(message.into()))
}

/// What `acd api` prints around the response.
#[derive(Debug, Clone, Default)]
pub struct Raw {
    /// `-i`: the status line and response headers before the body.
    pub include: bool,
    /// `--jq`.
    pub jq: Option<String>,
    /// `acd api` prints any successful body, JSON or not, as received.
    pub any_body: bool,
}

/// The job, printing and extras of `acd api`; its `-H` headers go into
/// `options`.
pub fn plan(
    config: &mut ClientConfig,
    args: &ApiArgs,
    options: &mut CallOptions,
) -> Result<(Job, Printing, Raw), SetupError> {
    let raw = Raw {
        include: args.include,
        jq: args.jq.clone(),
        any_body: true,
    };
    if let Some(expression) = &args.jq {
        crate::jq::check(expression).map_err(|error| SetupError(error.to_string()))?;
    }
    options.headers = headers(&args.headers)?;
    let fields = fields(&args.raw_fields, &args.fields)?;
    let body = match (&args.input, &args.data) {
        (Some(file), _) => Some(read_input(file, "--input")?),
        (None, Some(data)) => {
            if let Err(error) = serde_json::from_str::<serde::de::IgnoredAny>(data) {
                return fail(format!("--data is not JSON ({error}); give a JSON body"));
            }
            Some(data.as_bytes().to_vec())
        }
        (None, None) => None,
    };
    let mut spec = config.route_target(&args.method, &args.path)?;
    // Fields: the query of a GET or of a request whose body is given, the
    // JSON body otherwise.
    if args.method.eq_ignore_ascii_case("GET") || body.is_some() {
        for (name, value) in &fields {
            let text = match value {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            spec = spec.query(name.clone(), text);
        }
        if let Some(body) = body {
            spec = spec.body(body);
        }
    } else if !fields.is_empty() {
        let object: Map<String, Value> = fields.into_iter().collect();
        spec = spec.body(Value::Object(object).to_string().into_bytes());
    }
    if args.paginate {
        let call = CallSpec::pages_of(&spec, &config.catalogue)?;
        return Ok((
            Job::Call(call),
            Printing::Records(crate::args::Format::Jsonl),
            raw,
        ));
    }
    Ok((Job::Call(CallSpec::request(spec)), Printing::Body, raw))
}

/// `-H 'Name: value'` lines, as the call's headers (the core checks them).
fn headers(lines: &[String]) -> Result<Vec<(String, String)>, SetupError> {
    lines
        .iter()
        .map(|line| match line.split_once(':') {
            Some((name, value)) => Ok((name.trim().to_owned(), value.trim().to_owned())),
            None => fail(format!(
                "-H {line:?} is not a header; give it as 'Name: value'"
            )),
        })
        .collect()
}

/// `-f` (strings) then `-F` (typed) fields, in that order.
fn fields(raw: &[String], typed: &[String]) -> Result<Vec<(String, Value)>, SetupError> {
    let mut fields = Vec::new();
    for (flag, items) in [("-f", raw), ("-F", typed)] {
        for item in items {
            let Some((key, value)) = item.split_once('=') else {
                return fail(format!(
                    "{flag} {item:?} is not a field; give it as key=value"
                ));
            };
            if key.is_empty() {
                return fail(format!("{flag} {item:?} has no key; give it as key=value"));
            }
            let value = if flag == "-f" {
                Value::String(value.to_owned())
            } else {
                typed_value(value, key)?
            };
            fields.push((key.to_owned(), value));
        }
    }
    Ok(fields)
}

/// `-F`'s value: `true`, `false`, `null`, a number, `@FILE`, or a string.
fn typed_value(text: &str, key: &str) -> Result<Value, SetupError> {
    Ok(match text {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        "null" => Value::Null,
        _ => {
            if let Some(file) = text.strip_prefix('@') {
                let bytes = read_input(file, &format!("-F {key}=@"))?;
                match String::from_utf8(bytes) {
                    Ok(text) => Value::String(text),
                    Err(_) => return fail(format!("-F {key}=@{file}: the file is not UTF-8 text")),
                }
            } else if let Ok(number) = text.parse::<serde_json::Number>() {
                Value::Number(number)
            } else {
                Value::String(text.to_owned())
            }
        }
    })
}

/// The bytes of FILE, or stdin for `-`.
fn read_input(file: &str, flag: &str) -> Result<Vec<u8>, SetupError> {
    let mut bytes = Vec::new();
    let read = if file == "-" {
        std::io::stdin().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::read(file).map(|content| bytes = content)
    };
    read.map_err(|error| SetupError(format!("{flag}{file}: cannot be read ({error})")))?;
    Ok(bytes)
}
