// The easy path: AcdClient drives the core's one Client driver over a
// transport (fetch by default) with the host's clock and timers, all three
// injectable. Every rule (building, throttling, retries, paging, polling)
// is the driver's; this file only moves requests, outcomes and events:
//   pollTransmits -> transport.send -> handle -> pollEvents, and a timer
//   set to pollTimeout for waits (a wait longer than a timer can hold,
//   2^31 - 1 ms, is slept in pieces: one wakeup per piece, never a spin).
//   Each entry ("acd", "acd/client") defines
//   AcdClient over the driver of the module it loads (acdClientOver).
import { MAX_TIMER_MS, fetchTransport, systemTimers } from './transport.js';
import { randomEntropy } from './entropy.js';

/** The host clock: Unix milliseconds from `Date.now()`. */
export const systemClock = Object.freeze({ now: () => Date.now() });

/** One live call: its events not yet consumed and the consumer waiting. */
class CallState {
  constructor(signal) {
    this.signal = signal;
    this.events = [];
    this.wake = null;
    this.over = false;
  }

  push(event) {
    this.events.push(event);
    if (event.type === 'done' || event.type === 'failed') this.over = true;
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  /** The next event, waiting for one if none is queued. */
  async next() {
    while (this.events.length === 0) {
      this.signal?.throwIfAborted();
      await new Promise((resolve) => { this.wake = resolve; });
    }
    return this.events.shift();
  }
}

/**
 * The AcdClient class over `Client`, the driver class of one wasm module.
 * @param {Function} Client
 */
export function acdClientOver(Client) {
  /**
   * An async client of the API over `fetch`:
   *
   *     const api = new AcdClient({ baseUrl, apiKey });
   *     const index = await api.index();
   *     for await (const row of api.tables.iter('orders')) { ... }
   *     for await (const row of api.connections.iter('crm', 'contacts')) { ... }
   *     const run = await api.runs.wait('run-1');
   *
   * Every method takes `{ signal }` (an AbortSignal): aborting cancels the
   * call in the driver and rejects with the signal's reason. `onEvent`
   * receives every waiting and deprecation event (countdowns, limit bars).
   */
  return class AcdClient {
    #driver;
    #transport;
    #clock;
    #timers;
    #calls = new Map();
    #limits;
    #timer = null;
    #timerAt = null;
    #onEvent;

    /**
     * Options: `baseUrl`, `apiKey` (or `credentials`, a list of
     * `{id, kind, secret, user}`), `config` (any other ClientConfig member),
     * `transport` (`{send(request, signal, {maxBodyBytes})}`, default
     * `fetchTransport()`),
     * `clock` (`{now()}`), `timers` (`{setTimeout, clearTimeout}`),
     * `entropy` (32 bytes; default `crypto.getRandomValues`), `onEvent`.
     */
    constructor(options = {}) {
      const config = { ...(options.config ?? {}) };
      if (options.baseUrl !== undefined) config.baseUrl = options.baseUrl;
      if (options.credentials !== undefined) config.credentials = options.credentials;
      if (options.apiKey !== undefined) {
        config.credentials = [
          ...(config.credentials ?? []),
          { id: 'default', kind: 'apiKey', secret: options.apiKey, user: options.user ?? 'default' },
        ];
      }
      this.#driver = new Client(config, options.entropy ?? randomEntropy());
      this.#limits = Object.freeze({ maxBodyBytes: this.#driver.maxBodyBytes });
      this.#timers = options.timers ?? systemTimers;
      this.#clock = options.clock ?? systemClock;
      this.#transport = options.transport ?? fetchTransport({ timers: this.#timers });
      this.#onEvent = options.onEvent ?? null;
      const table = (name, opts) => (driver) => driver.startTablePager(name, withoutSignal(opts));
      const connection = (name, entityId, opts) =>
        (driver) => driver.startConnectionPager(name, entityId, withoutSignal(opts));
      /** Table records: `iter<T>(table, options)` (rows), `pages<T>(...)` (pages). */
      this.tables = Object.freeze({
        iter: (name, opts = {}) => this.#rows(this.#pages(table(name, opts), opts.signal)),
        pages: (name, opts = {}) => this.#pages(table(name, opts), opts.signal),
      });
      /** Connection records: `iter<T>(connection, entityId, options)`, `pages<T>(...)`. */
      this.connections = Object.freeze({
        iter: (name, entityId, opts = {}) =>
          this.#rows(this.#pages(connection(name, entityId, opts), opts.signal)),
        pages: (name, entityId, opts = {}) =>
          this.#pages(connection(name, entityId, opts), opts.signal),
      });
      /** Agent runs: `wait(runId, options)` resolves to the terminal run. */
      this.runs = Object.freeze({
        wait: (runId, opts = {}) => this.#waitRun(runId, opts),
      });
    }

    /** The driver underneath (for limits and advanced use). */
    get driver() { return this.#driver; }

    /** The API index document (`getApiIndex`). */
    async index(opts = {}) {
      const response = await this.request({ operation: 'getApiIndex' }, opts);
      return response.index;
    }

    /** One call of any operation; resolves to its response. */
    async request(spec, opts = {}) {
      const call = this.#begin((driver) => driver.start(spec), opts.signal);
      let response;
      for (;;) {
        const event = await this.#next(call);
        if (event.type === 'response') response = event.response;
        else if (event.type === 'failed') throw event.error;
        else if (event.type === 'done') return response;
      }
    }

    /** Frees the driver; pending calls are cancelled. */
    close() {
      for (const id of this.#calls.keys()) this.#driver.cancel(id);
      this.#calls.clear();
      this.#setTimer(null);
      this.#driver.free();
    }

    /** The limits the client tracks, at the clock's now (for limit bars). */
    limits() {
      return this.#driver.limits(this.#clock.now());
    }

    async* #rows(pages) {
      for await (const page of pages) yield* page.records;
    }

    async* #pages(starter, signal) {
      const call = this.#begin(starter, signal);
      let finished = false;
      try {
        for (;;) {
          const event = await this.#next(call);
          if (event.type === 'page') yield { records: event.records, page: event.page, last: event.last };
          else if (event.type === 'failed') { finished = true; throw event.error; }
          else if (event.type === 'done') { finished = true; return; }
        }
      } finally {
        if (!finished) this.#cancel(call.id);
      }
    }

    async #waitRun(runId, opts) {
      const call = this.#begin(
        (driver) => driver.startRunPoller(runId, withoutSignal(opts, 'onStatus')), opts.signal);
      let run;
      for (;;) {
        const event = await this.#next(call);
        if (event.type === 'runStatus') {
          run = event.run;
          opts.onStatus?.(event.status, event.run);
        } else if (event.type === 'failed') throw event.error;
        else if (event.type === 'done') return run;
      }
    }

    #begin(starter, signal) {
      signal?.throwIfAborted();
      const id = starter(this.#driver);
      const call = new CallState(signal);
      call.id = id;
      this.#calls.set(id, call);
      if (signal) {
        signal.addEventListener('abort', () => {
          this.#cancel(id);
          const wake = call.wake;
          call.wake = null;
          wake?.();
        }, { once: true });
      }
      this.#pump();
      return call;
    }

    async #next(call) {
      const event = await call.next();
      if (call.over && call.events.length === 0) this.#calls.delete(call.id);
      return event;
    }

    #cancel(id) {
      if (this.#calls.delete(id)) this.#driver.cancel(id);
      this.#pump();
    }

    /** Sends what is due, dispatches events and sets the timer for the next wait. */
    #pump() {
      const now = this.#clock.now();
      for (const transmit of this.#driver.pollTransmits(now)) this.#send(transmit);
      for (const { id, event } of this.#driver.pollEvents()) {
        if (event.type === 'waiting' || event.type === 'deprecation') this.#onEvent?.(event, id);
        this.#calls.get(id)?.push(event);
      }
      this.#setTimer(this.#driver.pollTimeout() ?? null);
    }

    #send(transmit) {
      const call = this.#calls.get(transmit.id);
      this.#transport.send(transmit.request, call?.signal, this.#limits).then(
        (outcome) => {
          // A cancelled call's answer still updates the throttle (the driver
          // keeps it as an orphan); the driver emits nothing more for it.
          try {
            this.#driver.handle(transmit.id, outcome, this.#clock.now());
          } catch (error) {
            if (this.#calls.has(transmit.id)) throw error;
          }
          this.#pump();
        },
        () => { this.#cancel(transmit.id); }, // aborted by the caller's signal
      );
    }

    #setTimer(at) {
      if (at === this.#timerAt) return;
      if (this.#timer !== null) this.#timers.clearTimeout(this.#timer);
      this.#timer = null;
      this.#timerAt = at;
      if (at === null) return;
      // Timers hold at most 2^31 - 1 ms (a longer delay fires at once): a
      // longer wait is slept in pieces, the timer set again when one ends.
      const delay = Math.min(Math.max(0, at - this.#clock.now()), MAX_TIMER_MS);
      this.#timer = this.#timers.setTimeout(() => {
        this.#timer = null;
        this.#timerAt = null;
        this.#pump();
      }, delay);
    }
  };
}

/** `options` without the members that are not the driver's. */
function withoutSignal(options, ...more) {
  const copy = { ...options };
  delete copy.signal;
  for (const key of more) delete copy[key];
  return copy;
}
