// The fetch transport: sends one request with `fetch` and says how it
// ended, by the facts a failure gives (a kind of docs/driver-protocol.md):
// never sent (`refused`, `dns`, `connect_timeout`, `blocked` for fetch's
// bad-port list, `connect`), or sent and the answer lost (`timeout`,
// `reset`, `interrupted`, `protocol`), or `unknown` (a browser's bare
// "Failed to fetch": a network error or a CORS refusal, read as maybe
// sent). An abort by the caller's signal rejects with its reason. No
// redirect is followed (`redirect: 'manual'`): the core fails the call
// naming the status and `Location` (a browser's opaque redirect arrives as
// status 0), so a credential never reaches another address. The timeout
// covers the body too, and a body stops being read as soon as its decoded
// (decompressed) size passes `maxBodyBytes` (none of it when its
// Content-Length is above). fetch skips 1xx responses itself.

/** undici's `cause.code`s and the kinds they prove. */
const KIND_OF_CODE = new Map([
  ['ECONNREFUSED', 'refused'],
  ['ENOTFOUND', 'dns'], ['EAI_AGAIN', 'dns'], ['EAI_NONAME', 'dns'],
  ['UND_ERR_CONNECT_TIMEOUT', 'connect_timeout'],
  ['EHOSTUNREACH', 'connect'], ['ENETUNREACH', 'connect'], ['EADDRNOTAVAIL', 'connect'],
  ['CERT_HAS_EXPIRED', 'connect'], ['DEPTH_ZERO_SELF_SIGNED_CERT', 'connect'],
  ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'connect'], ['ERR_TLS_CERT_ALTNAME_INVALID', 'connect'],
  ['ERR_INVALID_URL', 'connect'],
  ['ECONNRESET', 'reset'], ['EPIPE', 'reset'], ['ECONNABORTED', 'reset'],
  ['UND_ERR_SOCKET', 'interrupted'], ['UND_ERR_CLOSED', 'interrupted'],
  ['UND_ERR_HEADERS_TIMEOUT', 'timeout'], ['UND_ERR_BODY_TIMEOUT', 'timeout'],
  ['UND_ERR_HEADERS_OVERFLOW', 'protocol'], ['UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'interrupted'],
]);

/** The errors of `error`'s `cause` chain (and of any `errors` list). */
function chain(error) {
  const found = [];
  for (let current = error, depth = 0; current && depth < 5; current = current.cause, depth += 1) {
    found.push(current);
    if (Array.isArray(current.errors)) found.push(...current.errors.filter(Boolean));
  }
  return found;
}

/**
 * The failure kind of a fetch that threw, from what its error proves:
 * a code undici gave, fetch's own "bad port" refusal (`blocked`), a
 * `TimeoutError` (`timeout`, e.g. `AbortSignal.timeout` inside a custom
 * fetch), a parser error (`HPE_*`: `protocol`); otherwise `unknown`.
 */
export function classifyFetchError(error) {
  const errors = chain(error);
  for (const current of errors) {
    const code = typeof current?.code === 'string' ? current.code : '';
    if (KIND_OF_CODE.has(code)) return KIND_OF_CODE.get(code);
    if (code.startsWith('HPE_')) return 'protocol';
  }
  for (const current of errors) {
    if (current?.message === 'bad port') return 'blocked';
    if (current?.name === 'TimeoutError') return 'timeout';
  }
  return 'unknown';
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
