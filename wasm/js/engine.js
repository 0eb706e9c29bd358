// The engine AcdClient drives: the module's `Driver` through the driver
// protocol (docs/driver-protocol.md), one crossing per step. A call spec
// goes in as JSON bytes; an outcome as status, a header block and the body
// bytes; each poll's batch comes out as JSON text read by one JSON.parse.
// Events are decoded strictly: a type this package does not know becomes
// an `unknown` event (never `failed`). No rule lives here.
import { errorFromCore } from './errors.js';
import { camelKeys, snakeKeys } from './json.js';

const encoder = new TextEncoder();
const NO_BYTES = new Uint8Array(0);

/** The event types of the protocol. */
const KNOWN = new Set(['response', 'page', 'run_status', 'waiting', 'retrying', 'deprecation', 'done', 'failed']);
/** Events handed to `onEvent`: their members in camelCase. */
const SHOWN = new Set(['waiting', 'retrying', 'deprecation']);

/** A thrown refusal of the core (an Error with `json`) as the package's error. */
export function coreError(error) {
  if (typeof error?.json !== 'string') return error;
  return errorFromCore(JSON.parse(error.json));
}

/** Calls `step` and turns a refusal of the core into the package's error. */
function guarded(step) {
  try { return step(); } catch (error) { throw coreError(error); }
}

/** One event of a batch, decoded strictly. */
function decode(event) {
  const { type } = event;
  if (!KNOWN.has(type)) return { call: event.call, type: 'unknown', event };
  if (type === 'failed') return { call: event.call, type, error: errorFromCore(event.error) };
  return SHOWN.has(type) ? camelKeys(event) : event;
}

/** `[name, value]` pairs as the protocol's header block. */
function headerBlock(headers) {
  let text = '';
  for (const [name, value] of headers ?? []) text += `${name}: ${value}\n`;
  return text;
}

/**
 * The engine over `Driver` (a module's driver class) for the client
 * configuration `config` (camelCase or snake_case; `env` and `api_key`
 * as the protocol reads them).
 */
export function driverEngine(Driver, config) {
  const driver = guarded(() => new Driver(encoder.encode(JSON.stringify(snakeKeys(config)))));
  return {
    start: (spec) => guarded(() => driver.start(encoder.encode(JSON.stringify(spec)))),
    poll(now) {
      const batch = JSON.parse(guarded(() => driver.poll(now)));
      batch.events = batch.events.map(decode);
      return batch;
    },
    respond: (call, status, headers, body, now) =>
      guarded(() => driver.respond(call, status, headerBlock(headers), body ?? NO_BYTES, now)),
    fail: (call, kind, now) => guarded(() => driver.fail(call, kind, now)),
    cancel: (call) => guarded(() => driver.cancel(call)),
    limits: () => camelKeys(JSON.parse(driver.limits())),
    maxBodyBytes: () => driver.maxBodyBytes(),
    free: () => driver.free(),
  };
}
