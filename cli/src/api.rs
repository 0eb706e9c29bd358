//! `acd api METHOD PATH` with the flags of `gh api`: the request the
//! command line describes (path, query, fields, body, headers), or a pager
//! for `--paginate`. Everything here fails before any request is sent.

use crate::args::ApiArgs;
use crate::engine::Job;
use crate::setup::{Printing, SetupError};
use acd_core::client::{
    CallSpec, ClientConfig, ConnectionPagerOptions, RequestSpec, TablePagerOptions,
};
use acd_core::model::ids::{LIST_CONNECTION_RECORDS, LIST_TABLE_RECORDS};
use acd_core::model::PathTemplate;
use acd_core::model::{decode_component, CredentialPolicy, Envelope, Operation, ParamRole};
use serde_json::{Map, Value};
use std::io::Read;

fn fail<T>(message: impl Into<String>) -> Result<T, SetupError> {
    Err(SetupError(message.into()))
}

/// What `acd api` adds around the core's request.
#[derive(Debug, Clone, Default)]
pub struct Raw {
    /// `-H` headers, added to every request (replacing one of the same name).
    pub headers: Vec<(String, String)>,
    /// `-i`: the status line and response headers before the body.
    pub include: bool,
    /// `--jq`.
    pub jq: Option<String>,
    /// For a path outside the version root: the URL prefix the core puts
    /// (`{base}/api/v1`) and the one it is sent under instead (`{base}`).
    pub reroot: Option<(String, String)>,
    /// `acd api` prints any successful body, JSON or not, as received.
    pub any_body: bool,
}

/// Headers that carry credentials: only --api-key/--token set them.
const CREDENTIAL_HEADERS: [&str; 4] = [
    "authorization",
    "x-api-key",
    "proxy-authorization",
    "cookie",
];

/// Whether a header carries a credential (never shown, never taken from -H).
pub fn is_credential_header(name: &str) -> bool {
    CREDENTIAL_HEADERS
        .iter()
        .any(|candidate| name.eq_ignore_ascii_case(candidate))
}

/// The id of an operation `acd api` calls that the catalogue does not know.
const RAW_OPERATION: &str = "acdApiRaw";

/// The job, printing and extras of `acd api`.
pub fn plan(config: &mut ClientConfig, args: &ApiArgs) -> Result<(Job, Printing, Raw), SetupError> {
    let mut raw = Raw {
        headers: headers(&args.headers)?,
        include: args.include,
        jq: args.jq.clone(),
        reroot: None,
        any_body: true,
    };
    if let Some(expression) = &args.jq {
        crate::jq::check(expression).map_err(|error| SetupError(error.to_string()))?;
    }
    let method = args.method.to_ascii_uppercase();
    if method.is_empty() || !method.bytes().all(|b| b.is_ascii_alphabetic()) {
        return fail(format!(
            "{:?} is not an HTTP method; give one like GET",
            args.method
        ));
    }
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
    let (mut spec, operation, outside) = route(config, &method, &args.path)?;
    if outside {
        let root = format!("{}/api/{}", config.base_url, config.version);
        raw.reroot = Some((root, config.base_url.clone()));
    }
    // Fields: the query of a GET or of a request whose body is given, the
    // JSON body otherwise.
    if method == "GET" || body.is_some() {
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
        let job = pager(&spec, operation.as_ref(), &args.path)?;
        return Ok((job, Printing::Records(crate::args::Format::Jsonl), raw));
    }
    Ok((Job::Call(CallSpec::request(spec)), Printing::Body, raw))
}

/// `-H 'Name: value'` lines.
fn headers(lines: &[String]) -> Result<Vec<(String, String)>, SetupError> {
    let mut headers = Vec::new();
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            return fail(format!(
                "-H {line:?} is not a header; give it as 'Name: value'"
            ));
        };
        let name = name.trim();
        let value = value.trim();
        if ureq::http::HeaderName::try_from(name).is_err()
            || ureq::http::HeaderValue::try_from(value).is_err()
        {
            return fail(format!(
                "-H {name:?}: not a valid header name and value; give it as 'Name: value'"
            ));
        }
        if is_credential_header(name) {
            return fail(format!(
                "-H {name}: credentials are not taken from headers; give --api-key KEY or \
                 --token TOKEN (or set ACD_API_KEY or ACD_TOKEN)"
            ));
        }
        headers.push((name.to_owned(), value.to_owned()));
    }
    Ok(headers)
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

/// The request for METHOD PATH: the catalogue's operation when the route
/// is one (so its limits and validators apply), else an ad-hoc one. Also
/// says whether the path lies outside the version root.
fn route(
    config: &mut ClientConfig,
    method: &str,
    path: &str,
) -> Result<(RequestSpec, Option<Operation>, bool), SetupError> {
    if let Some(bad) = path.chars().find(|c| c.is_whitespace() || c.is_control()) {
        return Err(SetupError(format!(
            "{path:?} is not a usable path: it holds {bad:?} (a space, CR, LF or other \
             control character); percent-encode it (a space is %20) and try again"
        )));
    }
    let (raw_path, raw_query) = path.split_once('?').unwrap_or((path, ""));
    let root = format!("/api/{}", config.version);
    let decode = |raw: &[u8]| -> Result<String, SetupError> {
        decode_component(raw)
            .map(|text| text.into_owned())
            .map_err(|problem| SetupError(format!("{path:?}: {problem}")))
    };
    let split = |relative: &str| -> Vec<Vec<u8>> {
        let relative = relative.trim_start_matches('/');
        if relative.is_empty() {
            Vec::new()
        } else {
            relative.split('/').map(|s| s.as_bytes().to_vec()).collect()
        }
    };
    let find = |config: &ClientConfig, segments: &[Vec<u8>]| {
        let segments: Vec<&[u8]> = segments.iter().map(Vec::as_slice).collect();
        config.catalogue.operations().iter().find_map(|operation| {
            (operation.method == method)
                .then(|| operation.path.match_segments(&segments))
                .flatten()
                .map(|values| {
                    (
                        operation.clone(),
                        values.into_iter().map(<[u8]>::to_vec).collect::<Vec<_>>(),
                    )
                })
        })
    };
    // Under the root, or relative to it; a path with a leading slash that
    // is no catalogue route relative to the root is outside it.
    let (relative, outside) = match raw_path.strip_prefix(&root) {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => (rest.to_owned(), false),
        _ if !raw_path.starts_with('/') => (raw_path.to_owned(), false),
        _ if find(config, &split(raw_path)).is_some() => (raw_path.to_owned(), false),
        _ => (raw_path.to_owned(), true),
    };
    let segments = split(&relative);
    let found = if outside {
        None
    } else {
        find(config, &segments)
    };
    let (mut spec, operation) = match found {
        Some((operation, values)) => {
            let mut spec = RequestSpec::new(operation.id.clone());
            for (name, raw) in operation.path.param_names().zip(values) {
                spec = spec.path(name, decode(&raw)?);
            }
            (spec, Some(operation))
        }
        None => {
            let shown = format!("/{}", relative.trim_start_matches('/'));
            let template = PathTemplate::parse(&shown)
                .or_else(|error| fail(format!("{path:?} is not a usable path: {error}")))?;
            let credential = if config.credentials.is_empty() {
                CredentialPolicy::Public
            } else {
                CredentialPolicy::ApiKeyOrOAuth { scope: None }
            };
            let operation = Operation {
                id: RAW_OPERATION.into(),
                method: method.to_owned(),
                path: template,
                credential,
                envelope: Envelope::Data,
                params: Vec::new(),
                extra_limits: Vec::new(),
                stable_egress: false,
                needs_resource: true,
                deprecation: None,
                honours_idempotency_key: false,
                noun: None,
            };
            config
                .catalogue
                .add(operation)
                .or_else(|error| fail(format!("{path:?} cannot be called: {error}")))?;
            (RequestSpec::new(RAW_OPERATION), None)
        }
    };
    for pair in raw_query.split('&').filter(|pair| !pair.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        spec = spec.query(decode(name.as_bytes())?, decode(value.as_bytes())?);
    }
    Ok((spec, operation, outside))
}

/// `--paginate`: the core's pager for a paged read, its options from the
/// request's query.
fn pager(spec: &RequestSpec, operation: Option<&Operation>, path: &str) -> Result<Job, SetupError> {
    let Some(operation) = operation.filter(|operation| {
        operation.id == LIST_TABLE_RECORDS || operation.id == LIST_CONNECTION_RECORDS
    }) else {
        return fail(format!(
            "--paginate works on the paged reads (GET tables/{{id}} and GET \
             connections/{{connection_id}}/records); {path:?} is not one"
        ));
    };
    let role_of = |name: &str| {
        operation
            .params
            .iter()
            .find(|param| param.name == name)
            .map(|param| param.role)
    };
    let mut page_size = None;
    let mut order_by = None;
    let mut descending = false;
    let mut filter = None;
    let mut entity = None;
    for (name, value) in &spec.query {
        match role_of(name) {
            Some(ParamRole::Limit) => {
                page_size = Some(value.parse::<u64>().or_else(|_| {
                    fail(format!(
                        "{name}={value:?} is not a whole number of records per page"
                    ))
                })?);
            }
            Some(ParamRole::OrderBy) => order_by = Some(value.clone()),
            Some(ParamRole::Direction) => descending = value.eq_ignore_ascii_case("desc"),
            Some(ParamRole::Filter) => filter = Some(value.clone()),
            Some(ParamRole::EntityId) => entity = Some(value.clone()),
            _ => {
                return fail(format!(
                    "--paginate reads from the first record; {name} cannot be combined with it"
                ))
            }
        }
    }
    let path_value = |name: &str| {
        spec.path
            .iter()
            .find(|(candidate, _)| candidate == name)
            .map(|(_, value)| value.clone())
            .unwrap_or_default()
    };
    if operation.id == LIST_TABLE_RECORDS {
        let defaults = TablePagerOptions::default();
        let table = operation
            .path
            .param_names()
            .next()
            .map(path_value)
            .unwrap_or_default();
        return Ok(Job::Call(CallSpec::table_pages(
            table,
            TablePagerOptions {
                page_size: page_size.unwrap_or(defaults.page_size),
                order_by,
                descending,
                ..defaults
            },
        )));
    }
    let defaults = ConnectionPagerOptions::default();
    let connection = operation
        .path
        .param_names()
        .next()
        .map(path_value)
        .unwrap_or_default();
    let Some(entity) = entity else {
        return fail("--paginate on connection records needs the entity in the query");
    };
    Ok(Job::Call(CallSpec::connection_pages(
        connection,
        entity,
        ConnectionPagerOptions {
            page_size: page_size.unwrap_or(defaults.page_size),
            filter,
            ..defaults
        },
    )))
}
