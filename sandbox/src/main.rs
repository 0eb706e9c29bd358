//! `acd-sandbox`: a real HTTP/1.1 server on loopback whose every rule comes
//! from acd-core. The command line is read here and the server started;
//! every part of it is in the library (`src/lib.rs`).

use acd_core::limit::RateLimiter;
use acd_sandbox::{admin, banner, bounds, cli, clock, config, faults, handler, recorder, reqlog};
use acd_sandbox::{openapi_doc, server, static_files};
use clap::Parser;
use std::process::ExitCode;
use std::sync::Arc;

/// Exit status of a bad command line or configuration.
const USAGE: u8 = 2;
/// Exit status when the server cannot run (e.g. the port is taken).
const FAILURE: u8 = 1;

fn main() -> ExitCode {
    let args = cli::Args::parse();
    if !args.listen.ip().to_canonical().is_loopback() && !args.allow_remote {
        eprintln!(
            "acd-sandbox: --listen {} is not a loopback address; the sandbox serves published \
             demo credentials and listens on loopback only (e.g. 127.0.0.1:8080 or [::1]:8080) \
             unless --allow-remote is given",
            args.listen
        );
        return ExitCode::from(USAGE);
    }
    let file = match &args.config {
        Some(path) => match config::read(path) {
            Ok(file) => file,
            Err(error) => {
                eprintln!("acd-sandbox: config {}: {error}", path.display());
                return ExitCode::from(USAGE);
            }
        },
        None => config::FileConfig::default(),
    };
    let static_roots = match (&args.static_dir, &args.dashboard) {
        (_, Some(None)) => {
            match static_files::embedded_dashboard().or_else(|| {
                static_files::dashboard(std::path::Path::new(acd_sandbox::cli::DEFAULT_WASM_DIR))
                    .ok()
            }) {
                Some(roots) => Some(roots),
                None => {
                    eprintln!(
                        "acd-sandbox: --dashboard: this acd-sandbox has no dashboard built in (it was \
                         compiled without the `dashboard` feature, which scripts/dist enables); use \
                         the acd-sandbox of a release, or give --dashboard WASM_DIR: a wasm/ \
                         directory whose package scripts/lib/build-wasm.sh built"
                    );
                    return ExitCode::from(USAGE);
                }
            }
        }
        (_, Some(Some(wasm_dir))) => match static_files::dashboard(wasm_dir) {
            Ok(roots) => Some(roots),
            Err(problem) => {
                eprintln!("acd-sandbox: --dashboard: {problem}");
                return ExitCode::from(USAGE);
            }
        },
        (Some(dir), None) => match std::fs::canonicalize(dir) {
            Ok(dir) if dir.is_dir() => Some(static_files::StaticRoots {
                demo: dir,
                pkg: None,
                embedded: false,
            }),
            Ok(_) => {
                eprintln!("acd-sandbox: --static {}: not a directory", dir.display());
                return ExitCode::from(USAGE);
            }
            Err(error) => {
                eprintln!("acd-sandbox: --static {}: {error}", dir.display());
                return ExitCode::from(USAGE);
            }
        },
        (None, None) => None,
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("acd-sandbox: cannot start the runtime: {error}");
            return ExitCode::from(FAILURE);
        }
    };
    let (code, app) = runtime.block_on(run(args, file, static_roots));
    if let Some(app) = app {
        // Lines still queued (and the count of dropped ones) go out now,
        // unless stderr is still not read: then they are left behind.
        app.log().finish(bounds::LOG_GRACE);
    }
    code
}

/// A fresh in-memory limiter (the default fixed windows). Its hash seed comes
/// from the operating system, so no client can predict which keys share a
/// slot (the core takes the seed as an argument and never reads entropy).
fn in_memory_limiter() -> Arc<dyn RateLimiter> {
    let hash_seed = getrandom::u64().unwrap_or_else(|_| fastrand::u64(..));
    acd_core::limit::in_memory(
        acd_core::limit::LimitAlgorithm::FixedWindow,
        acd_core::limit::LimiterConfig {
            hash_seed,
            ..acd_core::limit::LimiterConfig::default()
        },
    )
}

/// The limiter the gate uses, and how the admin routes see it.
async fn limiter(args: &cli::Args) -> Result<(Arc<dyn RateLimiter>, handler::Limits), ExitCode> {
    if let Some(shared) = shared_limiter(args).await? {
        // The handler checks shared limits with the async store itself
        // (`Gate::prepare`, then the store, then `resume`); the gate's own
        // limiter is never asked, and would answer 503 if it were.
        return Ok((
            Arc::new(handler::AwaitedElsewhere),
            handler::Limits::Shared(Arc::new(shared)),
        ));
    }
    if args.admin_routes() {
        let limiter = Arc::new(admin::ResettableLimiter::new(in_memory_limiter));
        return Ok((limiter.clone(), handler::Limits::Resettable(limiter)));
    }
    Ok((in_memory_limiter(), handler::Limits::InMemory))
}

/// The TTL grace of Redis keys under `--clock manual`: a day (see
/// sandbox/README.md).
const MANUAL_CLOCK_TTL_GRACE: std::time::Duration = std::time::Duration::from_secs(86_400);

/// The Redis-backed store of `--redis`, if given. A bad URL or namespace
/// is a usage error; an unreachable Redis is not (the fault policy answers
/// until it is reachable), but it is reported.
async fn shared_limiter(
    args: &cli::Args,
) -> Result<Option<acd_redis::AsyncRedisLimiter>, ExitCode> {
    let Some(url) = &args.redis else {
        return Ok(None);
    };
    let config = acd_redis::RedisConfig {
        namespace: args
            .redis_namespace
            .clone()
            .unwrap_or_else(|| "acd".to_owned()),
        cluster: args.redis_cluster,
        fault_policy: if args.redis_fail_closed {
            acd_redis::FaultPolicy::FailClosed
        } else {
            acd_redis::FaultPolicy::FailOpen
        },
        ..acd_redis::RedisConfig::new(url.clone())
    };
    // With the manual clock, Redis's real-time TTLs only collect garbage:
    // a day past each window's end (in sandbox time), so a frozen window
    // keeps its counts however long the test takes, as in memory.
    let config = if args.clock == cli::ClockMode::Manual {
        acd_redis::RedisConfig {
            ttl_grace: MANUAL_CLOCK_TTL_GRACE,
            ..config
        }
    } else {
        config
    };
    let store = match acd_redis::AsyncRedisLimiter::new(config) {
        Ok(store) => store,
        Err(error) => {
            eprintln!("acd-sandbox: --redis: {error}");
            return Err(ExitCode::from(USAGE));
        }
    };
    let config = store.config();
    match store.ping().await {
        Ok(()) => eprintln!(
            "acd-sandbox: rate limits shared through Redis at {} (namespace {:?}, {} when it \
             cannot answer)",
            config.endpoint(),
            config.namespace,
            config.fault_policy
        ),
        Err(error) => eprintln!(
            "acd-sandbox: Redis at {} does not answer yet ({error}); starting anyway, {} until \
             it does",
            config.endpoint(),
            config.fault_policy
        ),
    }
    Ok(Some(store))
}

/// The webhook deliveries of the configuration and `--webhook`, if any.
fn webhooks(
    args: &cli::Args,
    built: &config::Built,
    faults: bool,
) -> Result<Option<acd_sandbox::webhooks::Webhooks>, String> {
    let endpoints = built
        .webhooks
        .endpoints(&args.webhooks, args.webhook_secret.as_deref())
        .map_err(|error| error.to_string())?;
    let delivery_faults = faults.then(|| built.webhooks.faults.clone().unwrap_or_default());
    acd_sandbox::webhooks::Webhooks::new(endpoints, delivery_faults)
        .map_err(|error| error.to_string())
}

/// Serves until a signal; returns the exit status and, once it served, the
/// application (whose log is finished after the runtime is done).
async fn run(
    args: cli::Args,
    file: config::FileConfig,
    static_roots: Option<static_files::StaticRoots>,
) -> (ExitCode, Option<Arc<handler::App>>) {
    let signals = match server::ShutdownSignals::install() {
        Ok(signals) => signals,
        Err(error) => {
            eprintln!("acd-sandbox: cannot listen for SIGTERM and SIGINT: {error}");
            return (ExitCode::from(FAILURE), None);
        }
    };
    let listener = match tokio::net::TcpListener::bind(args.listen).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("acd-sandbox: cannot listen on {}: {error}", args.listen);
            return (ExitCode::from(FAILURE), None);
        }
    };
    let local = match listener.local_addr() {
        Ok(local) => local,
        Err(error) => {
            eprintln!("acd-sandbox: cannot read the listening address: {error}");
            return (ExitCode::from(FAILURE), None);
        }
    };
    let (limiter, limits) = match limiter(&args).await {
        Ok(limiter) => limiter,
        Err(code) => return (code, None),
    };
    let config_name = args
        .config
        .as_ref()
        .map_or_else(|| "(built-in)".to_owned(), |p| p.display().to_string());
    let built = match file.build_with(local, limiter) {
        Ok(built) => built,
        Err(error) => {
            eprintln!("acd-sandbox: config {config_name}: {error}");
            return (ExitCode::from(USAGE), None);
        }
    };
    let faults = if args.faults {
        match faults::Faults::new(&built.faults, &openapi_doc::value(&built)) {
            Ok(faults) => Some(faults),
            Err(error) => {
                eprintln!("acd-sandbox: config {config_name}: {error}");
                return (ExitCode::from(USAGE), None);
            }
        }
    } else {
        None
    };
    let config = built.gate.config();
    let log = reqlog::RequestLog::new(
        args.log,
        [
            config.api_key_prefix.clone(),
            config.oauth_token_prefix.clone(),
        ],
    );
    let clock = match args.clock {
        cli::ClockMode::System => clock::Clock::System,
        cli::ClockMode::Manual => clock::Clock::manual(clock::system_now_ms()),
    };
    let notes = banner::Notes {
        demo: built.demo,
        faults: faults.as_ref().map(faults::Faults::rule_count),
        config_fault_rules: built.faults.rules.len(),
        manual_clock: clock.is_manual(),
        admin: args.admin_routes(),
        admin_token: args.admin_token.is_some(),
        remote: !local.ip().to_canonical().is_loopback(),
        dashboard: static_roots
            .as_ref()
            .is_some_and(|roots| roots.pkg.is_some() || roots.embedded),
    };
    let webhooks = match webhooks(&args, &built, faults.is_some()) {
        Ok(webhooks) => webhooks,
        Err(error) => {
            eprintln!("acd-sandbox: config {config_name}: {error}");
            return (ExitCode::from(USAGE), None);
        }
    };
    let options = handler::Options {
        static_roots,
        clock,
        admin: args.admin_routes(),
        admin_token: args.admin_token.clone(),
        faults,
        log,
        recorder: recorder::Recorder::new(if args.admin_routes() {
            args.recorded_requests
        } else {
            0
        }),
        limits,
        webhooks,
    };
    let app = Arc::new(handler::App::new(built, options));
    let webhook_lines = app
        .webhooks()
        .map(acd_sandbox::webhooks::Webhooks::banner_lines)
        .unwrap_or_default();
    banner::print_with(local, app.gate().config(), notes, &webhook_lines);
    if app.webhooks().is_some() {
        tokio::spawn(acd_sandbox::webhooks::dispatch::run(app.clone()));
    }
    let router = handler::router(app.clone());
    server::serve(listener, app.clone(), router, args.timeouts(), signals).await;
    (ExitCode::SUCCESS, Some(app))
}
