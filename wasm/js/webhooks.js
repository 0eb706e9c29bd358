// Webhooks: `webhooks.verify`, `webhooks.unwrap` and `webhooks.sign` over
// the core (Standard Webhooks, docs/webhooks.md): every check, bound and
// default (the 5-minute tolerance) runs in the WebAssembly module, so Node
// and browsers need no platform crypto. This file converts arguments and
// answers only. Pass the raw body exactly as received (a string or bytes):
// a parsed object is refused, since a re-serialised body never verifies.
import { AcdArgumentError, WebhookVerificationError } from './errors.js';

const encoder = new TextEncoder();

function rawBody(body, what = 'body') {
  if (typeof body === 'string') return encoder.encode(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  throw new AcdArgumentError(
    `${what} must be the raw request body (a string, Uint8Array, Buffer or ArrayBuffer) exactly as received, ` +
    `not ${body === null ? 'null' : typeof body}: a parsed or re-serialised body cannot be verified`,
    'INVALID_ARGUMENT');
}

function headerPairs(headers) {
  if (headers === null || typeof headers !== 'object') {
    throw new AcdArgumentError('headers must be a Headers, a Map, an object or [name, value] pairs', 'INVALID_ARGUMENT');
  }
  let entries;
  if (typeof headers.entries === 'function' && !Array.isArray(headers)) entries = [...headers.entries()];
  else if (Array.isArray(headers)) entries = headers;
  else entries = Object.entries(headers);
  const pairs = [];
  for (const [name, value] of entries) {
    if (value === undefined || value === null) continue;
    pairs.push([String(name), Array.isArray(value) ? value.join(', ') : String(value)]);
  }
  return JSON.stringify(pairs);
}

function secretList(secret) {
  const list = Array.isArray(secret) ? secret : [secret];
  return JSON.stringify(list.map(String));
}

function instantMs(value, what) {
  if (value === undefined || value === null) return Date.now();
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'number') return value;
  throw new AcdArgumentError(`${what} must be Unix milliseconds or a Date`, 'INVALID_ARGUMENT');
}

function answer(json) {
  const parsed = JSON.parse(json);
  if (parsed.error) throw new WebhookVerificationError(parsed.error.message, parsed.error.code);
  return parsed;
}

function eventOf(event) {
  const out = {
    id: event.id,
    webhookTimestamp: event.webhook_timestamp,
    type: event.type,
    timestamp: event.timestamp,
    data: event.data,
  };
  if ('run' in event) out.run = event.run;
  return out;
}

/**
 * The webhooks API over a module's two exports (`webhookVerifyJson`,
 * `webhookSignJson`): `{ verify, unwrap, sign }`.
 */
export function webhooksOver({ webhookVerifyJson, webhookSignJson }) {
  const check = (body, headers, secret, options, decodeRun) => {
    const { toleranceMs, now, nowMs } = options ?? {};
    const bytes = rawBody(body);
    const at = instantMs(nowMs ?? now, 'now');
    return eventOf(answer(webhookVerifyJson(bytes, headerPairs(headers), secretList(secret), at,
      toleranceMs ?? undefined, decodeRun)).event);
  };
  return Object.freeze({
    /** Verifies a delivery; its event, or throws WebhookVerificationError. */
    verify: (body, headers, secret, options) => check(body, headers, secret, options, false),
    /** verify, then the run of a run lifecycle event as `run` (null for other types). */
    unwrap: (body, headers, secret, options) => check(body, headers, secret, options, true),
    /** Signs a payload as the API does, for a handler's tests: `{ body, headers }`. */
    sign(payload, secret, { id, timestamp, timestampMs } = {}) {
      const body = (payload !== null && typeof payload === 'object' && !ArrayBuffer.isView(payload)
        && !(payload instanceof ArrayBuffer))
        ? encoder.encode(JSON.stringify(payload)) : rawBody(payload, 'payload');
      const messageId = id ?? `msg_${randomHex()}`;
      const seconds = timestamp !== undefined ? timestamp : Math.floor(instantMs(timestampMs, 'timestampMs') / 1000);
      const { headers } = answer(webhookSignJson(secretList(secret), messageId, seconds, body));
      return { body, headers };
    },
  });
}

function randomHex() {
  const bytes = new Uint8Array(12);
  if (globalThis.crypto?.getRandomValues) globalThis.crypto.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i += 1) bytes[i] = Math.floor(Math.random() * 256);
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}
