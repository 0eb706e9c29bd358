//! From the parsed command line to what the drive loop needs: the client's
//! configuration and the command's call. Everything here fails before any
//! request is sent (exit status 2).
//!
//! The configuration is the core's config JSON (`ClientConfig::from_json`):
//! each global flag given is its member (`--base-url` is `base_url`,
//! `--api-key` `api_key`, `--token` `token`, `--max-attempts`
//! `retry.max_attempts`) and the `ACD_*` variables go in `env` as read, so
//! every default, precedence and check is the core's. A refusal is the
//! core's sentence, after the flag or variable its member came from.
//!
//! The call is one of the core's typed call kinds, built from the command's
//! arguments; `--deadline` is its timeout (`options.timeout_ms`), nothing
//! else.

use crate::args::{Cli, Command, ConnectionReadArgs, Format, PagingArgs, TableReadArgs};
use crate::clock::Clock;
use crate::engine::Job;
use acd_core::client::{
    CallOptions, CallSpec, ClientConfig, ClientError, ConnectionPagerOptions, ConnectionRead,
    EgressMode, PollOptions, TablePagerOptions, TableRead, ENV_API_KEY, ENV_BASE_URL, ENV_TOKEN,
};
use clap::parser::ValueSource;
use serde_json::{json, Map, Value};
use std::time::Duration;

/// A command line or configuration that cannot run.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SetupError(pub String);

fn fail<T>(message: impl Into<String>) -> Result<T, SetupError> {
    Err(SetupError(message.into()))
}

impl From<ClientError> for SetupError {
    fn from(error: ClientError) -> Self {
        SetupError(error.to_string())
    }
}

/// What the command prints on success.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Printing {
    /// Records, in this format.
    Records(Format),
    /// The response body as received.
    Body,
    /// The final run object.
    Run,
}

/// Everything a command needs to run.
pub struct Plan {
    /// The client's configuration.
    pub config: ClientConfig,
    /// The call.
    pub job: Job,
    /// What to print.
    pub printing: Printing,
    /// Read the index before paging, to learn the advertised limit.
    pub learn_limits: bool,
    /// What `acd api` prints around the response (empty otherwise).
    pub raw: crate::api::Raw,
    /// The proxy from the environment, if any.
    pub proxy: Option<ureq::Proxy>,
    /// `--timeout`: the longest one exchange may take, when shorter than
    /// the deadline the core gives each transmit.
    pub timeout: Option<Duration>,
    /// The clock.
    pub clock: Clock,
}

/// The config members the command line and the environment give, and
/// where each came from (for the sentence of a refusal).
struct Document {
    members: Map<String, Value>,
    /// (member, where it came from) for every member given.
    origins: Vec<(&'static str, &'static str)>,
}

/// The flags and variables of the configuration: (clap id, member, flag, variable).
const MEMBERS: [(&str, &str, &str, Option<&str>); 4] = [
    ("base_url", "base_url", "--base-url", Some(ENV_BASE_URL)),
    ("api_key", "api_key", "--api-key", Some(ENV_API_KEY)),
    ("token", "token", "--token", Some(ENV_TOKEN)),
    ("max_attempts", "retry.max_attempts", "--max-attempts", None),
];

impl Document {
    fn of(cli: &Cli, matches: &clap::ArgMatches) -> Self {
        let global = &cli.global;
        let mut members = Map::new();
        let mut origins = Vec::new();
        let given = |id: &str| matches.value_source(id) == Some(ValueSource::CommandLine);
        for (id, member, flag, variable) in MEMBERS {
            let value = match id {
                "base_url" => global.base_url.clone().map(Value::from),
                "api_key" => global.api_key.clone().map(Value::from),
                "token" => global.token.clone().map(Value::from),
                _ => global.max_attempts.map(Value::from),
            };
            match value {
                Some(value) if given(id) => {
                    if member == "retry.max_attempts" {
                        members.insert("retry".into(), json!({ "max_attempts": value }));
                    } else {
                        members.insert(member.into(), value);
                    }
                    origins.push((member, flag));
                }
                _ => {
                    if let Some(variable) = variable {
                        if std::env::var_os(variable).is_some_and(|value| !value.is_empty()) {
                            origins.push((member, variable));
                        }
                    }
                }
            }
        }
        let env: Map<String, Value> = [ENV_API_KEY, ENV_BASE_URL, ENV_TOKEN]
            .into_iter()
            .filter_map(|name| Some((name.to_owned(), Value::from(std::env::var(name).ok()?))))
            .collect();
        members.insert("env".into(), Value::Object(env));
        Self { members, origins }
    }

    fn origin(&self, member: &str) -> Option<&'static str> {
        self.origins
            .iter()
            .find(|(given, _)| *given == member)
            .map(|(_, origin)| *origin)
    }

    /// The core's configuration, or its refusal after the flag or variable
    /// its member came from (never the value of a secret: the core's
    /// sentences hold none).
    fn resolve(self) -> Result<ClientConfig, SetupError> {
        let bytes = Value::Object(self.members.clone()).to_string();
        ClientConfig::from_json(bytes.as_bytes()).map_err(|error| {
            let ClientError::InvalidConfig { field, problem } = &error else {
                return SetupError(error.to_string());
            };
            let origin = match field.as_str() {
                // Both a key and a token: name where each came from.
                "token" if self.members.contains_key("api_key") => self
                    .origin("api_key")
                    .zip(self.origin("token"))
                    .map(|(key, token)| format!("{key} and {token}")),
                member => self.origin(member).map(str::to_owned),
            };
            match origin {
                Some(origin) => SetupError(format!("{origin}: {problem}")),
                None => SetupError(error.to_string()),
            }
        })
    }
}

/// Seconds given on the command line, as milliseconds.
fn millis(seconds: f64, flag: &str) -> Result<u64, SetupError> {
    if seconds.is_finite() && seconds >= 0.0 {
        Ok((seconds * 1000.0).round() as u64)
    } else {
        fail(format!("{flag} must be a number of seconds, 0 or more"))
    }
}

/// Builds the plan of `cli`'s command; `matches` says which flags were given.
pub fn plan(cli: &Cli, matches: &clap::ArgMatches) -> Result<Plan, SetupError> {
    let global = &cli.global;
    let clock = Clock::from_env().map_err(SetupError)?;
    let mut config = Document::of(cli, matches).resolve()?;
    let mut options = CallOptions::default();
    if let Some(seconds) = global.deadline {
        options.timeout_ms = Some(millis(seconds, "--deadline")?);
    }
    let timeout = match global.timeout {
        None => None,
        Some(seconds) if seconds.is_finite() && seconds > 0.0 && seconds <= 86_400.0 => {
            Some(Duration::from_secs_f64(seconds))
        }
        Some(_) => return fail("--timeout must be a number of seconds above 0, at most 86400"),
    };
    let proxy = crate::proxy::for_base_url(&config.base_url)?;
    let mut raw = crate::api::Raw::default();
    let (call, printing) = match &cli.command {
        Command::Index => (Job::Call(CallSpec::index()), Printing::Body),
        Command::Tables(crate::args::TablesCommand::Read(args)) => table_call(args)?,
        Command::Connections(crate::args::ConnectionsCommand::Read(args)) => connection_call(args)?,
        Command::Runs(crate::args::RunsCommand::Wait(args)) => (
            Job::Call(CallSpec::run_wait(
                args.run_id.clone(),
                poll_options(args.interval)?,
            )),
            Printing::Run,
        ),
        Command::Runs(crate::args::RunsCommand::Create(args)) => {
            let input = match &args.data {
                Some(data) => Some(serde_json::from_str::<Value>(data).or_else(|error| {
                    fail(format!(
                        "--data is not JSON ({error}); give the run's input as JSON"
                    ))
                })?),
                None => None,
            };
            let wait = if args.wait {
                Some(poll_options(args.interval)?)
            } else {
                None
            };
            let call = CallSpec::run_create(args.agent_id.clone(), input.as_ref());
            (Job::CreateRun { call, wait }, Printing::Run)
        }
        Command::Api(args) => {
            let (job, printing, api) = crate::api::plan(&mut config, args, &mut options)?;
            raw = api;
            (job, printing)
        }
        Command::Completions { .. } => return fail("completions need no request"),
        Command::Listen(_) | Command::Webhooks(_) => {
            return fail("webhook commands need no API request")
        }
    };
    Ok(Plan {
        config,
        job: call.with_options(&options),
        printing,
        learn_limits: global.learn_limits,
        raw,
        proxy,
        timeout,
        clock,
    })
}

/// The poller's options: `--interval`.
fn poll_options(interval: Option<f64>) -> Result<PollOptions, SetupError> {
    let mut options = PollOptions::default();
    if let Some(seconds) = interval {
        if !(seconds.is_finite() && seconds > 0.0) {
            return fail("--interval must be a number of seconds above 0");
        }
        options.interval_ms = (seconds * 1000.0).round().max(1.0) as u64;
    }
    Ok(options)
}

/// A count flag (`--limit`, `--offset`): digits.
fn count(flag: &str, value: &Option<String>) -> Result<Option<u64>, SetupError> {
    value
        .as_ref()
        .map(|text| {
            text.parse().or_else(|_| {
                fail(format!(
                    "{flag} {text:?} is not a whole number; give it as digits"
                ))
            })
        })
        .transpose()
}

fn no_offset_with_all(paging: &PagingArgs) -> Result<(), SetupError> {
    if paging.all && paging.offset.is_some() {
        return fail("--offset cannot be combined with --all, which reads from the first record");
    }
    Ok(())
}

/// The page size of `--all`: `--page-size`, else `--limit`, else the core's default.
fn page_size(paging: &PagingArgs, default: u64) -> Result<u64, SetupError> {
    match paging.page_size {
        Some(size) => Ok(size),
        None => Ok(count("--limit", &paging.limit)?.unwrap_or(default)),
    }
}

fn table_call(args: &TableReadArgs) -> Result<(Job, Printing), SetupError> {
    let paging = &args.paging;
    let printing = Printing::Records(paging.format);
    if !paging.all {
        let read = TableRead {
            page_size: count("--limit", &paging.limit)?,
            offset: count("--offset", &paging.offset)?,
            order_by: args.order_by.clone(),
            descending: args.desc,
            after: args.after.clone(),
            credential: None,
        };
        return Ok((
            Job::Call(CallSpec::table_read(args.table.clone(), read)),
            printing,
        ));
    }
    no_offset_with_all(paging)?;
    if args.after.is_some() {
        return fail("--after cannot be combined with --all, which reads from the first record");
    }
    let defaults = TablePagerOptions::default();
    let options = TablePagerOptions {
        page_size: page_size(paging, defaults.page_size)?,
        order_by: args.order_by.clone(),
        descending: args.desc,
        unique_order: args.unique_order,
        ..defaults
    };
    let call = CallSpec::table_pages(args.table.clone(), options);
    Ok((Job::Call(call), printing))
}

fn connection_call(args: &ConnectionReadArgs) -> Result<(Job, Printing), SetupError> {
    let paging = &args.paging;
    let printing = Printing::Records(paging.format);
    let egress = if args.stable_egress {
        EgressMode::Header
    } else {
        EgressMode::Default
    };
    if !paging.all {
        let read = ConnectionRead {
            page_size: count("--limit", &paging.limit)?,
            offset: count("--offset", &paging.offset)?,
            filter: args.filter.clone(),
            egress,
            credential: None,
        };
        let call = CallSpec::connection_read(args.connection.clone(), args.entity.clone(), read);
        return Ok((Job::Call(call), printing));
    }
    no_offset_with_all(paging)?;
    let defaults = ConnectionPagerOptions::default();
    let options = ConnectionPagerOptions {
        page_size: page_size(paging, defaults.page_size)?,
        filter: args.filter.clone(),
        egress,
        ..defaults
    };
    let call = CallSpec::connection_pages(args.connection.clone(), args.entity.clone(), options);
    Ok((Job::Call(call), printing))
}
