//! TypeScript declarations of the plain objects the package takes and
//! returns, emitted into the generated `.d.ts` next to the classes.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_COMMON: &'static str = r#"
/** A limit's size. */
export interface Quota { requests: number; windowMs: number }

/** One problem with one parameter, as in a 400 `errors` array. */
export interface ParamProblem { parameter: string; problem: string }

/** Header forms accepted everywhere: [name, value] pairs, a Headers/Map, or a plain object. */
export type HeadersInit =
  | Iterable<[string, string | Uint8Array]>
  | Record<string, string | Uint8Array>;
"#;

#[cfg(feature = "client")]
#[wasm_bindgen(typescript_custom_section)]
const TS_CLIENT: &'static str = r#"

/** One credential of a client (its secret is sent, never shown). */
export interface ClientCredentialInit {
  id: string;
  kind: "apiKey" | "oauth2";
  secret: string;
  user: string;
}

/** Retry rules. */
export interface RetryPolicyInit {
  maxAttempts?: number;
  /** 429s carrying Retry-After one call accepts before giving up. */
  maxThrottled?: number;
  backoff?: { baseMs?: number; capMs?: number };
  maxRetryAfterMs?: number;
  deadlineMs?: number;
}

/** Retry budget costs and capacity. */
export interface BudgetPolicyInit {
  capacity?: number;
  retryCost?: number;
  timeoutCost?: number;
  throttledCost?: number;
  successRefund?: number;
}

/** Client configuration (every member optional; snake_case names are accepted too). */
export interface ClientConfig {
  baseUrl?: string;
  version?: string;
  stableEgressUrl?: string | null;
  stableEgressHeader?: string;
  /**
   * The operations (default: the standard ones plus getRun). Accepted by the
   * "acd" module only; "acd/client" refuses it as an unknown member.
   */
  catalogue?: unknown[];
  credentials?: ClientCredentialInit[];
  apiKeyHeader?: "xApiKey" | "bearer";
  /** Send an Idempotency-Key on POSTs and retry them (only for servers that honour keys). */
  idempotencyKeys?: boolean;
  credentialQuota?: Quota;
  clientIpQuota?: Quota;
  proactiveThrottle?: boolean;
  retry?: RetryPolicyInit;
  budget?: BudgetPolicyInit;
  /**
   * The largest response body accepted, in bytes (default 32 MiB): the
   * transport stops reading past it and the call fails (code BODY_TOO_LARGE).
   */
  maxBodyBytes?: number;
  /** Fixes jitter and keys (tests); by default the client draws from `entropy`. */
  seed?: number;
}

/** What to call. */
export interface RequestSpecInit {
  /** An operation id, e.g. "listTableRecords". */
  operation: string;
  /** Path parameter values by name (decoded; they are encoded for you). */
  path?: Iterable<[string, string | number]> | Record<string, string | number>;
  /** Query parameters by wire name, in order. */
  query?: Iterable<[string, string | number]> | Record<string, string | number>;
  /** Query parameters by role, whatever the catalogue names them. */
  params?: Partial<Record<"offset" | "limit" | "orderBy" | "direction" | "after" | "entityId" | "filter", string | number>>;
  /** The id of the credential to use (the first configured one by default). */
  credential?: string;
  egress?: "default" | "header" | "url";
  body?: string | Uint8Array;
  idempotencyKey?: string;
}

/** A response as the transport received it. */
export interface HttpResponseInit {
  type?: "response";
  status: number;
  headers?: HeadersInit;
  body?: string | Uint8Array;
}

/** How one attempt ended: a response, or a transport failure. */
export type Outcome =
  | HttpResponseInit
  | { type: "transport"; failure: "connect" | "timeout" | "interrupted" };

/**
 * A request due now, for call `id`. The request is the driver's: it reads
 * until its outcome is handed to `handle` or the call is cancelled, and is
 * released then (reading it later throws `AcdStateError`).
 */
export interface Transmit { id: number; request: ClientRequest }

// The driver's two polls, written by the package's `Client` class
// (js/driver.js) over the module's fast paths.
export interface Client {
  /**
   * Every request due at `nowMs`, as `{id, request}` (the sends are
   * recorded at `nowMs`). Send each, then hand its outcome to `handle`.
   * Each request is the driver's: it reads until its outcome is handed to
   * `handle` or its call is cancelled, and is released then (no `free()`
   * needed); reading it later throws `AcdStateError` (`REQUEST_RELEASED`),
   * so copy what you keep.
   */
  pollTransmits(nowMs: number): Transmit[];
  /** Every event so far, in order, as `{id, event}`. */
  pollEvents(): CallEvent[];
}

/** An event of call `id`. */
export interface CallEvent { id: number; event: import("../js/easy.js").AcdEvent }

/** Options of a table pager. */
export interface TablePagerOptions {
  pageSize?: number;
  orderBy?: string;
  descending?: boolean;
  /** No two records share a value of `orderBy`: page by `after` (keyset). */
  uniqueOrder?: boolean;
  credential?: string;
}

/** Options of a connection-records pager. */
export interface ConnectionPagerOptions {
  pageSize?: number;
  filter?: string;
  egress?: "default" | "header" | "url";
  credential?: string;
}

/** Options of a run poller. */
export interface PollOptions {
  intervalMs?: number;
  jitterPerMille?: number;
  statusField?: string;
  terminalStates?: string[];
  deadlineMs?: number;
  maxIntervalMs?: number;
}

/** The throttle's answer (the core's JSON form, as in the vectors). */
export type Plan =
  | { plan: "send_now" }
  | { plan: "wait_until"; at: number; limit: string; reason: unknown };

/** The client's model of one rate limit, for display. */
export interface LimitState {
  key: string;
  name: string;
  limit: number;
  windowMs: number;
  /** Requests left now (a window that has ended counts as full). */
  remaining: number;
  /** When the current window ends, if one is open. */
  resetAt: number | undefined;
  /** The first instant one more send fits. */
  readyAt: number;
}

/** The core's JSON form of parsed rate-limit headers. */
export interface RateLimitHeadersJson {
  observations: Array<{
    dialect: "standard" | "legacy" | "structured";
    policy: string | null;
    limit: number | null;
    window_ms: number | null;
    remaining: number;
    reset_at: number;
  }>;
  retry_at: number | null;
  ignored: string[];
}

/** The core's JSON form of a deprecation notice. */
export interface DeprecationWarningJson {
  operation_id: string;
  deprecated: { form: "at"; unix_seconds: number } | { form: "yes" } | null;
  sunset_at: number | null;
  deprecation_link: string | null;
  sunset_link: string | null;
  malformed: string[];
}

/** The core's JSON form of a retry decision. */
export type RetryDecisionJson =
  | { decision: "done" }
  | { decision: "retry"; at: number; attempt: number; cost: number; cause: Record<string, unknown> }
  | { decision: "give_up"; reason: { reason: string; [member: string]: unknown } };
"#;
