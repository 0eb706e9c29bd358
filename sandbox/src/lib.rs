//! `acd-sandbox` as a library: every part of the server, so that the
//! binary (`src/main.rs`) and the fuzz targets of its parsers
//! (`fuzz/fuzz_targets/sandbox_*.rs`: the configuration, `Prefer` and the
//! static-file paths) use the same code. The sandbox itself only does I/O:
//! sockets, the clock and the data store; every rule comes from acd-core.
//!
//! * [`cli`]: the command line; [`bounds`]: sizes and timeouts.
//! * [`config`]: the `--config` file; [`demo`]: the built-in data.
//! * [`server`], [`conn_io`]: connections; [`handler`], [`cors`],
//!   [`static_files`]: requests; [`store`]: the data (pages by `acd_core::records`).
//! * [`runs`]: agent runs; [`openapi_doc`]: `/openapi.json`.
//! * [`exchange`], [`faults`], [`reqlog`], [`recorder`]: per request, the
//!   injected fault, the log line and the recorded request; [`clock`],
//!   [`admin`]: time and the admin routes.
//! * [`banner`]: what is printed at start; [`webhooks`]: run lifecycle
//!   webhooks sent to the configured endpoints.

pub mod admin;
pub mod banner;
pub mod bounds;
pub mod cli;
pub mod clock;
pub mod config;
pub mod conn_io;
pub mod cors;
pub mod demo;
pub mod embedded;
pub mod exchange;
pub mod faults;
pub mod handler;
pub mod openapi_doc;
pub mod recorder;
pub mod reqlog;
pub mod runs;
pub mod server;
pub mod static_files;
pub mod store;
pub mod webhooks;
