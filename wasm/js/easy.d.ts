// Types of the SDK's client (easy.js): AcdClient, its options, events and
// the typed documents (the API index and runs). Records are the caller's
// type: `read<T>()`, `iter<T>()`, `pages<T>()`. Durations are milliseconds.
import type { Timers, Transport } from './transport.js';

/** An instant: Unix milliseconds. */
export type UnixMillis = number;

/** One form of credential the API accepts (`authentication.methods[]`). */
export interface AuthenticationMethod {
  type: 'api_key' | 'oauth2';
  documentation_url: string;
  headers?: string[];
  self_serve?: boolean;
  credential_creation?: 'available_after_account_access';
  account_access?: 'invite_required';
  flow?: string;
  metadata_url?: string;
  scopes_supported?: string[];
}

/** The API index document (`GET /api/v1`), as the API serves it. */
export interface ApiIndex {
  name: string;
  description?: string;
  version: string;
  base_url: string;
  documentation_url: string;
  openapi_url: string;
  developers_url: string;
  llms_txt_url?: string;
  authentication: { methods: AuthenticationMethod[] };
  onboarding: {
    account_access: 'invite_required';
    access_request_url: string;
    trial: { available: boolean; duration_days: number; invite_required: boolean };
    public_sandbox_available: boolean;
  };
  rate_limits: {
    requests: number; window_seconds: number; scope?: string; response_headers: string[]; documentation_url?: string;
  };
  versioning: {
    strategy: 'url_path'; current_version: string; deprecation_headers?: string[];
    minimum_sunset_notice_days?: number; documentation_url?: string;
  };
  /** Top-level resource name → absolute URL (path templates included). */
  resources: Record<string, string>;
  clients?: { cli?: string; cli_documentation_url?: string };
  webhooks_documentation_url?: string;
}

/** An agent run (`runs.create`, `runs.get`). */
export interface Run {
  id: string;
  agent_id: string;
  /** `queued`, `running`, or a terminal status. */
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | (string & {});
  /** When the run was created (Unix ms). */
  created_at_ms?: UnixMillis;
  /** When the current status began (Unix ms). */
  updated_at_ms?: UnixMillis;
  [member: string]: unknown;
}

/** The limit a wait is for (e.g. `user_table_reads`, 5 per 60 s). */
export interface LimitInfo { readonly name: string; readonly requests: number; readonly windowSeconds: number }

/** A call waits (a limit, a Retry-After, a backoff, a poll interval) until `until`. */
export interface WaitingEvent {
  readonly type: 'waiting';
  readonly call: number;
  readonly until: UnixMillis;
  /** `quota`, `retry_after`, `backoff`, `poll_interval`, ... */
  readonly reason: string;
  readonly limit?: LimitInfo | null;
  /** The core's sentence (what, how long, which limit). */
  readonly message: string;
}

/** A failed attempt is retried at `at`. */
export interface RetryingEvent {
  readonly type: 'retrying';
  readonly call: number;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly at: UnixMillis;
  readonly status?: number | null;
  readonly failure?: string | null;
  readonly message: string;
}

/** A Deprecation/Sunset notice for an operation; `message` writes the dates out. */
export interface DeprecationEvent {
  readonly type: 'deprecation';
  readonly call: number;
  readonly message: string;
  readonly [member: string]: unknown;
}

/** An event type this package does not know (a newer core): kept, never a failure. */
export interface UnknownEvent {
  readonly type: 'unknown';
  readonly call: number;
  readonly event: { readonly type: string; readonly [member: string]: unknown };
}

/** The events `onEvent` receives. */
export type VisibleEvent = WaitingEvent | RetryingEvent | DeprecationEvent;

/** One page of a pager (`page` is 1 for the first). */
export interface Page<T> { readonly records: T[]; readonly page: number; readonly last: boolean }

/** A source of the current time (Unix ms). */
export interface Clock { now(): UnixMillis }

/** The host clock (`Date.now()`). */
export declare const systemClock: Clock;

/** Options every method takes. */
export interface CallOptions {
  /** Bounds the whole call (waits and retries included); then it fails with TimeoutError. */
  timeoutMs?: number;
  /** Extra headers sent with every attempt (e.g. `Prefer`). */
  headers?: Record<string, string> | Iterable<[string, string]>;
  /** At most this many attempts for this call. */
  maxAttempts?: number;
  /** Aborting cancels the call and rejects with the signal's reason. */
  signal?: AbortSignal;
  /** An idempotency key instead of the automatic one. */
  idempotencyKey?: string;
  /** The id of the credential to use (default: the first). */
  credential?: string;
}

/** Options of a table pager. */
export interface TablePagesOptions extends CallOptions {
  pageSize?: number;
  orderBy?: string;
  descending?: boolean;
  /** Whether `orderBy` is unique (keyset paging). */
  uniqueOrder?: boolean;
}

/** Options of one page of table records. */
export interface TableReadOptions extends Omit<TablePagesOptions, 'uniqueOrder'> { offset?: number }

/** Options of connection records (`filter`: the connection's filter, any JSON value or its JSON text). */
export interface ConnectionOptions extends CallOptions {
  pageSize?: number;
  filter?: unknown;
  egress?: 'default' | 'header' | 'url';
}

/** Options of one page of connection records. */
export interface ConnectionReadOptions extends ConnectionOptions { offset?: number }

/** Options of `request`: path parameters by name, query by wire name, the JSON body. */
export interface RequestOptions extends CallOptions {
  path?: Record<string, string>;
  query?: Record<string, string | number | boolean> | Array<[string, string]>;
  /** Query parameters by role (`limit`, `offset`, `order_by`, ...), named by the catalogue. */
  roles?: Array<[string, string]>;
  body?: unknown;
  egress?: 'default' | 'header' | 'url';
}

/** Options of `runs.create`: the run's `input` (sent as `{"input": ...}`), or the whole `body`. */
/** The core writes the body: `{"input": input}`, or `{}` without an input. */
export interface RunCreateOptions extends CallOptions { input?: unknown }

/** Options of `runs.wait`; `timeoutMs` is how long to wait for a terminal status. */
export interface RunWaitOptions extends CallOptions {
  /** Time between polls (the core's default when absent). */
  intervalMs?: number;
  /** The spread of the poll interval, per mille. */
  jitterPerMille?: number;
  /** Called with each new status. */
  onStatus?: (status: string, run: Run) => void;
}

/** Receives one line per wait, retry and deprecation notice (e.g. `console`). */
export type Logger = ((line: string, event: VisibleEvent) => void)
  | { info(line: string): void; warn?(line: string): void };

/** Options of `AcdClient`. */
export interface AcdClientOptions {
  /** The API's base URL (else `ACD_BASE_URL` under Node, else the core's default). */
  baseUrl?: string;
  /** An API key (else `ACD_API_KEY` under Node). */
  apiKey?: string;
  /** Credentials, when more than one: `{id, kind, secret, user}`. */
  credentials?: Array<{ id: string; kind: string; secret: string; user?: string }>;
  /** Every other client setting (the core's ClientConfig, e.g. `seed`, `retry`, `maxBodyBytes`). */
  config?: Record<string, unknown>;
  /** How requests are sent (default: `fetchTransport()`). */
  transport?: Transport;
  clock?: Clock;
  timers?: Timers;
  onEvent?: (event: VisibleEvent, call: number) => void;
  logger?: Logger;
}

/** The throttle's view of one limit. */
export interface LimitState {
  readonly name: string;
  readonly requests: number;
  readonly windowSeconds: number;
  readonly remaining: number;
  /** When the window ends (Unix ms), if known. */
  readonly resetAt?: UnixMillis | null;
}

type Rows = Record<string, unknown>;

/** An async client of the API (docs/sdk.md). */
export declare class AcdClient {
  constructor(options?: AcdClientOptions);
  index(options?: CallOptions): Promise<ApiIndex>;
  /** One call of any catalogue operation; resolves to the response's body. */
  request<T = unknown>(operation: string, options?: RequestOptions): Promise<T>;
  readonly tables: {
    read<T = Rows>(table: string, options?: TableReadOptions): Promise<T[]>;
    iter<T = Rows>(table: string, options?: TablePagesOptions): AsyncIterableIterator<T>;
    pages<T = Rows>(table: string, options?: TablePagesOptions): AsyncGenerator<Page<T>, void, undefined>;
  };
  readonly connections: {
    read<T = Rows>(connection: string, entity: string, options?: ConnectionReadOptions): Promise<T[]>;
    iter<T = Rows>(connection: string, entity: string, options?: ConnectionOptions): AsyncIterableIterator<T>;
    pages<T = Rows>(connection: string, entity: string, options?: ConnectionOptions): AsyncGenerator<Page<T>, void, undefined>;
  };
  readonly runs: {
    create(agentId: string, options?: RunCreateOptions): Promise<Run>;
    get(runId: string, options?: CallOptions): Promise<Run>;
    /** Polls until a terminal status; resolves to the run as last received. */
    wait(runId: string, options?: RunWaitOptions): Promise<Run>;
  };
  /** The throttle's view of each limit, now. */
  limits(): LimitState[];
  /** Whether no call is live. */
  readonly idle: boolean;
  /** Cancels every call, clears the timers; later calls reject with AcdConfigError. */
  close(): void;
  [Symbol.dispose](): void;
}
