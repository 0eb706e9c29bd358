//! Decisions per second through Redis (run by `scripts/bench-redis`, next to
//! `redis-benchmark` of a plain INCR on the same server).
//!
//! ```text
//! bench --url redis://127.0.0.1:6379 --mode serial|concurrent|pipelined|async|floor
//!       [--ops N] [--clients C] [--pipeline P] [--algorithm fw|gcra]
//!       [--max-batch B] [--rounds R]
//! ```
//!
//! `async` runs the decisions through [`AsyncRedisLimiter`] on one Tokio
//! thread with `C` decisions in flight at once (one multiplexed connection);
//! the other modes use the blocking [`RedisLimiter`]. `--max-batch 1` sends
//! one script call per decision (the baseline of batching).
//!
//! Each decision is the gate's usual table-read stack: a credential limit
//! and a per-user limit (two keys, one `EVALSHA`), spread over 1000
//! credentials and 100 users, with quotas large enough that every request
//! is admitted (the path that writes both keys). Prints one line:
//! `decisions/s: <rate> (<mode>, <clients> clients, pipeline <P>, <ops> decisions)`,
//! then, for `async`, where the CPU went in the timed part (after the
//! warm-up): `cpu: server <us> us/decision, script <us> us/decision (<us>
//! us per EVALSHA, <n> decisions per call), client <us> us/decision`. The
//! server figures come from Redis's `INFO cpu` and `INFO commandstats`
//! (reset after the warm-up), the client's from `/proc/self/stat` (the
//! whole bench process: the store, the Tokio runtime and the bench's own
//! tasks).
//!
//! `floor` takes the server's time for one call of `B` fixed-window
//! decisions apart (see the `floor` module), `R` rounds of `N / B` calls.

use acd_core::limit::{LimitAlgorithm, LimitCheck, Quota, StackDecision};
use acd_core::UnixMillis;
use acd_redis::{AsyncRedisLimiter, RedisConfig, RedisLimiter};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

mod floor;
mod meter;

use meter::Meter;

const NOW: u64 = 1_700_000_000_000;

struct Args {
    url: String,
    mode: String,
    ops: usize,
    clients: usize,
    pipeline: usize,
    algorithm: LimitAlgorithm,
    max_batch: usize,
    rounds: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        url: "redis://127.0.0.1:6379".to_owned(),
        mode: "serial".to_owned(),
        ops: 100_000,
        clients: 1,
        pipeline: 1,
        algorithm: LimitAlgorithm::FixedWindow,
        max_batch: RedisConfig::default().max_batch,
        rounds: 5,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = || value.parse::<usize>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--url" => args.url = value.clone(),
            "--mode" => args.mode = value.clone(),
            "--ops" => args.ops = number()?,
            "--clients" => args.clients = number()?.max(1),
            "--pipeline" => args.pipeline = number()?.max(1),
            "--max-batch" => args.max_batch = number()?.max(1),
            "--rounds" => args.rounds = number()?.max(1),
            "--algorithm" => {
                args.algorithm = match value.as_str() {
                    "fw" => LimitAlgorithm::FixedWindow,
                    "gcra" => LimitAlgorithm::Gcra,
                    other => return Err(format!("unknown algorithm {other}")),
                }
            }
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(args)
}

/// The subjects of decision `i`.
fn subjects(i: usize) -> (String, String) {
    (format!("key-{}", i % 1_000), format!("user-{}", i % 100))
}

fn checks<'a>(credential: &'a str, user: &'a str) -> [LimitCheck<'a>; 2] {
    [
        LimitCheck {
            name: "credential",
            quota: Quota::per_seconds(1_000_000_000, 60),
            subject: credential,
        },
        LimitCheck {
            name: "user_table_reads",
            quota: Quota::per_seconds(1_000_000_000, 60),
            subject: user,
        },
    ]
}

/// `ops` decisions, one round trip each, on the calling thread.
fn serial(limiter: &RedisLimiter, first: usize, ops: usize) -> Result<(), String> {
    for i in first..first + ops {
        let (credential, user) = subjects(i);
        match limiter.decide(
            &checks(&credential, &user),
            UnixMillis::new(NOW + (i as u64 % 1_000)),
        ) {
            Ok(StackDecision::Admitted { .. }) => {}
            other => return Err(format!("decision {i}: {other:?}")),
        }
    }
    Ok(())
}

/// `ops` decisions in pipelines of `depth` on one connection of its own.
fn pipelined(
    limiter: &RedisLimiter,
    url: &str,
    first: usize,
    ops: usize,
    depth: usize,
) -> Result<(), String> {
    let client = redis::Client::open(url).map_err(|e| e.to_string())?;
    let mut con = client.get_connection().map_err(|e| e.to_string())?;
    limiter.script().load(&mut con).map_err(|e| e.to_string())?;
    let mut i = first;
    while i < first + ops {
        let batch = depth.min(first + ops - i);
        let owned: Vec<(String, String)> = (i..i + batch).map(subjects).collect();
        let mut pipe = redis::pipe();
        let mut prepared = Vec::with_capacity(batch);
        for (n, (credential, user)) in owned.iter().enumerate() {
            let one = limiter
                .prepare(
                    &checks(credential, user),
                    UnixMillis::new(NOW + ((i + n) as u64 % 1_000)),
                )
                .map_err(|e| e.to_string())?;
            pipe.add_command(one.evalsha(limiter.script()));
            prepared.push(one);
        }
        let replies: Vec<redis::Value> = pipe.query(&mut con).map_err(|e| e.to_string())?;
        for (((credential, user), reply), one) in owned.iter().zip(&replies).zip(&prepared) {
            match one.decision(reply, &checks(credential, user)) {
                Ok(StackDecision::Admitted { .. }) => {}
                other => return Err(format!("pipelined decision: {other:?}")),
            }
        }
        i += batch;
    }
    Ok(())
}

/// `ops` decisions through the async store with `inflight` at once, on a
/// single-threaded runtime; returns the elapsed seconds.
fn run_async(args: &Args) -> Result<f64, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let store = AsyncRedisLimiter::new(RedisConfig {
        namespace: format!("bench-async-{}", std::process::id()),
        algorithm: args.algorithm,
        max_batch: args.max_batch,
        ..RedisConfig::new(args.url.clone())
    })
    .map_err(|e| e.to_string())?;
    let store = Arc::new(store);
    let one = |store: Arc<AsyncRedisLimiter>, i: usize| async move {
        let (credential, user) = subjects(i);
        match store
            .try_acquire(
                &checks(&credential, &user),
                UnixMillis::new(NOW + (i as u64 % 1_000)),
            )
            .await
        {
            Ok(StackDecision::Admitted { .. }) => Ok(()),
            other => Err(format!("decision {i}: {other:?}")),
        }
    };
    runtime.block_on(async {
        store.ping().await.map_err(|e| e.to_string())?;
        for i in 0..2_000 {
            one(store.clone(), i).await?;
        }
        let inflight = args.clients;
        let per_task = args.ops / inflight;
        let meter = Meter::start(&args.url)?;
        let started = Instant::now();
        let tasks: Vec<_> = (0..inflight)
            .map(|t| {
                let store = store.clone();
                tokio::spawn(async move {
                    // Interleaved: the decisions in flight at once are
                    // consecutive numbers, so they touch distinct keys
                    // (up to 1000 credentials and 100 users), whatever
                    // the number in flight.
                    for i in (t..per_task * inflight).step_by(inflight) {
                        one(store.clone(), i).await?;
                    }
                    Ok::<(), String>(())
                })
            })
            .collect();
        for task in tasks {
            task.await.map_err(|e| e.to_string())??;
        }
        let elapsed = started.elapsed().as_secs_f64();
        let stats = store.stats();
        if stats.fallback + stats.unavailable > 0 {
            return Err(format!(
                "some decisions did not go through Redis: {stats:?}"
            ));
        }
        let cpu = meter.report(per_task * inflight)?;
        println!(
            "decisions/s: {:.0} (async, {inflight} in flight, {} decisions)",
            (per_task * inflight) as f64 / elapsed,
            per_task * inflight
        );
        println!("{cpu}");
        Ok(elapsed)
    })
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(why) => {
            eprintln!("bench: {why}");
            return ExitCode::from(2);
        }
    };
    if args.mode == "async" {
        return match run_async(&args) {
            Ok(_) => ExitCode::SUCCESS,
            Err(why) => {
                eprintln!("bench: {why}");
                ExitCode::FAILURE
            }
        };
    }
    let limiter = match RedisLimiter::new(RedisConfig {
        namespace: format!("bench-{}", std::process::id()),
        algorithm: args.algorithm,
        connections: args.clients,
        ..RedisConfig::new(args.url.clone())
    }) {
        Ok(limiter) => Arc::new(limiter),
        Err(why) => {
            eprintln!("bench: {why}");
            return ExitCode::from(2);
        }
    };
    if let Err(why) = limiter.ping() {
        eprintln!("bench: {why}");
        return ExitCode::FAILURE;
    }
    if args.mode == "floor" {
        if args.algorithm != LimitAlgorithm::FixedWindow {
            eprintln!("bench: --mode floor measures the fixed-window script (--algorithm fw)");
            return ExitCode::from(2);
        }
        let calls = (args.ops / args.max_batch).max(20);
        return match floor::run(&args.url, &limiter, args.max_batch, calls, args.rounds) {
            Ok(()) => ExitCode::SUCCESS,
            Err(why) => {
                eprintln!("bench: {why}");
                ExitCode::FAILURE
            }
        };
    }
    // Warm up: connections, script cache, keys.
    let warm = serial(&limiter, 0, 2_000);
    if let Err(why) = warm {
        eprintln!("bench: {why}");
        return ExitCode::FAILURE;
    }
    let per_client = args.ops / args.clients;
    let started = Instant::now();
    let workers: Vec<_> = (0..args.clients)
        .map(|c| {
            let limiter = limiter.clone();
            let (mode, url, depth) = (args.mode.clone(), args.url.clone(), args.pipeline);
            std::thread::spawn(move || match mode.as_str() {
                "pipelined" => pipelined(&limiter, &url, c * per_client, per_client, depth),
                _ => serial(&limiter, c * per_client, per_client),
            })
        })
        .collect();
    for worker in workers {
        match worker.join() {
            Ok(Ok(())) => {}
            Ok(Err(why)) => {
                eprintln!("bench: {why}");
                return ExitCode::FAILURE;
            }
            Err(_) => {
                eprintln!("bench: a worker panicked");
                return ExitCode::FAILURE;
            }
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    let total = per_client * args.clients;
    let stats = limiter.stats();
    if stats.fallback + stats.unavailable > 0 {
        eprintln!("bench: some decisions did not go through Redis: {stats:?}");
        return ExitCode::FAILURE;
    }
    println!(
        "decisions/s: {:.0} ({}, {} clients, pipeline {}, {} decisions)",
        total as f64 / elapsed,
        args.mode,
        args.clients,
        args.pipeline,
        total
    );
    ExitCode::SUCCESS
}
