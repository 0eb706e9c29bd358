//! TypeScript declarations of the plain objects the package takes and
//! returns, emitted into the generated `.d.ts` next to the classes.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_COMMON: &'static str = r#"
/** A limit's size. */
export interface Quota { requests: number; window_ms: number }

/** One problem with one parameter, as in a 400 `errors` array. */
export interface ParamProblem { parameter: string; problem: string }

/** Header forms accepted everywhere: [name, value] pairs, a Headers/Map, or a plain object. */
export type HeadersInit =
  | Iterable<[string, string | Uint8Array]>
  | Record<string, string | Uint8Array>;
"#;

#[cfg(feature = "gate")]
#[wasm_bindgen(typescript_custom_section)]
const TS_GATE: &'static str = r#"
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

"#;

#[cfg(feature = "client")]
#[wasm_bindgen(typescript_custom_section)]
const TS_CLIENT: &'static str = r#"

/** One credential of a client (its secret is sent, never shown). */
export interface ClientCredentialJson {
  id: string;
  kind: "api_key" | "oauth2";
  secret: string;
  user: string;
}

/** Retry rules (the core's JSON form). */
export interface RetryPolicyJson {
  max_attempts?: number;
  backoff?: { base_ms?: number; cap_ms?: number };
  max_retry_after_ms?: number;
  deadline_ms?: number;
}

/** Retry budget costs and capacity (the core's JSON form). */
export interface BudgetPolicyJson {
  capacity?: number;
  retry_cost?: number;
  timeout_cost?: number;
  throttled_cost?: number;
  success_refund?: number;
}

/** Client configuration: the JSON document shared by every binding (snake_case, all optional). */
export interface ClientConfig {
  base_url?: string;
  version?: string;
  stable_egress_url?: string | null;
  stable_egress_header?: string;
  catalogue?: unknown[];
  credentials?: ClientCredentialJson[];
  api_key_header?: "x_api_key" | "bearer";
  auto_idempotency_keys?: boolean;
  credential_quota?: Quota;
  client_ip_quota?: Quota;
  retry?: RetryPolicyJson;
  budget?: BudgetPolicyJson;
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
  status: number;
  headers?: HeadersInit;
  body?: string | Uint8Array;
}

/** How one attempt ended: a response, or a transport failure. */
export type OutcomeInit = HttpResponseInit | { transport: "connect" | "timeout" | "interrupted" };

/** The throttle's answer. */
export type Plan =
  | { plan: "send_now" }
  | { plan: "wait_until"; at: number; limit: string; reason: "quota" | "retry_after" };

/** Why an attempt is retried. */
export type RetryCauseInfo =
  | { type: "throttled"; retryAfter: boolean }
  | { type: "server_error"; status: number }
  | { type: "transport"; failure: "connect" | "timeout" | "interrupted" };

/** The end of a logical call: the response, or the error (returned, not thrown). */
export type Finished =
  | { kind: "finished"; ok: true; response: ApiResponse }
  | { kind: "finished"; ok: false; error: import("./__SNIPPETS__/errors.js").AcdError };

/** What Client.onOutcome concluded. */
export type Handled =
  | { kind: "retry"; at: number; attempt: number; cause: RetryCauseInfo; cost: number }
  | Finished;

/** What Call.handle did. */
export type CallEvent =
  | { kind: "retrying"; at: number; attempt: number; cause: RetryCauseInfo }
  | Finished;

/** What a state machine wants done next. */
export type Step =
  | { kind: "send"; request: ClientRequest }
  | { kind: "wait"; until: number }
  | { kind: "awaiting" }
  | { kind: "done" };

/** What Pager.handle did. */
export type PagerEvent =
  | { kind: "page"; records: unknown[]; recordsJson: string[]; last: boolean }
  | { kind: "retrying"; at: number; cause: RetryCauseInfo }
  | { kind: "failed"; error: import("./__SNIPPETS__/errors.js").AcdError };

/** What RunPoller.handle did. */
export type PollEvent =
  | { kind: "status"; state: string; terminal: boolean; run: unknown }
  | { kind: "retrying"; at: number; cause: RetryCauseInfo }
  | { kind: "failed"; error: import("./__SNIPPETS__/errors.js").AcdError }
  | { kind: "deadlineReached"; deadlineAt: number; lastState: string | undefined };

export interface TablePagerOptionsInit {
  pageSize?: number;
  orderBy?: string;
  descending?: boolean;
  offsetOnly?: boolean;
  credential?: string;
}

export interface ConnectionPagerOptionsInit {
  pageSize?: number;
  filter?: string;
  egress?: "default" | "header" | "url";
  credential?: string;
}

export interface PollOptionsInit {
  intervalMs?: number;
  jitterPerMille?: number;
  statusField?: string;
  terminalStates?: string[];
  deadlineMs?: number;
  maxIntervalMs?: number;
}

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
  blockedUntil: number;
  inFlight: number;
  source: "assumed" | "index" | "headers";
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
