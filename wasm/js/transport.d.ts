// Types of the fetch transport (transport.js).

/** A request as the driver hands it out: what to put on the wire. */
export interface WireRequest {
  /** The method, e.g. `GET`. */
  readonly method: string;
  /** The absolute URL. */
  readonly url: string;
  /** Headers in order, the credential header included. */
  readonly headers: Array<[string, string]>;
  /** The body, if any. */
  readonly body?: Uint8Array;
}

/** How a transport failed, by what it tells about delivery. */
export type TransportFailureKind = 'connect' | 'timeout' | 'interrupted';

/** How an exchange ended: the response, or how the transport failed. */
export type Outcome =
  | { readonly type?: 'response'; readonly status: number; readonly headers?: Array<[string, string]>; readonly body?: Uint8Array }
  | { readonly type: 'transport'; readonly failure: TransportFailureKind };

/** What the client asks of every transport besides the request. */
export interface TransportLimits {
  /**
   * The largest body to read, in bytes (the client's `maxBodyBytes`): stop
   * reading once a body passes it; read none of one whose Content-Length is above it.
   */
  readonly maxBodyBytes?: number;
  /** What is left of the call's `timeoutMs`: abandon the exchange after it (a `timeout` failure). */
  readonly timeoutMs?: number;
}

/**
 * Sends one request; rejects only when `signal` aborts (with its reason).
 * The request reads until the returned promise settles (the driver then
 * releases it): copy what a transport keeps. Follows no redirect.
 */
export interface Transport {
  send(request: WireRequest, signal?: AbortSignal, limits?: TransportLimits): Promise<Outcome>;
}

/** A timer source (the host's, or a VirtualClock). */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The host's `setTimeout`/`clearTimeout`. */
export declare const systemTimers: Timers;

/** Options of `fetchTransport`. */
export interface FetchTransportOptions {
  /** The fetch to use (default: the global one). */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  /** Time for the whole exchange, body included (default 30000 ms, at most 2^31 - 1). */
  timeoutMs?: number;
  /** The body bound when `send` is given none (AcdClient always gives its driver's). */
  maxBodyBytes?: number;
  /** Timers for the timeout (default: the host's). */
  timers?: Timers;
}

/** A transport over `fetch`. */
export declare function fetchTransport(options?: FetchTransportOptions): Transport;

/** `"connect"` when a fetch error proves nothing was sent, else `"interrupted"`. */
export declare function classifyFetchError(error: unknown): 'connect' | 'interrupted';
