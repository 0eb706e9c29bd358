//! `acd-sandbox`: a real HTTP/1.1 server on loopback whose every rule comes
//! from acd-core. The sandbox itself only does I/O: sockets, the clock and
//! the data store.
//!
//! * [`cli`]: the command line; [`bounds`]: sizes and timeouts.
//! * [`config`]: the `--config` file; [`demo`]: the built-in data.
//! * [`server`], [`conn_io`]: connections; [`handler`], [`cors`],
//!   [`static_files`]: requests; [`store`], [`records`]: the data.
//! * [`banner`]: what is printed at start.

mod banner;
mod bounds;
mod cli;
mod config;
mod conn_io;
mod cors;
mod demo;
mod handler;
mod server;
mod static_files;
mod store;

use clap::Parser;
use std::process::ExitCode;
use std::sync::Arc;

/// Exit status of a bad command line or configuration.
const USAGE: u8 = 2;
/// Exit status when the server cannot run (e.g. the port is taken).
const FAILURE: u8 = 1;

fn main() -> ExitCode {
    let args = cli::Args::parse();
    if !args.listen.ip().is_loopback() {
        eprintln!(
            "acd-sandbox: --listen {} is not a loopback address; the sandbox serves published \
             demo credentials and listens on loopback only (e.g. 127.0.0.1:8080 or [::1]:8080)",
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
    let static_dir = match &args.static_dir {
        Some(dir) => match std::fs::canonicalize(dir) {
            Ok(dir) if dir.is_dir() => Some(dir),
            Ok(_) => {
                eprintln!("acd-sandbox: --static {}: not a directory", dir.display());
                return ExitCode::from(USAGE);
            }
            Err(error) => {
                eprintln!("acd-sandbox: --static {}: {error}", dir.display());
                return ExitCode::from(USAGE);
            }
        },
        None => None,
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
    runtime.block_on(run(args, file, static_dir))
}

/// The Redis-backed limiter of `--redis`, if given. A bad URL or namespace
/// is a usage error; an unreachable Redis is not (the fault policy answers
/// until it is reachable), but it is reported.
fn shared_limiter(
    args: &cli::Args,
) -> Result<Option<Arc<dyn acd_core::limit::RateLimiter>>, ExitCode> {
    let Some(url) = &args.redis else {
        return Ok(None);
    };
    let config = acd_redis::RedisConfig {
        namespace: args
            .redis_namespace
            .clone()
            .unwrap_or_else(|| "acd".to_owned()),
        fault_policy: if args.redis_fail_closed {
            acd_redis::FaultPolicy::FailClosed
        } else {
            acd_redis::FaultPolicy::FailOpen
        },
        ..acd_redis::RedisConfig::new(url.clone())
    };
    let limiter = match acd_redis::RedisLimiter::new(config) {
        Ok(limiter) => limiter,
        Err(error) => {
            eprintln!("acd-sandbox: --redis: {error}");
            return Err(ExitCode::from(USAGE));
        }
    };
    let config = limiter.config();
    match limiter.ping() {
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
    Ok(Some(Arc::new(limiter)))
}

async fn run(
    args: cli::Args,
    file: config::FileConfig,
    static_dir: Option<std::path::PathBuf>,
) -> ExitCode {
    let signals = match server::ShutdownSignals::install() {
        Ok(signals) => signals,
        Err(error) => {
            eprintln!("acd-sandbox: cannot listen for SIGTERM and SIGINT: {error}");
            return ExitCode::from(FAILURE);
        }
    };
    let listener = match tokio::net::TcpListener::bind(args.listen).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("acd-sandbox: cannot listen on {}: {error}", args.listen);
            return ExitCode::from(FAILURE);
        }
    };
    let local = match listener.local_addr() {
        Ok(local) => local,
        Err(error) => {
            eprintln!("acd-sandbox: cannot read the listening address: {error}");
            return ExitCode::from(FAILURE);
        }
    };
    let limiter = match shared_limiter(&args) {
        Ok(limiter) => limiter,
        Err(code) => return code,
    };
    let built = match file.build_with(local, limiter) {
        Ok(built) => built,
        Err(error) => {
            let name = args
                .config
                .as_ref()
                .map_or_else(|| "(built-in)".to_owned(), |p| p.display().to_string());
            eprintln!("acd-sandbox: config {name}: {error}");
            return ExitCode::from(USAGE);
        }
    };
    let demo = built.demo;
    let app = Arc::new(handler::App::new(built, static_dir));
    banner::print(local, app.gate().config(), demo);
    server::serve(listener, handler::router(app), args.timeouts(), signals).await;
    ExitCode::SUCCESS
}
