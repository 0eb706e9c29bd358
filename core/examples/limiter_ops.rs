//! A small driver for instruction counts under callgrind: runs one limiter
//! workload `n` times so two runs at different `n` give the cost per check.
//!
//! `limiter_ops <impl> <workload> <n>` with impl `acd-fw`, `acd-gcra`,
//! `acd-fw-nosweep`, `governor-dashmap`, `governor-dashmap-foldhash` or
//! `governor-hashmap`, and workload `one-key`, `round-robin` (1M known keys,
//! prefilled) or `new-keys`.

#[path = "../benches/workloads.rs"]
mod workloads;

use acd_core::limit::{FixedWindow, LimiterConfig};
use std::process::ExitCode;
use workloads::{Acd, Subject, MANY_KEYS};

fn run<S: Subject<u64>>(subject: &S, workload: &str, n: u64) -> Option<u64> {
    match workload {
        "one-key" => Some(workloads::one_key(subject, n)),
        "round-robin" => {
            workloads::prefill(subject, MANY_KEYS);
            let mut cursor = 0;
            Some(workloads::round_robin(subject, MANY_KEYS, &mut cursor, n))
        }
        "new-keys" => Some(workloads::new_keys(subject, 0, n)),
        _ => None,
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(name), Some(workload), Some(n)) = (
        args.get(1),
        args.get(2),
        args.get(3).and_then(|n| n.parse::<u64>().ok()),
    ) else {
        eprintln!("usage: limiter_ops <impl> <workload> <n>");
        return ExitCode::FAILURE;
    };
    let admitted = match name.as_str() {
        "acd-fw" => run(&workloads::acd_fixed_window(), workload, n),
        "acd-gcra" => run(&workloads::acd_gcra(), workload, n),
        "acd-fw-nosweep" => run(
            &Acd::<u64, FixedWindow>::new(LimiterConfig {
                sweep_per_call: 0,
                ..workloads::acd_config()
            }),
            workload,
            n,
        ),
        "governor-dashmap" => run(&workloads::governor_dashmap(), workload, n),
        "governor-dashmap-foldhash" => run(&workloads::governor_dashmap_foldhash(), workload, n),
        "governor-hashmap" => run(&workloads::governor_hashmap(), workload, n),
        _ => None,
    };
    match admitted {
        Some(admitted) if admitted == n => {
            println!("{name} {workload} {n}: {admitted} admitted");
            ExitCode::SUCCESS
        }
        Some(admitted) => {
            eprintln!("{name} {workload} {n}: only {admitted} admitted; the count is void");
            ExitCode::FAILURE
        }
        None => {
            eprintln!("unknown impl or workload: {name} {workload}");
            ExitCode::FAILURE
        }
    }
}
