// The SDK's client (docs/sdk.md): AcdClient drives the core's driver through
// the driver protocol (docs/driver-protocol.md) over a transport (fetch by
// default), a clock and timers, all injectable. Every rule is the core's;
// this file moves call specs, requests, outcomes and events:
//   start(spec) -> poll(now) -> transport.send -> respond / fail -> poll
// and sets a timer to the batch's `timeout` for waits (one longer than a
// timer holds, 2^31 - 1 ms, is slept in pieces). Durations are milliseconds.
import { MAX_TIMER_MS, fetchTransport, systemTimers } from './transport.js';
import { AcdConfigError } from './errors.js';

const encoder = new TextEncoder();

/** The host clock: Unix milliseconds from `Date.now()`. */
export const systemClock = Object.freeze({ now: () => Date.now() });

/** Event types handed to `onEvent` and the logger. */
const VISIBLE = new Set(['waiting', 'retrying', 'deprecation']);

/** One live call: its events not yet consumed and the consumer waiting. */
class CallState {
  constructor(id, signal) {
    this.id = id;
    this.signal = signal;
    this.events = [];
    this.wake = null;
    this.over = false;
  }

  push(event) {
    this.events.push(event);
    if (event.type === 'done' || event.type === 'failed') this.over = true;
    this.poke();
  }

  poke() { const wake = this.wake; this.wake = null; wake?.(); }

  /** The next event, waiting for one if none is queued. */
  async next() {
    while (this.events.length === 0) {
      this.signal?.throwIfAborted();
      await new Promise((resolve) => { this.wake = resolve; });
    }
    return this.events.shift();
  }
}

/** ACD_API_KEY and ACD_BASE_URL as the host has them (Node), for the core. */
/**
 * The logger of a client given none: warnings on `console.warn` (a wait of
 * 10 s or more is seen with no configuration); `ACD_LOG=info` or
 * `ACD_LOG=debug` (Node) adds the rest, as `OPENAI_LOG` does.
 */
function consoleLogger() {
  const wanted = String(globalThis.process?.env?.ACD_LOG ?? '').trim().toLowerCase();
  const info = wanted === 'info' || wanted === 'debug';
  return {
    warn: (message) => console.warn(`[acd] ${message}`),
    info: info ? (message) => console.info(`[acd] ${message}`) : undefined,
    debug: wanted === 'debug' ? (message) => console.debug(`[acd] ${message}`) : undefined,
  };
}

function environment() {
  const env = globalThis.process?.env;
  return env ? defined({ ACD_API_KEY: env.ACD_API_KEY, ACD_BASE_URL: env.ACD_BASE_URL }) : undefined;
}

/** Pairs, a Headers/Map or a plain object as `[name, value]` pairs of text (undefined values left out). */
function pairs(value) {
  if (value === undefined || value === null) return undefined;
  const entries = typeof value[Symbol.iterator] === 'function' ? [...value] : Object.entries(value);
  return entries.filter(([, item]) => item !== undefined).map(([name, item]) => [String(name), String(item)]);
}

/** The per-call options of `options`, in the protocol's shape. */
function callOptions(o) {
  return defined({
    headers: pairs(o.headers), idempotency_key: o.idempotencyKey, max_attempts: o.maxAttempts, timeout_ms: o.timeoutMs,
  });
}

/** The rows of `pages` (a pager), one settled promise per row: no generator per row. */
function rowsOf(pages) {
  let rows = [];
  let at = 0;
  const iterator = {
    [Symbol.asyncIterator]: () => iterator,
    next: () => (at < rows.length ? Promise.resolve({ value: rows[at++], done: false })
      : pages.next().then((step) => { if (step.done) return step; rows = step.value.records; at = 0; return iterator.next(); })),
    return: (value) => pages.return(value),
    throw: (error) => pages.throw(error),
  };
  return iterator;
}

/** Options every method takes. */
const CALL = ['timeoutMs', 'headers', 'maxAttempts', 'idempotencyKey', 'signal', 'credential'];
const INDEX = CALL;
const TABLE_READ = [...CALL, 'pageSize', 'offset', 'orderBy', 'descending', 'after'];
const TABLE_PAGES = [...CALL, 'pageSize', 'orderBy', 'descending', 'uniqueOrder'];
const CONNECTION_READ = [...CALL, 'pageSize', 'offset', 'filter', 'egress'];
const CONNECTION_PAGES = [...CALL, 'pageSize', 'filter', 'egress'];
const RUN_CREATE = [...CALL, 'input'];
const RUN_GET = CALL;
const RUN_WAIT = [...CALL, 'intervalMs', 'jitterPerMille', 'onStatus'];
const REQUEST = [...CALL, 'path', 'query', 'roles', 'body', 'egress'];

/**
 * `options` itself when every member is one of `names`; else a TypeError
 * naming the unknown ones and the accepted ones (as Python's
 * `TypeError: unknown call option(s)`), so `{page_size: 2}` is not silently
 * ignored.
 */
function refuseUnknown(options, names) {
  const unknown = Object.keys(options ?? {}).filter((name) => !names.includes(name)).sort();
  if (unknown.length > 0) {
    throw new TypeError(`unknown call option(s) [${unknown.map((name) => `'${name}'`).join(', ')}]; the options are ${names.join(', ')}`);
  }
  return options;
}

/** The members of `object` whose value is defined. */
const defined = (object) => Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));

/**
 * The AcdClient class over `newEngine(config)`, which makes the engine of
 * one wasm module's driver (js/engine.js).
 */
export function acdClientOver(newEngine) {
  /**
   * An async client of the API: `index()`, `tables` and `connections`
   * (`read`, `iter`, `pages`), `runs` (`create`, `get`, `wait`),
   * `request()`, `limits()`, `close()`. Every method takes `{timeoutMs,
   * headers, maxAttempts, signal}`; `onEvent` receives every waiting,
   * retrying and deprecation event, `logger` a line each (the core's sentence).
   */
  return class AcdClient {
    #engine; #transport; #clock; #timers; #limits; #onEvent; #logger;
    #calls = new Map();
    #timer = null;
    #timerAt = null;
    #closed = false;

    /**
     * Options: `baseUrl` and `apiKey` (the core falls back to
     * `ACD_BASE_URL` and `ACD_API_KEY` under Node), `credentials`, `config`
     * (any other client setting, e.g. `seed`, `retry`, `maxBodyBytes`),
     * `transport`, `clock`, `timers`, `onEvent`, `logger`.
     */
    constructor(options = {}) {
      const config = defined({
        ...(options.config ?? {}), baseUrl: options.baseUrl, apiKey: options.apiKey,
        credentials: options.credentials, env: environment(),
      });
      this.#engine = newEngine(config);
      // The core's bound (the configuration's, else its default) always
      // reaches the transport: a body is never read unbounded.
      this.#limits = Object.freeze(defined({ maxBodyBytes: this.#engine.maxBodyBytes?.() ?? config.maxBodyBytes }));
      this.#timers = options.timers ?? systemTimers;
      this.#clock = options.clock ?? systemClock;
      // The transport's guard timers run in real time: a test clock moves
      // only for the waits the core planned.
      this.#transport = options.transport ?? fetchTransport({ timers: systemTimers });
      this.#onEvent = options.onEvent ?? null;
      this.#logger = options.logger ?? consoleLogger();
      const take = (o, names) => refuseUnknown(o, names);
      const tablePages = (table, o) => ({
        type: 'table_pages', table, page_size: o.pageSize, order_by: o.orderBy,
        descending: o.descending, unique_order: o.uniqueOrder, credential: o.credential,
      });
      const connectionPages = (connection, entity, o) => ({
        type: 'connection_pages', connection, entity, page_size: o.pageSize, filter: o.filter, egress: o.egress, credential: o.credential,
      });
      /** Table records: `read<T>` (one page), `iter<T>` (rows), `pages<T>` (pages). */
      this.tables = Object.freeze({
        read: (table, o = {}) => this.#call({
          type: 'table_read', table, page_size: o.pageSize, offset: o.offset, order_by: o.orderBy,
          descending: o.descending, after: o.after, credential: o.credential,
        }, take(o, TABLE_READ)),
        iter: (table, o = {}) => rowsOf(this.#pages(tablePages(table, o), take(o, TABLE_PAGES))),
        pages: (table, o = {}) => this.#pages(tablePages(table, o), take(o, TABLE_PAGES)),
      });
      /** Connection records: `read<T>`, `iter<T>`, `pages<T>` (connection, entity, options). */
      this.connections = Object.freeze({
        read: (connection, entity, o = {}) => this.#call({
          type: 'connection_read', connection, entity, page_size: o.pageSize, offset: o.offset, filter: o.filter,
          egress: o.egress, credential: o.credential,
        }, take(o, CONNECTION_READ)),
        iter: (connection, entity, o = {}) => rowsOf(this.#pages(connectionPages(connection, entity, o), take(o, CONNECTION_PAGES))),
        pages: (connection, entity, o = {}) => this.#pages(connectionPages(connection, entity, o), take(o, CONNECTION_PAGES)),
      });
      /** Agent runs: `create(agentId, {input})`, `get(runId)`, `wait(runId, {intervalMs, timeoutMs})`. */
      this.runs = Object.freeze({
        create: (agentId, o = {}) => this.#call({ type: 'run_create', agent_id: agentId, input: o.input, credential: o.credential },
          take(o, RUN_CREATE)),
        get: (runId, o = {}) => this.#call({ type: 'run_get', run_id: runId, credential: o.credential }, take(o, RUN_GET)),
        wait: (runId, o = {}) => this.#waitRun(runId, take(o, RUN_WAIT)),
      });
    }

    /** The API index document (`GET /api/v1`). */
    index(options = {}) { return this.#call({ type: 'index', credential: options.credential }, refuseUnknown(options, INDEX)); }

    /** One typed call (docs/driver-protocol.md): resolves to the response's body. */
    #call(spec, options) {
      return this.#run(defined(spec), options, (event, body) => (event.type === 'response' ? event.body : body));
    }

    /**
     * One call of any catalogue operation: `{path, query, body}` plus the
     * per-call options; resolves to the response's body (JSON).
     */
    async request(operation, options = {}) {
      refuseUnknown(options, REQUEST);
      const spec = {
        type: 'request', operation, path: options.path, query: pairs(options.query), roles: options.roles,
        body: options.body, credential: options.credential, egress: options.egress,
      };
      return this.#run(spec, options, (event, body) => (event.type === 'response' ? event.body : body));
    }

    /** Runs a call to its end: `take(event, result)` folds its events into the result. */
    async #run(spec, options, take) {
      const call = this.#begin(spec, options);
      let result;
      for (;;) {
        const event = await this.#next(call);
        if (event.type === 'failed') throw event.error;
        if (event.type === 'done') return result;
        result = take(event, result);
      }
    }

    /** The throttle's view of each limit, at the clock's now (for limit bars). */
    limits() {
      this.#open();
      return this.#engine.limits(this.#clock.now());
    }

    /** Whether no call is live. */
    get idle() { return this.#calls.size === 0; }

    /**
     * Cancels every call (their consumers reject with AcdConfigError),
     * clears the timer and frees the engine. A call after this rejects at
     * once. Idempotent.
     */
    close() {
      if (this.#closed) return;
      this.#closed = true;
      const error = closedError();
      for (const [id, call] of this.#calls) {
        this.#engine.cancel(id);
        call.push({ call: id, type: 'failed', error });
      }
      this.#calls.clear();
      this.#setTimer(null);
      this.#engine.free();
    }

    [Symbol.dispose]() { this.close(); }

    async* #pages(spec, options) {
      const call = this.#begin(spec, options);
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

    #waitRun(runId, options) {
      const { timeoutMs, ...rest } = options; // the poller's deadline
      const spec = {
        type: 'run_wait', run_id: runId, interval_ms: options.intervalMs, deadline_ms: timeoutMs,
        jitter_per_mille: options.jitterPerMille, credential: options.credential,
      };
      return this.#run(spec, rest, (event, run) => {
        if (event.type !== 'run_status') return run;
        options.onStatus?.(event.status, event.run);
        return event.run;
      });
    }

    #open() { if (this.#closed) throw closedError(); }

    #begin(spec, options) {
      this.#open();
      const { signal } = options;
      signal?.throwIfAborted();
      const id = this.#engine.start(defined({ ...spec, options: callOptions(options) }));
      const call = new CallState(id, signal);
      this.#calls.set(id, call);
      if (signal) {
        signal.addEventListener('abort', () => { this.#cancel(id); call.poke(); }, { once: true });
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
      const call = this.#calls.get(id);
      if (call === undefined || this.#closed) return;
      this.#calls.delete(id);
      this.#engine.cancel(id);
      this.#pump();
    }

    /** Sends what is due, dispatches events and sets the timer for the next wait. */
    #pump() {
      if (this.#closed) return;
      const batch = this.#engine.poll(this.#clock.now());
      for (const transmit of batch.transmits) this.#send(transmit);
      for (const event of batch.events) {
        if (VISIBLE.has(event.type)) this.#tell(event);
        this.#calls.get(event.call)?.push(event);
      }
      this.#setTimer(batch.timeout ?? null);
    }

    /** Hands a waiting, retrying or deprecation event to `onEvent` and the logger. */
    #tell(event) {
      this.#onEvent?.(event, event.call);
      const logger = this.#logger;
      if (logger === null || event.message === undefined) return;
      // The core's level: a wait of 10 s or more (and a deprecation) is a
      // warning; a retry's own wait is debug (each wait or retry said once).
      const level = event.type === 'deprecation' ? 'warning' : (event.level ?? 'info');
      if (typeof logger === 'function') logger(event.message, event);
      else if (level === 'warning' && typeof logger.warn === 'function') logger.warn(event.message);
      else if (level === 'debug') logger.debug?.(event.message);
      else logger.info?.(event.message);
    }

    #send(transmit) {
      const call = this.#calls.get(transmit.call);
      const body = transmit.body === null ? undefined : encoder.encode(transmit.body);
      const request = { method: transmit.method, url: transmit.url, headers: transmit.headers, body };
      const limits = transmit.timeout_at === null || transmit.timeout_at === undefined ? this.#limits
        : { ...this.#limits, timeoutMs: Math.max(0, transmit.timeout_at - this.#clock.now()) };
      this.#transport.send(request, call?.signal, limits).then(
        (outcome) => {
          if (this.#closed) return;
          const now = this.#clock.now();
          // A cancelled call's answer still updates the throttle (the driver
          // keeps it as an orphan); the driver emits nothing more for it.
          try {
            if (outcome.type === 'transport') this.#engine.fail(transmit.call, outcome.failure, now);
            else this.#engine.respond(transmit.call, outcome.status, outcome.headers, outcome.body, now);
          } catch (error) { // an outcome the core refused (e.g. a malformed header): the call fails
            this.#cancel(transmit.call);
            call?.push({ call: transmit.call, type: 'failed', error });
          }
          this.#pump();
        },
        () => { this.#cancel(transmit.call); }, // aborted by the caller's signal
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

/** The error of a call on a closed client. */
function closedError() {
  return new AcdConfigError('this client is closed: make a new AcdClient to call the API again', 'CLOSED',
    { category: 'config' });
}
