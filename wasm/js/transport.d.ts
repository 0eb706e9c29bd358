// Types of the fetch transport (transport.js).

/** A request to put on the wire: method, absolute URL, headers in order (the credential's included), body. */
export interface WireRequest {
  readonly method: string; readonly url: string; readonly headers: Array<[string, string]>; readonly body?: Uint8Array | undefined;
}

/** How a transport failed, by what it tells about delivery. */
export type TransportFailureKind = 'connect' | 'timeout' | 'interrupted';

/** How an exchange ended: the response, or how the transport failed. */
export type Outcome =
  | { readonly type?: 'response'; readonly status: number; readonly headers?: Array<[string, string]>; readonly body?: Uint8Array }
  | { readonly type: 'transport'; readonly failure: TransportFailureKind };

/** What the client asks of every transport besides the request. */
export interface TransportLimits {
  /** The largest body to read, in bytes: stop once a body passes it (none when its Content-Length is above). */
  readonly maxBodyBytes?: number;
  /** What is left of the call's `timeoutMs`: abandon the exchange after it (a `timeout` failure). */
  readonly timeoutMs?: number;
}

/** Sends one request; rejects only when `signal` aborts (with its reason). Follows no redirect. */
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

/**
 * Options of `fetchTransport`: the `fetch` to use (default: the global
 * one), `timeoutMs` for the whole exchange, body included (default 30000),
 * `maxBodyBytes` when `send` is given none, and `timers` (default: the host's).
 */
export interface FetchTransportOptions {
  fetch?: (url: string, init: RequestInit) => Promise<Response>; timeoutMs?: number; maxBodyBytes?: number; timers?: Timers;
}

/** A transport over `fetch`. */
export declare function fetchTransport(options?: FetchTransportOptions): Transport;

/** `"connect"` when a fetch error proves nothing was sent, else `"interrupted"`. */
export declare function classifyFetchError(error: unknown): 'connect' | 'interrupted';
