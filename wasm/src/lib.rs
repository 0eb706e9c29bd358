//! # acd-wasm
//!
//! acd for JavaScript: a thin wasm-bindgen layer over acd-core, built into
//! the npm package under `wasm/pkg` (browsers and Node). It converts values
//! and forwards; no rule, bound, default or sentence is written here.
//!
//! * [`gate`]: the server role (`Gate`, `Admitted`, `GateResponse`).
//! * [`error`]: failures as JavaScript `Error` subclasses with a `code`.
//! * [`js`]: conversions between JavaScript values and Rust data.
//!
//! Time is a JavaScript number of Unix milliseconds passed to every call
//! that needs it; only the `*Now` conveniences read the clock (`web-time`).
//! Names are camelCase in JavaScript; configuration documents (`GateConfig`)
//! keep the snake_case JSON shared with the sandbox and the vectors.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod error;
pub mod gate;
pub mod js;

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** A request as the gate sees it. */
export interface GateRequestInit {
  /** HTTP method; default "GET". */
  method?: string;
  /** Path and raw query as received, e.g. "/api/v1/tables/t?limit=5" (bytes for non-UTF-8 targets). */
  target: string | Uint8Array;
  /** Headers: [name, value] pairs, a Headers/Map, or a plain object. */
  headers?: Iterable<[string, string | Uint8Array]> | Record<string, string | Uint8Array>;
  /** The client's IP address; default "127.0.0.1". */
  clientIp?: string;
}

/** What a credential store knows about one credential (no secret). */
export interface CredentialRecordInit {
  /** A non-secret id, unique per credential. */
  id: string;
  kind: "api_key" | "oauth2";
  user: string;
  scopes?: string[];
  /** Unix ms from which the credential is refused. */
  expiresAt?: number | null;
}

/** One entry of the gate's in-memory credential table. */
export interface CredentialInit extends CredentialRecordInit {
  /** The secret as sent by clients (never shown in any error or output). */
  secret: string;
}

/** A limit's size. */
export interface Quota { requests: number; window_ms: number }

/**
 * Gate configuration: the JSON document shared with the sandbox's --config
 * and the conformance vectors (snake_case members, all optional).
 */
export interface GateConfig {
  version?: string;
  base_url?: string;
  stable_egress_url?: string | null;
  api_key_prefix?: string;
  oauth_token_prefix?: string;
  stable_egress_header?: string;
  realm?: string;
  limits?: { credential?: Quota; client_ip?: Quota };
  catalogue?: unknown[];
  version_deprecation?: { deprecated_at: number; sunset_at?: number | null } | null;
  index?: Record<string, unknown>;
}

/** One problem with one parameter, as in a 400 `errors` array. */
export interface ParamProblem { parameter: string; problem: string }
"#;

/// The current time in Unix milliseconds (`Date.now()`), for callers that
/// want the clock read at the edge.
#[wasm_bindgen(js_name = nowMs)]
pub fn now_ms() -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let now = js::current_unix_ms() as f64;
    now
}

/// The version of acd this package was built from.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}
