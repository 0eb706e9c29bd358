// The fetch transport: sends one request with `fetch` and says how it
// ended, by what a failure tells about delivery: `connect` (never sent:
// refused, no route, DNS; safe to retry), `timeout` (no answer in time) or
// `interrupted` (failed after sending); an abort by the caller's signal
// rejects with its reason. No redirect is followed (`redirect: 'manual'`):
// the core fails the call naming the status and `Location` (a browser's
// opaque redirect arrives as status 0), so a credential never reaches
// another address. The timeout covers the body too, and a body stops being
// read as soon as it passes `maxBodyBytes` (none of it when its
// Content-Length is above).

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

/** The longest delay `setTimeout` takes (2^31 - 1 ms); longer ones fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The reason a transport aborts a fetch with when its timeout fires. */
class TransportTimeout extends Error {}

const NO_BYTES = new Uint8Array(0);

/**
 * The body of `response`: every byte, or, with a bound, at most `limit + 1`
 * bytes (the core refuses a body longer than its bound), the stream
 * cancelled as soon as it passes the bound; nothing is read when the
 * announced Content-Length is above it.
 */
async function readBody(response, limit) {
  if (typeof limit !== 'number') return new Uint8Array(await response.arrayBuffer());
  const declared = response.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) {
    response.body?.cancel().catch(() => {});
    return NO_BYTES;
  }
  if (!response.body) return NO_BYTES;
  const reader = response.body.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size > limit) {
      reader.cancel().catch(() => {});
      break;
    }
  }
  const body = new Uint8Array(Math.min(size, limit + 1));
  let at = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, body.length - at);
    body.set(part, at);
    at += part.length;
    if (at === body.length) break;
  }
  return body;
}

/**
 * A transport over `fetch`: `send(request, signal, limits)` resolves to
 * `{status, headers, body}` or `{type: "transport", failure}`, and rejects
 * only when `signal` aborts (with the signal's reason). `limits.maxBodyBytes`
 * bounds the body read; `limits.timeoutMs` (what is left of the call's
 * `timeoutMs`) shortens the timeout.
 * Options: `fetch` (default: the global one), `timeoutMs` (default 30000,
 * covering the whole exchange including the body; at most 2^31 - 1),
 * `maxBodyBytes` (used when `send` is given none), `timers`.
 */
export function fetchTransport(options = {}) {
  const doFetch = options.fetch ?? ((...args) => globalThis.fetch(...args));
  const timeoutMs = Math.min(options.timeoutMs ?? 30_000, MAX_TIMER_MS);
  const timers = options.timers ?? systemTimers;
  return {
    async send(request, signal, limits) {
      signal?.throwIfAborted();
      const maxBodyBytes = limits?.maxBodyBytes ?? options.maxBodyBytes;
      const waitMs = Math.min(timeoutMs, limits?.timeoutMs ?? timeoutMs);
      const controller = new AbortController();
      const onAbort = () => controller.abort(signal.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      const timer = timers.setTimeout(() => controller.abort(new TransportTimeout()), waitMs);
      try {
        const init = {
          method: request.method, headers: request.headers, signal: controller.signal, redirect: 'manual',
        };
        if (request.body !== undefined) init.body = request.body;
        const response = await doFetch(request.url, init);
        const headers = [...response.headers];
        if (response.type === 'opaqueredirect') return { status: 0, headers, body: NO_BYTES };
        const body = await readBody(response, maxBodyBytes);
        return { status: response.status, headers, body };
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
