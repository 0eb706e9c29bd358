// Testing helpers (import from "acd/testing"): a virtual clock that is also
// a timer source, and a transport backed by an in-process Gate, so an
// AcdClient runs against the real gate rules in virtual time: no sockets,
// no sleeping, the same result on every run.
import { Admitted } from '../pkg/acd_wasm.js';

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

/** Default resource answer of `gateTransport`: every table and connection is empty. */
function emptyResources(admitted) {
  return admitted.respondFound('[]');
}

/**
 * A transport that hands each request to `gate` (an in-process Gate) at
 * `clock.now()`. `answer(admitted)` answers admitted requests (e.g. with
 * `admitted.respondFound(JSON.stringify(rows))`); `latencyMs` (default 0)
 * is waited on `clock` before the response arrives. `requests` records
 * every request seen, `statuses` every status answered.
 */
export function gateTransport(gate, options = {}) {
  const clock = options.clock ?? { now: () => Date.now() };
  const answer = options.answer ?? emptyResources;
  const latencyMs = options.latencyMs ?? 0;
  const transport = {
    requests: [],
    statuses: [],
    async send(request, signal) {
      signal?.throwIfAborted();
      // A copy: the driver releases its request once the outcome is handled.
      // `headers` (the credential among them) is not enumerable, so neither
      // JSON.stringify nor console.log of `requests` shows the secret.
      const wire = { method: request.method, url: request.url, body: request.body };
      Object.defineProperty(wire, 'headers', { value: request.headers, enumerable: false });
      transport.requests.push(wire);
      const url = new URL(wire.url);
      const decision = gate.decide({
        method: wire.method,
        target: url.pathname + url.search,
        headers: wire.headers,
        body: wire.body,
      }, clock.now());
      const response = decision instanceof Admitted ? answer(decision) : decision;
      const outcome = { status: response.status, headers: response.headers, body: response.body };
      response.free();
      transport.statuses.push(outcome.status);
      if (latencyMs > 0 && clock.setTimeout) {
        await new Promise((resolve) => { clock.setTimeout(resolve, latencyMs); });
      }
      signal?.throwIfAborted();
      return outcome;
    },
  };
  return transport;
}
