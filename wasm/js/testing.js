// Testing helpers (import from "acd/testing"): a virtual clock that is also
// a timer source, and a transport backed by an in-process Gate, so an
// AcdClient runs against the real gate rules in virtual time: no sockets,
// no sleeping, the same result on every run. And SandboxClock: the manual
// clock of a real acd-sandbox as the client's clock and timers, so a client
// test against the sandbox waits in the sandbox's time, not in real time.
import { Admitted } from './server.js';

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

/**
 * The manual clock of an acd-sandbox started with `--clock manual`, read
 * (`GET /_sandbox/clock`) and moved (`POST /_sandbox/clock`) over HTTP. Pass
 * it as AcdClient's `clock` and `timers`, with a transport on real timers
 * (e.g. `fetchTransport()`): each wait the client asks for moves the
 * sandbox's clock to its end, after one real tick, instead of passing real
 * time. Make one with `await SandboxClock.connect(baseUrl)`.
 */
export class SandboxClock {
  #baseUrl;
  #headers;
  #now;
  #timers = new Map();
  #nextHandle = 1;
  #pumping = false;
  /** Every wait the sandbox's clock was moved for, in milliseconds, in order. */
  sleeps = [];
  /** The last failure to move the sandbox's clock (the timer fired anyway), or null. */
  lastError = null;

  /** Use `SandboxClock.connect`. */
  constructor(baseUrl, nowMs, options = {}) {
    this.#baseUrl = String(baseUrl).replace(/\/+$/, '');
    this.#headers = { 'Content-Type': 'application/json' };
    if (options.adminToken !== undefined) this.#headers.Authorization = `Bearer ${options.adminToken}`;
    this.#now = nowMs;
  }

  /**
   * The clock of the sandbox at `baseUrl` (e.g. "http://127.0.0.1:8080");
   * `options.adminToken` is its `--admin-token`, for a sandbox that is not
   * on loopback. Rejects when the sandbox cannot be reached or runs on the
   * system clock.
   */
  static async connect(baseUrl, options = {}) {
    const clock = new SandboxClock(baseUrl, 0, options);
    await clock.sync();
    return clock;
  }

  /** The sandbox's clock's URL. */
  get url() { return `${this.#baseUrl}/_sandbox/clock`; }

  async #call(body) {
    const response = await fetch(this.url, body === undefined
      ? { headers: this.#headers }
      : { method: 'POST', headers: this.#headers, body: JSON.stringify(body) });
    const text = await response.text();
    if (!response.ok) {
      const hint = response.status === 404 || response.status === 409 ? ' (start the sandbox with --clock manual)' : '';
      throw new Error(`the sandbox at ${this.#baseUrl} refused its clock: ${response.status} ${text}${hint}`);
    }
    const answer = JSON.parse(text);
    if (answer.clock !== 'manual') {
      throw new Error(`the sandbox at ${this.#baseUrl} runs on the system clock; start it with --clock manual`);
    }
    this.#now = answer.now_ms;
    return this.#now;
  }

  /** Reads the sandbox's clock again (after something else moved it). */
  sync() { return this.#call(undefined); }

  /** Moves the sandbox's clock `ms` forward; resolves with the new instant. */
  advance(ms) {
    if (!(ms >= 0)) return Promise.reject(new RangeError(`the sandbox clock is moved forward only here; got ${ms} ms`));
    return this.#call({ advance_ms: Math.ceil(ms) });
  }

  /** Sets the sandbox's clock to `nowMs`; resolves with it. */
  set(nowMs) { return this.#call({ now_ms: nowMs }); }

  /** The sandbox's now, in Unix milliseconds, as last read or moved. */
  now() { return this.#now; }

  /** Calls `callback` once the sandbox's clock has been moved `ms` further. */
  setTimeout(callback, ms) {
    const handle = this.#nextHandle;
    this.#nextHandle += 1;
    this.#timers.set(handle, { at: this.#now + Math.max(0, ms), callback });
    this.#pump();
    return handle;
  }

  /** Cancels a timer from `setTimeout` (before the clock moves for it). */
  clearTimeout(handle) { this.#timers.delete(handle); }

  /** How many timers are set. */
  get pendingTimers() { return this.#timers.size; }

  /** After one real tick, moves the sandbox to each timer in turn and fires it. */
  #pump() {
    if (this.#pumping) return;
    this.#pumping = true;
    globalThis.setTimeout(async () => {
      try {
        for (;;) {
          let due;
          for (const [handle, timer] of this.#timers) {
            if (due === undefined || timer.at < due[1].at) due = [handle, timer];
          }
          if (due === undefined) break;
          const wait = due[1].at - this.#now;
          if (wait > 0) {
            try {
              await this.advance(wait);
              this.sleeps.push(wait);
            } catch (error) {
              this.lastError = error;
            }
          }
          if (this.#timers.get(due[0]) === due[1]) {
            this.#timers.delete(due[0]);
            due[1].callback();
          }
        }
      } finally {
        this.#pumping = false;
      }
    }, 0);
  }
}
