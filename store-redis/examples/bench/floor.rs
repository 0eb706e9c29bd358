//! `--mode floor`: the server's time for one batched fixed-window call,
//! taken apart.
//!
//! The store's own call for `--max-batch` decisions of the bench workload
//! (the keys and arguments `acd_redis::Batch` builds, as the async store
//! sends them) goes to the fixed-window script and to three stand-ins that
//! get the same keys and arguments:
//!
//! * one that returns at once: handing the call's keys and arguments to
//!   Lua;
//! * one that adds 1 to every key with `redis.pcall('INCRBY')`, as the
//!   script's one pass does;
//! * one that returns one integer per key, the shape of the script's reply
//!   when every decision is admitted.
//!
//! The server's time in `EVALSHA` for each (`INFO commandstats`, the best
//! of `--rounds` rounds, interleaved) shows what any script that writes
//! each key once must pay, next to what the fixed-window script pays.

use crate::meter::evalsha_stats;
use crate::{checks, subjects, NOW};
use acd_core::UnixMillis;
use acd_redis::{Batch, RedisLimiter};
use redis::{Script, Value};

/// Returns at once.
const RETURN_ONLY: &str = "return 1";
/// Adds 1 to every key, as the script's one pass does.
const INCRBY_EACH: &str =
    "local pcall = redis.pcall\nfor j = 1, #KEYS do pcall('INCRBY', KEYS[j], '1') end\nreturn 1";
/// Returns one integer per key.
const REPLY_EACH: &str = "local r = {}\nfor j = 1, #KEYS do r[j] = j end\nreturn r";

/// Microseconds per call in the server: `calls` calls of `batch` to
/// `script` on `con`, one after the other.
fn server_usec(
    con: &mut redis::Connection,
    batch: &Batch,
    script: &Script,
    calls: usize,
) -> Result<f64, String> {
    let _: () = redis::cmd("CONFIG")
        .arg("RESETSTAT")
        .query(con)
        .map_err(|e| e.to_string())?;
    for _ in 0..calls {
        let _: Value = batch
            .evalsha(script)
            .query(con)
            .map_err(|e| e.to_string())?;
    }
    let (done, usec) = evalsha_stats(con)?;
    if done < calls as f64 {
        return Err(format!("INFO counted {done} calls of {calls}"));
    }
    Ok(usec / done)
}

/// Prints the floor of a call of `decisions` decisions: the best of
/// `rounds` rounds of `calls` calls per script.
pub fn run(
    url: &str,
    limiter: &RedisLimiter,
    decisions: usize,
    calls: usize,
    rounds: usize,
) -> Result<(), String> {
    // The batch as the store builds it: the first decision's own batch
    // (its algorithm and TTL grace), the others pushed onto it.
    let prepare = |i: usize| {
        let (credential, user) = subjects(i);
        limiter
            .prepare(
                &checks(&credential, &user),
                UnixMillis::new(NOW + (i as u64 % 1_000)),
            )
            .map_err(|e| e.to_string())
    };
    let mut batch = prepare(0)?.batch();
    for i in 1..decisions.max(1) {
        batch.push_owned(prepare(i)?);
    }
    let client = redis::Client::open(url).map_err(|e| e.to_string())?;
    let mut con = client.get_connection().map_err(|e| e.to_string())?;
    let scripts = [
        limiter.script().clone(),
        Script::new(RETURN_ONLY),
        Script::new(INCRBY_EACH),
        Script::new(REPLY_EACH),
    ];
    for script in &scripts {
        script.load(&mut con).map_err(|e| e.to_string())?;
        // Warm-up: the keys exist afterwards, as in a running store.
        server_usec(&mut con, &batch, script, 2)?;
    }
    // The path measured is the one pass that admits every decision: its
    // reply starts with 1.
    let reply: Value = batch
        .evalsha(&scripts[0])
        .query(&mut con)
        .map_err(|e| e.to_string())?;
    if !matches!(&reply, Value::Array(items) if items.first() == Some(&Value::Int(1))) {
        return Err(format!(
            "the script did not admit every decision at once: {reply:?}"
        ));
    }
    let mut best = [f64::INFINITY; 4];
    for _ in 0..rounds.max(1) {
        for (best, script) in best.iter_mut().zip(&scripts) {
            *best = best.min(server_usec(&mut con, &batch, script, calls)?);
        }
    }
    let [script, call, incrby, reply] = best;
    let (incrby, reply) = ((incrby - call).max(0.0), (reply - call).max(0.0));
    let logic = script - call - incrby - reply;
    let per = |usec: f64| usec / decisions.max(1) as f64;
    println!(
        "floor: {decisions} decisions and {} keys per call, best of {} rounds of {calls} calls, \
         time in EVALSHA",
        batch.key_count(),
        rounds.max(1)
    );
    for (what, usec) in [
        ("the fixed-window script", script),
        ("  handing its keys and arguments to Lua", call),
        ("  one INCRBY per key", incrby),
        ("  one integer per key in the reply", reply),
        ("  the script's own logic (the rest)", logic),
    ] {
        println!(
            "floor: {what:<40} {usec:8.1} us per call {:6.2} us/decision",
            per(usec)
        );
    }
    println!(
        "floor-per-decision: without-logic {:.3} script {:.3}",
        per(call + incrby + reply),
        per(script)
    );
    Ok(())
}
