// Testing helpers (import from "acd/testing"): a virtual clock that is also
// a timer source, and the core's test server (TestServer) as a transport,
// so an AcdClient runs against the real gate rules and a dataset in virtual
// time: no sockets, no sleeping, the same result on every run.
import { TestServer as Core } from '../pkg/acd_wasm.js';
import { snakeKeys } from './json.js';

/**
 * A clock and timers in virtual time. Pass it as both `clock` and `timers`
 * to AcdClient (and to `gateTransport`). Time moves only through
 * `advance`, `advanceTo` or `run`.
 */
export class VirtualClock {
  #now;
  #timers = new Map();
  #nextHandle = 1;

  /** Starts at `startMs` (Unix milliseconds; default 1_700_000_000_000). */
  constructor(startMs = 1_700_000_000_000) {
    this.#now = startMs;
  }

  /** The virtual now, in Unix milliseconds. */
  now() { return this.#now; }
  /** Calls `callback` once the virtual time has moved `ms` further. */
  setTimeout(callback, ms) {
    const handle = this.#nextHandle;
    this.#nextHandle += 1;
    this.#timers.set(handle, { at: this.#now + Math.max(0, ms), callback });
    return handle;
  }

  /** Cancels a timer from `setTimeout`. */
  clearTimeout(handle) { this.#timers.delete(handle); }
  /** How many timers are set. */
  get pendingTimers() { return this.#timers.size; }
  /** The instant of the earliest timer, or undefined. */
  nextTimerAt() {
    let earliest;
    for (const { at } of this.#timers.values()) if (earliest === undefined || at < earliest) earliest = at;
    return earliest;
  }

  /** Moves to `instant`, firing every timer due by then in order. */
  advanceTo(instant) {
    for (;;) {
      let due;
      for (const [handle, timer] of this.#timers) {
        if (timer.at <= instant && (due === undefined || timer.at < due[1].at)) due = [handle, timer];
      }
      if (due === undefined) break;
      this.#timers.delete(due[0]);
      this.#now = Math.max(this.#now, due[1].at);
      due[1].callback();
    }
    this.#now = Math.max(this.#now, instant);
  }

  /** Moves `ms` further. */
  advance(ms) { this.advanceTo(this.#now + ms); }

  /**
   * Settles `promise` in virtual time: lets pending work run, and when
   * nothing else can happen jumps to the next timer. Rejects when the
   * promise can never settle (no timer left).
   */
  async run(promise) {
    let settled = false;
    const result = promise.then(
      (value) => { settled = true; return value; },
      (error) => { settled = true; throw error; },
    );
    result.catch(() => {});
    for (;;) {
      await new Promise((resolve) => { globalThis.setTimeout(resolve, 0); });
      if (settled) return result;
      const next = this.nextTimerAt();
      if (next === undefined) {
        throw new Error('VirtualClock.run: the promise is still pending and no timer is set');
      }
      this.advanceTo(next);
    }
  }
}

const encoder = new TextEncoder();

/**
 * The core's test server (acd_core::testing): a dataset served through a
 * real gate in virtual time, with latency and faults. Options as in Python
 * and Kotlin (camelCase or snake_case): `tables` (id → records),
 * `connections` (id → entity → records), `runs` (id → `{queuedMs,
 * finishesAfterMs, finalState}`), `newRuns`, `limits` (name → `{requests,
 * windowMs}`), `gate`, `credentials`, `clientIp`, `startMs`, `latencyMs`,
 * `timeoutMs`, `dateHeader`, `faults`, `seed`, `logLimit`.
 */
export class TestServer {
  #core;

  constructor(options = {}) {
    const { runs, ...rest } = options;
    const config = snakeKeys(rest);
    if (runs) config.runs = Object.fromEntries(Object.entries(runs).map(([id, script]) => [id, snakeKeys(script)]));
    this.#core = new Core(encoder.encode(JSON.stringify(config)));
  }

  /** One exchange at `nowMs`: `{status, headers, body, deliver_at}` (body as text) or `{failure, deliver_at}`. */
  exchange({ method = 'GET', url, headers = [], body }, nowMs) {
    let block = '';
    for (const [name, value] of headers) block += `${name}: ${value}\n`;
    const bytes = typeof body === 'string' ? encoder.encode(body) : body;
    return JSON.parse(this.#core.exchange(method, url, block, bytes, nowMs));
  }

  /** The requests received: `{at, method, path, query, status, failure, injected}`. */
  log() { return JSON.parse(this.#core.log()); }
  /** The status of every response given, in order. */
  get statuses() { return [...this.#core.statuses()]; }

  /**
   * A transport for AcdClient: each request goes to this server at `clock.now()`, its answer arrives
   * when the server says (waited on `clock`); `requests` lists them (headers not enumerable).
   */
  transport(clock = { now: () => Date.now() }) {
    const [requests, server] = [[], this];
    return {
      requests,
      get statuses() { return server.statuses; },
      async send(request, signal) {
        signal?.throwIfAborted();
        const wire = { method: request.method, url: request.url, body: request.body };
        Object.defineProperty(wire, 'headers', { value: request.headers, enumerable: false });
        requests.push(wire);
        const now = clock.now();
        const answer = server.exchange(request, now);
        if (answer.deliver_at > now && clock.setTimeout) {
          await new Promise((resolve) => { clock.setTimeout(resolve, answer.deliver_at - now); });
        }
        signal?.throwIfAborted();
        if (answer.failure) return { type: 'transport', failure: answer.failure };
        return { status: answer.status, headers: answer.headers, body: encoder.encode(answer.body) };
      },
    };
  }

  /** Releases the server. */
  free() { this.#core.free(); }
}

/** `new TestServer(options).transport(options.clock)`: `{clock, tables, limits, ...}`. */
export function gateTransport({ clock, ...options } = {}) {
  return new TestServer(options).transport(clock);
}
