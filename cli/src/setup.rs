//! From the parsed command line to what the engine needs: the client's
//! configuration (base URL, credential, retry policy) and the command's one
//! call. Everything here fails before any request is sent (exit status 2).

use crate::args::{Cli, Command, ConnectionReadArgs, Format, PagingArgs, TableReadArgs};
use crate::engine::Job;
use acd_core::client::{
    normalise_base_url, stable_egress_url_for, CallSpec, ClientConfig, ClientCredential,
    ConnectionPagerOptions, EgressMode, PollOptions, RequestSpec, RetryPolicy, TablePagerOptions,
    DEFAULT_CREDENTIAL_ID, DEFAULT_CREDENTIAL_USER,
};
use acd_core::model::ParamRole;

/// A command line or configuration that cannot run.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SetupError(pub String);

fn fail<T>(message: impl Into<String>) -> Result<T, SetupError> {
    Err(SetupError(message.into()))
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
#[derive(Debug)]
pub struct Plan {
    /// The client's configuration.
    pub config: ClientConfig,
    /// The call.
    pub job: Job,
    /// What to print.
    pub printing: Printing,
    /// The command's budget for waits and retries, if given.
    pub deadline_ms: Option<u64>,
    /// Read the index before paging, to learn the advertised limit.
    pub learn_limits: bool,
    /// What `acd api` adds around the core's request (empty otherwise).
    pub raw: crate::api::Raw,
    /// What kind of job it is, for printing and the exit status.
    pub job_kind: crate::run::JobKind,
    /// The proxy from the environment, if any.
    pub proxy: Option<ureq::Proxy>,
    /// How long one exchange may take, sending to the body's last byte.
    pub timeout: std::time::Duration,
}

/// Where each global value came from: the flag, or its environment
/// variable (an empty variable counts as unset). Configuration errors name
/// the one the user actually gave.
#[derive(Debug, Clone, Default)]
pub struct Origins {
    /// `--base-url` or `ACD_BASE_URL`.
    pub base_url: &'static str,
    /// `--api-key` or `ACD_API_KEY`.
    pub api_key: &'static str,
    /// `--token` or `ACD_TOKEN`.
    pub token: &'static str,
    /// The variables that are set but empty (so count as unset).
    pub empty: Vec<&'static str>,
}

impl Origins {
    /// Reads the sources of the global values from clap's matches.
    pub fn of(matches: &clap::ArgMatches) -> Self {
        let mut empty = Vec::new();
        let mut origin = |id: &str, flag: &'static str, variable: &'static str| {
            if matches.value_source(id) == Some(clap::parser::ValueSource::EnvVariable) {
                if std::env::var_os(variable).is_some_and(|value| value.is_empty()) {
                    empty.push(variable);
                }
                variable
            } else {
                flag
            }
        };
        Self {
            base_url: origin("base_url", "--base-url", "ACD_BASE_URL"),
            api_key: origin("api_key", "--api-key", "ACD_API_KEY"),
            token: origin("token", "--token", "ACD_TOKEN"),
            empty,
        }
    }

    fn unset(&self, origin: &str) -> bool {
        self.empty.contains(&origin)
    }
}

/// Builds the plan of `cli`'s command; `origins` says where the global
/// values came from.
pub fn plan(cli: &Cli, origins: &Origins) -> Result<Plan, SetupError> {
    let global = &cli.global;
    let base_url = if origins.unset(origins.base_url) {
        crate::args::DEFAULT_BASE_URL
    } else {
        global.base_url.as_str()
    };
    let api_key = global
        .api_key
        .as_ref()
        .filter(|_| !origins.unset(origins.api_key));
    let token = global
        .token
        .as_ref()
        .filter(|_| !origins.unset(origins.token));
    // The core's defaults: its one base-URL rule, the stable-egress URL
    // derived from it, and the credential behind a bare key.
    let base_url = normalise_base_url(base_url).or_else(|error| explain(&error, origins, false))?;
    let mut config = ClientConfig {
        stable_egress_url: Some(stable_egress_url_for(&base_url)),
        base_url,
        ..ClientConfig::default()
    };
    match (api_key, token) {
        (Some(_), Some(_)) => {
            return fail(format!(
                "{} and {} are both set; give only one",
                origins.api_key, origins.token
            ))
        }
        (Some(key), None) => config
            .credentials
            .push(ClientCredential::default_api_key(key.as_str())),
        (None, Some(token)) => config.credentials.push(ClientCredential::oauth_token(
            DEFAULT_CREDENTIAL_ID,
            token.as_str(),
            DEFAULT_CREDENTIAL_USER,
        )),
        (None, None) => {}
    }
    if let Some(attempts) = global.max_attempts {
        if attempts == 0 {
            return fail("--max-attempts must be 1 or more (the first try counts as one)");
        }
        apply_max_attempts(&mut config.retry, attempts);
    }
    let deadline_ms = match global.deadline {
        None => None,
        Some(seconds) if seconds.is_finite() && seconds >= 0.0 => {
            let ms = (seconds * 1000.0).round() as u64;
            config.retry.deadline_ms = ms;
            config.retry.max_retry_after_ms = ms;
            Some(ms)
        }
        Some(_) => return fail("--deadline must be a number of seconds, 0 or more"),
    };
    let timeout = match global.timeout {
        None => crate::transport::DEFAULT_TIMEOUT,
        Some(seconds) if seconds.is_finite() && seconds > 0.0 && seconds <= 86_400.0 => {
            std::time::Duration::from_secs_f64(seconds)
        }
        Some(_) => return fail("--timeout must be a number of seconds above 0, at most 86400"),
    };
    check_config(&config, origins, api_key.is_some())?;
    let proxy = crate::proxy::for_base_url(&config.base_url)?;
    let mut raw = crate::api::Raw::default();
    let (job, printing) = match &cli.command {
        Command::Index => (
            Job::Call(CallSpec::request(RequestSpec::get_api_index())),
            Printing::Body,
        ),
        Command::Tables(crate::args::TablesCommand::Read(args)) => table_job(args)?,
        Command::Connections(crate::args::ConnectionsCommand::Read(args)) => connection_job(args)?,
        Command::Runs(crate::args::RunsCommand::Wait(args)) => {
            let job = Job::Call(CallSpec::run_poll(
                args.run_id.clone(),
                poll_options(args.interval, deadline_ms)?,
            ));
            (job, Printing::Run)
        }
        Command::Api(args) => {
            let (job, printing, api) = crate::api::plan(&mut config, args)?;
            raw = api;
            (job, printing)
        }
        Command::Runs(crate::args::RunsCommand::Create(args)) => {
            let mut spec = RequestSpec::create_agent_run(args.agent_id.clone());
            if let Some(data) = &args.data {
                if let Err(error) = serde_json::from_str::<serde::de::IgnoredAny>(data) {
                    return fail(format!("--data is not JSON ({error}); give a JSON body"));
                }
                spec = spec.body(data.as_bytes().to_vec());
            }
            let wait = if args.wait {
                Some(poll_options(args.interval, deadline_ms)?)
            } else {
                None
            };
            // The bare run, with or without --wait (as `runs wait` prints it).
            (Job::CreateRun { spec, wait }, Printing::Run)
        }
        Command::Completions { .. } => return fail("completions need no request"),
        Command::Listen(_) | Command::Webhooks(_) => {
            return fail("webhook commands need no API request")
        }
    };
    let job_kind = if matches!(&job, Job::CreateRun { wait: Some(_), .. }) {
        crate::run::JobKind::CreateRunAndWait
    } else {
        crate::run::JobKind::Other
    };
    Ok(Plan {
        config,
        job,
        printing,
        deadline_ms,
        learn_limits: global.learn_limits,
        raw,
        job_kind,
        proxy,
        timeout,
    })
}

/// The poller's options: `--interval`, and `--deadline` as its deadline.
fn poll_options(
    interval: Option<f64>,
    deadline_ms: Option<u64>,
) -> Result<PollOptions, SetupError> {
    let mut options = PollOptions::default();
    if let Some(seconds) = interval {
        if !(seconds.is_finite() && seconds > 0.0) {
            return fail("--interval must be a number of seconds above 0");
        }
        options.interval_ms = (seconds * 1000.0).round().max(1.0) as u64;
    }
    if let Some(ms) = deadline_ms {
        options.deadline_ms = ms;
    }
    Ok(options)
}

/// The core's check of `config`, its errors told in terms of the flag or
/// variable each field came from.
fn check_config(config: &ClientConfig, origins: &Origins, key: bool) -> Result<(), SetupError> {
    match config.check() {
        Ok(()) => Ok(()),
        Err(error) => explain(&error, origins, key),
    }
}

/// The core's configuration error, told in terms of the flag or variable
/// its field came from.
fn explain<T>(
    error: &acd_core::client::ClientError,
    origins: &Origins,
    key: bool,
) -> Result<T, SetupError> {
    let acd_core::client::ClientError::InvalidConfig { field, problem } = error else {
        return fail(error.to_string());
    };
    let origin = match field.as_str() {
        "base_url" => origins.base_url,
        "credentials" if key => origins.api_key,
        "credentials" => origins.token,
        "retry.max_attempts" => "--max-attempts",
        field if field.starts_with("retry.") => "--deadline",
        _ => return fail(error.to_string()),
    };
    let what = if field == "credentials" {
        // The secret itself is never shown.
        format!("{origin}: the value given")
    } else {
        origin.to_owned()
    };
    fail(format!("{what}: {problem}"))
}

/// `--max-attempts N` on the core's retry policy: its `max_attempts` counts
/// every attempt of a request, the first and 429s included, so N is handed
/// over as it is (`max_throttled` keeps the core's default).
fn apply_max_attempts(retry: &mut RetryPolicy, attempts: u32) {
    retry.max_attempts = attempts;
}

fn no_offset_with_all(paging: &PagingArgs) -> Result<(), SetupError> {
    if paging.all && paging.offset.is_some() {
        return fail("--offset cannot be combined with --all, which reads from the first record");
    }
    Ok(())
}

/// The page size of `--all`: `--page-size`, else `--limit`, else the core's default.
fn page_size(paging: &PagingArgs, default: u64) -> Result<u64, SetupError> {
    match (paging.page_size, &paging.limit) {
        (Some(size), _) => Ok(size),
        (None, Some(limit)) => limit.parse().or_else(|_| {
            fail(format!(
                "--limit {limit:?} is not a whole number; give the page size as digits"
            ))
        }),
        (None, None) => Ok(default),
    }
}

fn table_job(args: &TableReadArgs) -> Result<(Job, Printing), SetupError> {
    let paging = &args.paging;
    let printing = Printing::Records(paging.format);
    if !paging.all {
        let mut spec = RequestSpec::list_table_records(args.table.clone());
        spec = with_paging(spec, paging);
        if let Some(column) = &args.order_by {
            spec = spec.param(ParamRole::OrderBy, column.clone());
        }
        if args.desc {
            spec = spec.param(ParamRole::Direction, "desc");
        }
        if let Some(after) = &args.after {
            spec = spec.param(ParamRole::After, after.clone());
        }
        return Ok((Job::Call(CallSpec::request(spec)), printing));
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
    let job = Job::Call(CallSpec::table_pages(args.table.clone(), options));
    Ok((job, printing))
}

fn connection_job(args: &ConnectionReadArgs) -> Result<(Job, Printing), SetupError> {
    let paging = &args.paging;
    let printing = Printing::Records(paging.format);
    if let Some(filter) = &args.filter {
        if let Err(error) = serde_json::from_str::<serde::de::IgnoredAny>(filter) {
            return fail(format!("--filter is not JSON ({error}); give a JSON value"));
        }
    }
    let egress = if args.stable_egress {
        EgressMode::Header
    } else {
        EgressMode::Default
    };
    if !paging.all {
        let mut spec =
            RequestSpec::list_connection_records(args.connection.clone(), args.entity.clone())
                .egress(egress);
        spec = with_paging(spec, paging);
        if let Some(filter) = &args.filter {
            spec = spec.param(ParamRole::Filter, filter.clone());
        }
        return Ok((Job::Call(CallSpec::request(spec)), printing));
    }
    no_offset_with_all(paging)?;
    let defaults = ConnectionPagerOptions::default();
    let options = ConnectionPagerOptions {
        page_size: page_size(paging, defaults.page_size)?,
        filter: args.filter.clone(),
        egress,
        ..defaults
    };
    let job = Job::Call(CallSpec::connection_pages(
        args.connection.clone(),
        args.entity.clone(),
        options,
    ));
    Ok((job, printing))
}

fn with_paging(mut spec: RequestSpec, paging: &PagingArgs) -> RequestSpec {
    if let Some(limit) = &paging.limit {
        spec = spec.param(ParamRole::Limit, limit.clone());
    }
    if let Some(offset) = &paging.offset {
        spec = spec.param(ParamRole::Offset, offset.clone());
    }
    spec
}
