// Types of the testing helpers ("acd/testing").
import type { Admitted, Gate, GateResponse } from './gate.js';
import type { Timers, Transport, WireRequest } from './transport.js';

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

/** Options of `gateTransport`. */
export interface GateTransportOptions {
  /** The clock the gate decides at (default: the host's). */
  clock?: { now(): number } & Partial<Timers>;
  /** Answers admitted requests (default: every resource is an empty list). */
  answer?: (admitted: Admitted) => GateResponse;
  /** Virtual latency before the response arrives (default 0). */
  latencyMs?: number;
}

/** A transport backed by an in-process gate; records what it saw. */
export interface GateTransport extends Transport {
  /** Every request sent, in order. */
  readonly requests: WireRequest[];
  /** Every status answered, in order. */
  readonly statuses: number[];
}

/** A transport that hands each request to `gate`. */
export declare function gateTransport(gate: Gate, options?: GateTransportOptions): GateTransport;


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
