// Types of the testing helpers ("acd/testing").
import type { Timers, Transport, WireRequest } from './transport.js';
import type { SignOptions, SignedWebhook, WebhookBody } from './webhooks.js';

/** A clock and timer source in virtual time. */
export declare class VirtualClock implements Timers {
  /** Starts at `startMs` (Unix milliseconds; default 1_700_000_000_000). */
  constructor(startMs?: number);
  /** The virtual now, in Unix milliseconds. */
  now(): number;
  /** Calls `callback` once virtual time has moved `ms` further. */
  setTimeout(callback: () => void, ms: number): number;
  /** Cancels a timer. */
  clearTimeout(handle: unknown): void;
  /** How many timers are set. */
  readonly pendingTimers: number;
  /** The earliest timer's instant, or undefined. */
  nextTimerAt(): number | undefined;
  /** Moves to `instant`, firing due timers in order. */
  advanceTo(instant: number): void;
  /** Moves `ms` further. */
  advance(ms: number): void;
  /** Settles `promise` in virtual time, jumping from timer to timer. */
  run<T>(promise: Promise<T>): Promise<T>;
}

/** Options of the core's test server (camelCase or snake_case, as in Python and Kotlin). */
export interface TestServerOptions {
  /** Table id → records. */
  tables?: Record<string, Array<Record<string, unknown>>>;
  /** Connection id → entity → records. */
  connections?: Record<string, Record<string, Array<Record<string, unknown>>>>;
  /** Run id → its script. */
  runs?: Record<string, { queuedMs?: number; finishesAfterMs: number; finalState: string }>;
  /** The script of runs created by `createAgentRun`. */
  newRuns?: { queuedMs?: number; finishesAfterMs: number; finalState: string };
  /** Limit name → quota, e.g. `{user_table_reads: {requests: 5, windowMs: 60_000}}`. */
  limits?: Record<string, { requests: number; windowMs: number }>;
  gate?: Record<string, unknown>; credentials?: Array<Record<string, unknown>>; faults?: Array<Record<string, unknown>>;
  clientIp?: string; startMs?: number; latencyMs?: number; timeoutMs?: number; dateHeader?: boolean; seed?: number; logLimit?: number;
}

/** One exchange's answer: a response (body as text) or a transport failure, and when it arrives. */
export type Exchange =
  | { status: number; headers: Array<[string, string]>; body: string; deliver_at: number }
  | { failure: 'connect' | 'timeout' | 'interrupted'; deliver_at: number };

/** A transport over a TestServer; records what it saw. */
export interface TestTransport extends Transport {
  /** Every request sent, in order (headers not enumerable). */
  readonly requests: WireRequest[];
  /** Every status answered, in order. */
  readonly statuses: number[];
}

/** The core's test server: a dataset served through a real gate in virtual time. */
export declare class TestServer {
  constructor(options?: TestServerOptions);
  exchange(request: { method?: string; url: string; headers?: Array<[string, string]>; body?: string | Uint8Array }, nowMs: number): Exchange;
  /** The requests received. */
  log(): Array<{ at: number; method: string; path: string; query: string; status?: number | null; failure?: string | null; injected: boolean }>;
  /** The status of every response given, in order. */
  readonly statuses: number[];
  /** A transport for AcdClient that answers at the clock's instants. */
  transport(clock?: { now(): number } & Partial<Timers>): TestTransport;
  free(): void;
}

/** `new TestServer(options).transport(options.clock)`. */
export declare function gateTransport(options?: TestServerOptions & { clock?: { now(): number } & Partial<Timers> }): TestTransport;

/** Options of `SandboxClock.connect`. */
export interface SandboxClockOptions {
  /** The sandbox's `--admin-token`, for a sandbox that is not on loopback. */
  adminToken?: string | undefined;
}

/**
 * The manual clock of an acd-sandbox (`--clock manual`) over HTTP, as an
 * AcdClient's `clock` and `timers`: waits move the sandbox's clock.
 */
export declare class SandboxClock implements Timers {
  /** Use `SandboxClock.connect`. */
  constructor(baseUrl: string, nowMs: number, options?: SandboxClockOptions);
  /** The clock of the sandbox at `baseUrl`. */
  static connect(baseUrl: string, options?: SandboxClockOptions): Promise<SandboxClock>;
  /** The sandbox's clock's URL. */
  readonly url: string;
  /** Every wait the clock was moved for, in ms, in order. */
  readonly sleeps: number[];
  /** The last failure to move the sandbox's clock, or null. */
  readonly lastError: unknown;
  /** Reads the sandbox's clock again. */
  sync(): Promise<number>;
  /** Moves the sandbox's clock `ms` forward. */
  advance(ms: number): Promise<number>;
  /** Sets the sandbox's clock. */
  set(nowMs: number): Promise<number>;
  /** The sandbox's now, in Unix ms, as last read or moved. */
  now(): number;
  /** Calls `callback` once the sandbox's clock has moved `ms` further. */
  setTimeout(callback: () => void, ms: number): number;
  /** Cancels a timer. */
  clearTimeout(handle: unknown): void;
  /** How many timers are set. */
  readonly pendingTimers: number;
}

/** Options of `startSandbox`. */
export interface StartSandboxOptions {
  /** The sandbox's configuration (its JSON file's content). */
  config?: unknown;
  /** Extra flags, e.g. `['--faults']`. */
  args?: string[];
  /** The sandbox's clock: `'manual'` (default; the admin routes on) or `'system'`. */
  clock?: 'manual' | 'system';
  /** The binary (default: `ACD_SANDBOX_BIN`, else `acd-sandbox` on `PATH`). */
  binary?: string;
}

/** A running acd-sandbox started by `startSandbox`. */
export interface RunningSandbox {
  /** Its base URL, `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** The published demo key its default data accepts. */
  readonly apiKey: string;
  /** Stops it (SIGTERM) and resolves once it exited. */
  stop(): Promise<void>;
  /** Moves its manual clock `ms` forward; the new time in Unix ms. */
  advance(ms: number): Promise<number>;
  /** Clears every rate-limit counter and run. */
  reset(): Promise<unknown>;
  /** The requests it recorded, oldest first (only those matching `pattern`). */
  requests(pattern?: string): Promise<unknown[]>;
}

/**
 * Node only: starts the shipped acd-sandbox (`ACD_SANDBOX_BIN`, else on
 * `PATH`) on a free loopback port; resolves once it listens.
 */
export declare function startSandbox(options?: StartSandboxOptions): Promise<RunningSandbox>;

/** Node only: the acd-sandbox `startSandbox` starts. */
export declare function sandboxBinary(): string;

/** Signs `payload` as the API signs a webhook delivery, for a handler's tests: POST `body` with `headers`. */
export declare function signWebhook(
  payload: WebhookBody | Record<string, unknown>, secret: string | string[], options?: SignOptions): SignedWebhook;
