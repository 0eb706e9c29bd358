// Testing helpers (import from "acd/testing"): a virtual clock that is also
// a timer source, and the core's test server (TestServer) as a transport,
// so an AcdClient runs against the real gate rules and a dataset in virtual
// time: no sockets, no sleeping, the same result on every run. And
// SandboxClock: the manual clock of a real acd-sandbox as the client's clock
// and timers, so a test against the sandbox waits in the sandbox's time.
import { TestServer as Core, webhookSignJson, webhookVerifyJson } from '../pkg/acd_wasm.js';
import { webhooksOver } from './webhooks.js';
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

/**
 * The manual clock of an acd-sandbox started with `--clock manual`, read
 * (`GET /_sandbox/clock`) and moved (`POST /_sandbox/clock`) over HTTP. Pass
 * it as AcdClient's `clock` and `timers`, with a transport on real timers
 * (e.g. `fetchTransport()`): each wait the client asks for moves the
 * sandbox's clock to its end, after one real tick, instead of passing real
 * time. Make one with `await SandboxClock.connect(baseUrl)`.
 */
export class SandboxClock {
  #baseUrl; #headers; #now; #timers = new Map(); #nextHandle = 1; #pumping = false;
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

  /**
   * After a few real milliseconds (answers already on their way over
   * loopback arrive first: a session wakes at the next outcome or its
   * wake-up, whichever is first), moves the sandbox to each timer in turn
   * and fires it. Timers due at one instant move the clock once.
   */
  #pump() {
    if (this.#pumping) return;
    this.#pumping = true;
    globalThis.setTimeout(async () => {
      try {
        for (;;) {
          let due;
          for (const entry of this.#timers) if (due === undefined || entry[1].at < due[1].at) due = entry;
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
    }, 10);
  }
}

const testingWebhooks = webhooksOver({ webhookVerifyJson, webhookSignJson });

/**
 * Signs `payload` (an object is sent as JSON; a string or bytes unchanged)
 * as the API signs a webhook delivery, so a test can POST `body` with
 * `headers` to its own handler: `{ body, headers }`. Options: `id`,
 * `timestamp` (Unix seconds) or `timestampMs` (default: the wall clock).
 */
export function signWebhook(payload, secret, options) {
  return testingWebhooks.sign(payload, secret, options);
}
