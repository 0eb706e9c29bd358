// Types of the easy path (easy.js) and of the driver's events.
import type { AcdError } from './errors.js';
import type { Client, ClientConfig, ClientCredentialInit, ConnectionPagerOptions, LimitState,
  PollOptions, RequestSpecInit, TablePagerOptions } from '../pkg/acd_wasm.js';
import type { Timers, Transport } from './transport.js';

/** An instant: Unix milliseconds, a whole number ≤ 2^53 − 1. */
export type UnixMillis = number;

/** The limit a call waits for. */
export interface LimitInfo {
  /** e.g. `user_table_reads`. */
  readonly name: string;
  readonly requests: number;
  readonly windowSeconds: number;
}

/** Why a call waits. */
export type WaitReason =
  | { readonly type: 'quota' }
  | { readonly type: 'retryAfter' }
  | { readonly type: 'backoff'; readonly attempt: number }
  | { readonly type: 'pollInterval' };

/** An interpreted response. */
export type ApiResult<T = unknown> =
  | { readonly type: 'records'; readonly status: number; readonly records: T[] }
  | { readonly type: 'index'; readonly status: number; readonly index: ApiIndexDocument }
  | { readonly type: 'object'; readonly status: number; readonly value: T };

/** The API index document, as the API serves it. */
export interface ApiIndexDocument {
  readonly name: string;
  readonly version: string;
  readonly [member: string]: unknown;
}

/** A waiting event. */
export interface WaitingEvent {
  readonly type: 'waiting';
  /** When the call goes on. */
  readonly until: UnixMillis;
  /** The limit it waits for, when one does. */
  readonly limit?: LimitInfo;
  readonly reason: WaitReason;
}

/** A deprecation notice for an operation. */
export interface DeprecationEvent {
  readonly type: 'deprecation';
  readonly operationId: string;
  /** When the operation stops working (Unix ms), if announced. */
  readonly sunsetAt?: UnixMillis;
  /** The core's JSON form of the warning (links, the raw Deprecation value). */
  readonly warning: unknown;
}

/** Something that happened to one call; `done` or `failed` is always last. */
export type AcdEvent<T = unknown> =
  | { readonly type: 'response'; readonly response: ApiResult<T> }
  | { readonly type: 'page'; readonly records: T[]; readonly page: number; readonly last: boolean }
  | { readonly type: 'runStatus'; readonly status: string; readonly terminal: boolean; readonly run: T }
  | WaitingEvent
  | DeprecationEvent
  | { readonly type: 'done' }
  | { readonly type: 'failed'; readonly error: AcdError };

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

/** Options every easy-path method takes. */
export interface CallOptions {
  /** Aborting cancels the call and rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** Options of `AcdClient`. */
export interface AcdClientOptions {
  /** The API's base URL, e.g. `https://api.example.com`. */
  baseUrl?: string;
  /** An API key (sent as `X-API-Key`). */
  apiKey?: string;
  /** The user the API key belongs to (for per-user limits; default "default"). */
  user?: string;
  /** Credentials, when more than one. */
  credentials?: ClientCredentialInit[];
  /** Every other client setting. */
  config?: ClientConfig;
  /** How requests are sent (default: `fetchTransport()`). */
  transport?: Transport;
  /** The clock (default: `systemClock`). */
  clock?: Clock;
  /** The timers (default: the host's). */
  timers?: Timers;
  /** 32 random bytes (default: `crypto.getRandomValues`). */
  entropy?: Uint8Array;
  /** Receives waiting and deprecation events (countdowns, limit bars, logs). */
  onEvent?: (event: WaitingEvent | DeprecationEvent, id: number) => void;
}

/** An async client of the API over fetch (or any transport). */
export declare class AcdClient {
  constructor(options?: AcdClientOptions);
  /** The driver underneath. */
  readonly driver: Client;
  /** The API index. */
  index(options?: CallOptions): Promise<ApiIndexDocument>;
  /** One call of any operation. */
  request<T = unknown>(spec: RequestSpecInit, options?: CallOptions): Promise<ApiResult<T> | undefined>;
  /** Table records. */
  readonly tables: {
    iter<T = Record<string, unknown>>(table: string, options?: TablePagerOptions & CallOptions): AsyncGenerator<T, void, undefined>;
    pages<T = Record<string, unknown>>(table: string, options?: TablePagerOptions & CallOptions): AsyncGenerator<Page<T>, void, undefined>;
  };
  /** Connection records. */
  readonly connections: {
    iter<T = Record<string, unknown>>(connection: string, entityId: string, options?: ConnectionPagerOptions & CallOptions): AsyncGenerator<T, void, undefined>;
    pages<T = Record<string, unknown>>(connection: string, entityId: string, options?: ConnectionPagerOptions & CallOptions): AsyncGenerator<Page<T>, void, undefined>;
  };
  /** Agent runs. */
  readonly runs: {
    /** Polls until a terminal status; resolves to the run as last received. */
    wait<T = Record<string, unknown>>(runId: string, options?: PollOptions & CallOptions & {
      onStatus?: (status: string, run: T) => void;
    }): Promise<T>;
  };
  /** The limits the client tracks, now. */
  limits(): LimitState[];
  /** Cancels every call and frees the driver. */
  close(): void;
}
