//! `acd-redis`: acd's rate limits kept in Redis, so that every gate instance
//! behind a load balancer enforces the *same* "100 requests per 60 s per
//! credential".
//!
//! Two stores share one script, key naming, fault policy and backoff:
//!
//! * [`AsyncRedisLimiter`], for async servers: the gate stops at
//!   [`Gate::prepare`](acd_core::gate::Gate::prepare), the store awaits one
//!   script call on a multiplexed connection (concurrent decisions pipeline
//!   on it; a Redis Cluster when [`RedisConfig::cluster`] is set) and
//!   [`AsyncRedisLimiter::resolve`] finishes the decision. No thread waits
//!   on Redis.
//! * [`RedisLimiter`], blocking, implements acd-core's
//!   [`RateLimiter`](acd_core::limit::RateLimiter), the seam the gate
//!   already uses, for synchronous callers.
//!
//! The in-memory limiter stays the embedded default. acd-core stays
//! sans-IO: the Redis client (the `redis` crate) lives here only.
//!
//! ```no_run
//! use acd_core::gate::{Gate, GateConfig};
//! use acd_redis::{RedisConfig, RedisLimiter};
//! use std::sync::Arc;
//! let limiter = RedisLimiter::new(RedisConfig::new("redis://127.0.0.1:6379"))?;
//! let gate = Gate::new(
//!     GateConfig::default(),
//!     Arc::new(acd_core::gate::demo::credentials()),
//!     Arc::new(limiter),
//! )?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # One round trip, atomic, all or none
//!
//! A stacked decision (credential + user + IP …) is one `EVALSHA` over all
//! of the request's keys: [`script::WINDOW_LUA`] for fixed windows (one
//! integer counter per limit, subject and window, the window's end in the
//! key's name: a new window is a new key, so nothing is ever reset, and a
//! counter is added to with one `INCRBY`), [`script::STACK_LUA`] for GCRA
//! (a `"T:E"` state per key). The script reads every key once, runs the
//! same transition as acd-core (written out in `acd_core::limit`'s
//! documentation) and the same all-or-none rule as `decide_stack`, and
//! writes only when every limit admits: a refused request consumes
//! nothing, exactly as in memory.
//! `tests/differential.rs` runs random multi-key timelines through both
//! engines and requires identical decisions, remaining counts, reset and
//! retry times, and stored states. Keys share one hash tag per namespace,
//! so one decision's keys are always in one Redis Cluster slot
//! ([`keys`] explains why the tag is the namespace, not the key).
//!
//! # Time comes from the caller
//!
//! `now` is the gate's clock, passed to the script; Redis's clock is never
//! read for a decision, so behaviour is deterministic and testable.
//! Instances' clocks differ, though:
//!
//! * Fixed window: windows are aligned to the epoch in each caller's time,
//!   and each window has its own counter. An instance whose clock is behind
//!   counts into the window its clock is in, on that window's counter, so
//!   each window admits at most its limit by the clocks of those counting
//!   in it; with a skew of `d`, a window's counter is shared for `d` longer
//!   than the window (the in-memory limiter, with one state per key, would
//!   count such a request into the newer window instead).
//! * GCRA: an instance whose clock is ahead by `d` sees `d` more credit, so
//!   it may admit up to `ceil(d * requests / window)` requests early; one
//!   behind refuses slightly more.
//! * Expiry (below) tolerates skew up to [`RedisConfig::ttl_grace`].
//!
//! Keep clocks in sync (NTP keeps them within milliseconds) and set
//! `ttl_grace` above the worst skew.
//!
//! # Expiry without a sweep
//!
//! Every key gets a relative TTL when it is written first (fixed window:
//! a window's counter keeps it, `INCRBY` does not renew it) or, for GCRA,
//! at every write: `PX = (expiry - now) + grace`, where `expiry` is the end
//! of the window (fixed window) or the instant the key is back to a full
//! burst (GCRA), both in the caller's time: the TTL is a
//! duration, so it does not matter that Redis's clock reads differently
//! from the caller's (an absolute `PEXPIREAT` would). A state past its
//! expiry means the same as no state, so Redis forgets it by itself and
//! its memory stays bounded by the keys live in the last window. A key
//! could be forgotten too early only if an instance whose clock is ahead by
//! more than the grace wrote it last.
//!
//! # Faults
//!
//! Redis down, slow (beyond `io_timeout`), restarting (`LOADING`, flushed
//! script cache: reloaded transparently) or answering garbage never panics
//! and never hangs a request: a call waits at most `connect_timeout +
//! io_timeout`. The [`FaultPolicy`] answers meanwhile: **fail open** (the
//! default) decides with a per-process in-memory limiter; **fail closed**
//! returns [`LimiterUnavailable`](acd_core::limit::LimiterUnavailable)
//! from `try_acquire`, which the gate turns into `503` with `Retry-After`.
//! The first failure logs one line (then one per failed reconnection
//! attempt, and one on recovery) and starts a backoff: no request touches
//! Redis until it has passed, then exactly one probes it; each failed probe
//! doubles the wait (`backoff_min` … `backoff_max`).
//!
//! # After an outage
//!
//! A probe opens a new connection and awaits it (no stale error from an
//! earlier attempt), and the backoff is capped at 250 ms by default, so
//! Redis decides again within 1 s of answering again (docs/limiter.md).
//! Redis never decides before it holds every count the instance knows of:
//! what the in-memory fallback admitted (fail open, fixed windows) and,
//! when the namespace's epoch key says Redis lost its data (a restart
//! without persistence, a flush), what Redis had admitted for this
//! instance in the windows still current. Both are added (`merge.lua`)
//! before the next decision, so the rest of the window is shared again
//! from the true total. GCRA states are not merged. docs/limiter.md states
//! the bound on over-admission that remains.

#![deny(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation
)]

mod async_store;
mod batcher;
pub mod config;
pub mod error;
pub mod event;
mod health;
pub mod keys;
mod ledger;
pub mod limiter;
mod link;
mod policy;
mod reply;
pub mod script;

pub use async_store::AsyncRedisLimiter;
pub use config::{FaultPolicy, RedisConfig};
pub use error::StoreError;
pub use event::{stderr_sink, EventSink, StoreEvent};
pub use keys::KeySpace;
pub use limiter::RedisLimiter;
pub use policy::{ConfigError, StoreStats};
pub use reply::Outcome;
pub use script::{Batch, Prepared};
