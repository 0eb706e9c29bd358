// Types of the SDK's client (easy.js): AcdClient, its options, events and
// the typed documents (the API index and runs). Records are the caller's
// type: `read<T>()`, `iter<T>()`, `pages<T>()`.
import type { AcdError } from './errors.js';
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
    requests: number;
    window_seconds: number;
    scope?: string;
    response_headers: string[];
    documentation_url?: string;
  };
  versioning: {
    strategy: 'url_path';
    current_version: string;
    deprecation_headers?: string[];
    minimum_sunset_notice_days?: number;
    documentation_url?: string;
  };
  /** Top-level resource name → absolute URL (path templates included). */
  resources: Record<string, string>;
  clients?: { cli?: string; cli_documentation_url?: string };
  webhooks_documentation_url?: string;
}

/** The statuses a run ends in. */
export type TerminalRunStatus = 'succeeded' | 'failed' | 'cancelled';

/** An agent run (`createAgentRun`, `getRun`). */
export interface Run {
  id: string;
  agent_id: string;
  /** e.g. `queued`, `running`, or a terminal status. */
  status: TerminalRunStatus | 'queued' | 'running' | (string & {});
  /** When the run was created (Unix ms). */
  created_at_ms?: UnixMillis;
  /** When the current status began (Unix ms). */
  updated_at_ms?: UnixMillis;
  [member: string]: unknown;
}

/** The limit a wait is for. */
export interface LimitInfo {
  /** e.g. `user_table_reads`. */
  readonly name: string;
  readonly requests: number;
  readonly windowSeconds: number;
}

/** A call waits (a limit, a Retry-After, a backoff, a poll interval). */
export interface WaitingEvent {
  readonly type: 'waiting';
  readonly call: number;
  /** When the call goes on. */
  readonly until: UnixMillis;
  /** Why: `quota`, `retry_after`, `backoff`, `poll_interval`, ... */
  readonly reason: string;
  readonly limit?: LimitInfo;
  /** The core's sentence (what, how long, which limit). */
  readonly message: string;
}

/** A failed attempt is retried. */
export interface RetryingEvent {
  readonly type: 'retrying';
  readonly call: number;
  /** The attempt that failed (1 for the first). */
  readonly attempt?: number;
  /** When the next attempt goes. */
  readonly at?: UnixMillis;
  readonly message: string;
  readonly [member: string]: unknown;
}

/** An event type this package does not know (a newer core): kept, never a failure. */
export interface UnknownEvent {
  readonly type: 'unknown';
  readonly call: number;
  /** The event as received. */
  readonly event: { readonly type: string; readonly [member: string]: unknown };
}

/** A Deprecation/Sunset notice for an operation. */
export interface DeprecationEvent {
  readonly type: 'deprecation';
  readonly call: number;
  /** The core's sentence, dates written out. */
  readonly message: string;
  readonly [member: string]: unknown;
}

/** The events `onEvent` receives. */
export type VisibleEvent = WaitingEvent | RetryingEvent | DeprecationEvent;

/** One page of a pager. */
export interface Page<T> {
  readonly records: T[];
  /** 1 for the first page. */
  readonly page: number;
  /** Whether it is the final page. */
  readonly last: boolean;
}

/** A source of the current time. */
export interface Clock {
  /** Unix milliseconds. */
  now(): UnixMillis;
}

/** The host clock (`Date.now()`). */
export declare const systemClock: Clock;

/** Options every method takes. */
export interface CallOptions {
  /** Bounds the whole call (waits and retries included); then it fails with TimeoutError. */
  timeoutMs?: number;
  /** Extra headers sent with every attempt (e.g. `Prefer`). */
  headers?: Record<string, string> | Array<[string, string]> | Iterable<[string, string]>;
  /** At most this many attempts for this call. */
  maxAttempts?: number;
  /** Aborting cancels the call and rejects with the signal's reason. */
  signal?: AbortSignal;
  /** An idempotency key instead of the automatic one. */
  idempotencyKey?: string;
  /** The id of the credential to use (default: the first). */
  credential?: string;
}

/** Options of one page of table records. */
export interface TableReadOptions extends CallOptions {
  pageSize?: number;
  offset?: number;
  orderBy?: string;
  descending?: boolean;
}

/** Options of a table pager. */
export interface TablePagesOptions extends CallOptions {
  pageSize?: number;
  orderBy?: string;
  descending?: boolean;
  /** Whether `orderBy` is unique (keyset paging). */
  uniqueOrder?: boolean;
}

/** Options of connection records. */
export interface ConnectionOptions extends CallOptions {
  pageSize?: number;
  /** JSON text of the connection's filter. */
  filter?: string;
}

/** Options of one page of connection records. */
export interface ConnectionReadOptions extends ConnectionOptions {
  offset?: number;
}

/** Options of `request`. */
export interface RequestOptions extends CallOptions {
  /** Path parameters by name. */
  path?: Record<string, string>;
  /** Query parameters by wire name. */
  query?: Record<string, string | number | boolean> | Array<[string, string]>;
  /** Query parameters by role (`limit`, `offset`, `order_by`, `direction`, ...), named by the catalogue. */
  roles?: Array<[string, string]>;
  /** The JSON body. */
  body?: unknown;
  /** Stable egress: `default`, `header` or `url`. */
  egress?: 'default' | 'header' | 'url';
}

/** Options of `runs.create`. */
export interface RunCreateOptions extends CallOptions {
  /** The run's input (sent as `{"input": ...}`). */
  input?: unknown;
  /** The whole body instead of `{input}`. */
  body?: unknown;
}

/** Options of `runs.wait`. */
export interface RunWaitOptions extends Omit<CallOptions, 'timeoutMs'> {
  /** Time between polls (default 1000). */
  intervalMs?: number;
  /** How long to wait for a terminal status; then it fails with TimeoutError. */
  timeoutMs?: number;
  /** The spread of the poll interval, per mille (the core's default when absent). */
  jitterPerMille?: number;
  /** Called with each new status. */
  onStatus?: (status: string, run: Run) => void;
}

/** Receives one line per wait, retry and deprecation notice. */
export type Logger = ((line: string, event: VisibleEvent) => void)
  | { info(line: string): void; warn?(line: string): void };

/** Options of `AcdClient`. */
export interface AcdClientOptions {
  /** The API's base URL (default: `ACD_BASE_URL` under Node, else the core's). */
  baseUrl?: string;
  /** An API key (default: `ACD_API_KEY` under Node). */
  apiKey?: string;
  /** Credentials, when more than one: `{id, kind, secret, user}`. */
  credentials?: Array<{ id: string; kind: string; secret: string; user?: string }>;
  /** Every other client setting (the core's ClientConfig, camelCase; e.g. `seed`, `retry`, `maxBodyBytes`). */
  config?: Record<string, unknown>;
  /** How requests are sent (default: `fetchTransport()`). */
  transport?: Transport;
  /** The clock (default: `systemClock`). */
  clock?: Clock;
  /** The timers (default: the host's). */
  timers?: Timers;
  /** Receives waiting, retrying and deprecation events. */
  onEvent?: (event: VisibleEvent, call: number) => void;
  /** A line per wait, retry and deprecation notice (e.g. `console`). */
  logger?: Logger;
}

/** The throttle's view of one limit. */
export interface LimitState {
  /** e.g. `user_table_reads`. */
  readonly name: string;
  readonly requests: number;
  readonly windowSeconds: number;
  readonly remaining: number;
  /** When the window ends (Unix ms), if known. */
  readonly resetAt?: UnixMillis | null;
}

/** An async client of the API (docs/sdk.md). */
export declare class AcdClient {
  constructor(options?: AcdClientOptions);
  /** The API index. */
  index(options?: CallOptions): Promise<ApiIndex>;
  /** One call of any catalogue operation; resolves to the response body. */
  request<T = unknown>(operation: string, options?: RequestOptions): Promise<T>;
  /** Table records. */
  readonly tables: {
    read<T = Record<string, unknown>>(table: string, options?: TableReadOptions): Promise<T[]>;
    iter<T = Record<string, unknown>>(table: string, options?: TablePagesOptions): AsyncGenerator<T, void, undefined>;
    pages<T = Record<string, unknown>>(table: string, options?: TablePagesOptions): AsyncGenerator<Page<T>, void, undefined>;
  };
  /** Connection records of one entity. */
  readonly connections: {
    read<T = Record<string, unknown>>(connection: string, entity: string, options?: ConnectionReadOptions): Promise<T[]>;
    iter<T = Record<string, unknown>>(connection: string, entity: string, options?: ConnectionOptions): AsyncGenerator<T, void, undefined>;
    pages<T = Record<string, unknown>>(connection: string, entity: string, options?: ConnectionOptions): AsyncGenerator<Page<T>, void, undefined>;
  };
  /** Agent runs. */
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
  /** Cancels every call, releases the timers; later calls reject with AcdConfigError. */
  close(): void;
  [Symbol.dispose](): void;
}

/** What a failed call rejects with. */
export type CallError = AcdError;

/** An event of the full module's low-level driver (`acd/gate`'s Client). */
export type AcdEvent = { readonly type: string; readonly [member: string]: unknown };
