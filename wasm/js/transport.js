// The fetch transport of the easy path: sends one wire request with `fetch`
// and says how it ended, in the shape the Client driver's `handle` takes.
// Transport failures are classified by what they tell about delivery:
//   connect     the request was never sent (refused, no route, DNS): safe to retry;
//   timeout     no answer in time: it may have been delivered;
//   interrupted the connection failed after sending: it may have been delivered;
// and an abort by the caller's AbortSignal rejects with the signal's reason
// (the call is cancelled, nothing is retried). Timers are injectable.

/** Error codes (Node's undici `cause.code`) meaning the request never left. */
const NEVER_SENT = new Set([
  'ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'ERR_TLS_CERT_ALTNAME_INVALID', 'ERR_INVALID_URL',
]);

/** The `code` of an error or of the errors in its `cause` chain. */
function errorCodes(error) {
  const codes = [];
  for (let current = error, depth = 0; current && depth < 5; current = current.cause, depth += 1) {
    if (typeof current.code === 'string') codes.push(current.code);
    if (Array.isArray(current.errors)) {
      for (const inner of current.errors) if (typeof inner?.code === 'string') codes.push(inner.code);
    }
  }
  return codes;
}

/**
 * How a fetch that threw ended: `"connect"` when the error proves nothing
 * was sent, else `"interrupted"` (browsers say only "Failed to fetch", so a
 * failure there is treated as possibly delivered).
 */
export function classifyFetchError(error) {
  return errorCodes(error).some((code) => NEVER_SENT.has(code)) ? 'connect' : 'interrupted';
}

/** The timers of the host (`setTimeout`/`clearTimeout`). */
export const systemTimers = Object.freeze({
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle),
});

/** The reason a transport aborts a fetch with when its timeout fires. */
class TransportTimeout extends Error {}

/**
 * A transport over `fetch`: `send(request, signal)` resolves to
 * `{status, headers, body}` or `{type: "transport", failure}`, and rejects
 * only when `signal` aborts (with the signal's reason).
 * Options: `fetch` (default: the global one), `timeoutMs` (default 30000,
 * covering the whole exchange including the body), `timers`.
 */
export function fetchTransport(options = {}) {
  const doFetch = options.fetch ?? ((...args) => globalThis.fetch(...args));
  const timeoutMs = options.timeoutMs ?? 30_000;
  const timers = options.timers ?? systemTimers;
  return {
    async send(request, signal) {
      signal?.throwIfAborted();
      const controller = new AbortController();
      const onAbort = () => controller.abort(signal.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      const timer = timers.setTimeout(() => controller.abort(new TransportTimeout()), timeoutMs);
      try {
        const init = { method: request.method, headers: request.headers, signal: controller.signal };
        if (request.body !== undefined) init.body = request.body;
        const response = await doFetch(request.url, init);
        const body = new Uint8Array(await response.arrayBuffer());
        return { status: response.status, headers: [...response.headers], body };
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (controller.signal.reason instanceof TransportTimeout) {
          return { type: 'transport', failure: 'timeout' };
        }
        return { type: 'transport', failure: classifyFetchError(error) };
      } finally {
        timers.clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      }
    },
  };
}
