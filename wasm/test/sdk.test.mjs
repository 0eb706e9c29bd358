// The SDK surface of docs/sdk.md in JavaScript, in virtual time against a
// scripted server (a transport that answers each request from a function):
// read / iter / pages of tables and connections, runs create / get / wait,
// request(), limits(), per-call options (headers, timeoutMs, signal), the
// ACD_API_KEY / ACD_BASE_URL fallbacks, the error classes by category, the
// logger and close(). Every expected value is written by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AcdClient, AcdConfigError, AcdError, AcdRequestError, AuthenticationError, BadRequestError,
  ConnectionError, NotFoundError, PermissionDeniedError, RateLimitError, ServerError, TimeoutError,
  classOfCategory, errorFromCore,
} from 'acd-client';
import { VirtualClock } from 'acd-client/testing';
import { Gate } from 'acd-client/gate';
import { driverEngine } from '../js/engine.js';

const INDEX = JSON.parse(Gate.demo().indexJson());

const T0 = 1_700_000_000_000;
const KEY = 'acd_live_demo_ada';
const BASE = 'http://127.0.0.1:8080';
const json = (status, value, headers = []) => ({
  status, headers: [['content-type', 'application/json'], ...headers],
  body: new TextEncoder().encode(JSON.stringify(value)),
});

/** A transport answering with `answer(request)`; `seen` lists {method, url, headers, body}. */
function scripted(answer, clock) {
  const seen = [];
  return {
    seen,
    async send(request, signal) {
      signal?.throwIfAborted();
      const body = request.body === undefined ? undefined : new TextDecoder().decode(request.body);
      const entry = { method: request.method, url: request.url, headers: new Map(request.headers.map(([n, v]) => [n.toLowerCase(), v])), body };
      seen.push(entry);
      if (clock) await new Promise((resolve) => { clock.setTimeout(resolve, 10); });
      return answer(entry);
    },
  };
}

function client(answer, options = {}, latency = true) {
  const clock = new VirtualClock(T0);
  const transport = scripted(answer, latency ? clock : undefined);
  const api = new AcdClient({ baseUrl: BASE, apiKey: KEY, clock, timers: clock, transport, config: { seed: 1 }, ...options });
  return { api, clock, transport };
}

const rows = Array.from({ length: 5 }, (_, i) => ({ id: i + 1 }));

/** Table reads by offset/limit; connection reads as a top-level array; runs. */
function server({ url, method, body }) {
  const { pathname, searchParams } = new URL(url);
  const offset = Number(searchParams.get('offset') ?? 0);
  const limit = Number(searchParams.get('limit') ?? 100);
  if (pathname === '/api/v1') return json(200, INDEX);
  if (pathname === '/api/v1/tables/orders') return json(200, { data: rows.slice(offset, offset + limit) });
  if (pathname === '/api/v1/connections/crm/records') return json(200, rows.slice(offset, offset + limit));
  if (method === 'POST' && pathname === '/api/v1/agents/agent-1/runs') {
    return json(201, { data: { id: 'run_1', agent_id: 'agent-1', status: 'queued', input: JSON.parse(body).input } });
  }
  return json(404, { detail: 'no such thing', status: 404 });
}

async function collect(iterable) {
  const out = [];
  for await (const item of iterable) out.push(item);
  return out;
}

test('tables.read gives one page: the records of limit and offset', async () => {
  const { api, clock, transport } = client(server);
  assert.deepEqual(await clock.run(api.tables.read('orders', { pageSize: 2, offset: 1 })), [{ id: 2 }, { id: 3 }]);
  assert.equal(transport.seen.length, 1);
  const url = new URL(transport.seen[0].url);
  assert.equal(url.pathname, '/api/v1/tables/orders');
  assert.equal(url.searchParams.get('limit'), '2');
  assert.equal(url.searchParams.get('offset'), '1');
  assert.equal(transport.seen[0].headers.get('x-api-key'), KEY);
});

test('tables.iter and pages walk every page; connections read a top-level array', async () => {
  const { api, clock } = client(server);
  assert.deepEqual(await clock.run(collect(api.tables.iter('orders', { pageSize: 2 }))), rows);
  const pages = await clock.run(collect(api.tables.pages('orders', { pageSize: 3 })));
  assert.deepEqual(pages.map((p) => [p.page, p.last, p.records.length]), [[1, false, 3], [2, true, 2]]);
  assert.deepEqual(await clock.run(api.connections.read('crm', 'contacts', { pageSize: 2 })), [{ id: 1 }, { id: 2 }]);
  assert.deepEqual(await clock.run(collect(api.connections.iter('crm', 'contacts', { pageSize: 2 }))), rows);
  const cpages = await clock.run(collect(api.connections.pages('crm', 'contacts', { pageSize: 4 })));
  assert.deepEqual(cpages.map((p) => p.records.length), [4, 1]);
});

test('index() and request() return the body; runs.create posts {input} and returns the run', async () => {
  const { api, clock, transport } = client(server);
  assert.deepEqual(await clock.run(api.index()), INDEX);
  const run = await clock.run(api.runs.create('agent-1', { input: { q: 'hi' } }));
  assert.deepEqual(run, { id: 'run_1', agent_id: 'agent-1', status: 'queued', input: { q: 'hi' } });
  const post = transport.seen[1];
  assert.equal(post.method, 'POST');
  assert.equal(new URL(post.url).pathname, '/api/v1/agents/agent-1/runs');
  assert.deepEqual(JSON.parse(post.body), { input: { q: 'hi' } });
  const records = await clock.run(api.request('listTableRecords', { path: { id: 'orders' }, query: { limit: 1 } }));
  assert.deepEqual(records, [{ id: 1 }]);
});

test('runs.get reads a run; runs.wait polls every intervalMs until a terminal status', async () => {
  const statuses = ['queued', 'running', 'running', 'succeeded'];
  const polls = [];
  const { api, clock } = client(({ url }) => {
    polls.push(clock.now());
    const status = statuses[Math.min(polls.length - 1, statuses.length - 1)];
    assert.equal(new URL(url).pathname, '/api/v1/runs/run_1');
    return json(200, { data: { id: 'run_1', agent_id: 'agent-1', status } });
  });
  assert.equal((await clock.run(api.runs.get('run_1'))).status, 'queued');
  const seen = [];
  const run = await clock.run(api.runs.wait('run_1', { intervalMs: 500, onStatus: (status) => seen.push(status) }));
  assert.equal(run.status, 'succeeded');
  assert.deepEqual(seen, ['running', 'succeeded'], 'a status change and the terminal one');
  assert.equal(polls.length, 4, 'one get, then three polls');
  // Polls go about every 500 ms (the core's jitter is at most 10 %).
  for (let i = 2; i < polls.length; i += 1) {
    const gap = polls[i] - polls[i - 1];
    assert.ok(gap >= 450 && gap <= 600, `gap ${gap}`);
  }
});

test('headers of the per-call options go with the request', async () => {
  const { api, clock, transport } = client(server);
  await clock.run(api.tables.read('orders', { headers: { Prefer: 'code=200' } }));
  await clock.run(collect(api.tables.iter('orders', { headers: [['X-Trace', 't-1']] })));
  assert.equal(transport.seen[0].headers.get('prefer'), 'code=200');
  assert.equal(transport.seen[1].headers.get('x-trace'), 't-1');
});

test('maxAttempts bounds the attempts of one call', async () => {
  const { api, clock, transport } = client(() => json(503, { detail: 'down', status: 503 }));
  await assert.rejects(clock.run(api.tables.read('orders', { maxAttempts: 2 })), ServerError);
  assert.equal(transport.seen.length, 2);
  await assert.rejects(clock.run(api.tables.read('orders', { maxAttempts: 1 })), ServerError);
  assert.equal(transport.seen.length, 3);
});

test('events are decoded strictly: an unknown type is an unknown event, never a failure', () => {
  const batch = {
    transmits: [], timeout: null,
    events: [
      { call: 1, type: 'page_v2', records: [] },
      { call: 1, type: 'waiting', until: 5, reason: 'quota', limit: { name: 'x', requests: 1, window_seconds: 60 }, message: 'w' },
      { call: 1, type: 'failed', error: { type: 'api', category: 'not_found', status: 404, message: 'gone' } },
    ],
  };
  class FakeDriver { poll() { return JSON.stringify(batch); } }
  const [unknown, waiting, failed] = driverEngine(FakeDriver, {}).poll(T0).events;
  assert.deepEqual(unknown, { call: 1, type: 'unknown', event: batch.events[0] });
  assert.deepEqual(waiting.limit, { name: 'x', requests: 1, windowSeconds: 60 });
  assert.ok(failed.error instanceof NotFoundError);
  assert.equal(failed.error.message, 'gone');
});

test('timeoutMs bounds the call: it fails with TimeoutError, and nothing more is sent', async () => {
  const { api, clock, transport } = client(() => json(503, { detail: 'down', status: 503 }));
  const started = clock.now();
  await assert.rejects(clock.run(api.tables.read('orders', { timeoutMs: 1500 })), (error) => {
    assert.ok(error instanceof TimeoutError, `${error}`);
    assert.equal(error.category, 'timeout');
    return true;
  });
  assert.ok(clock.now() - started <= 1500, `${clock.now() - started}`);
  const sent = transport.seen.length;
  await clock.run(new Promise((resolve) => { clock.setTimeout(resolve, 60_000); }));
  assert.equal(transport.seen.length, sent);
  assert.ok(api.idle);
});

test('an AbortSignal cancels a waiting call: it rejects with the signal\'s reason', async () => {
  const { api, clock } = client(() => json(503, { detail: 'down', status: 503 }));
  const controller = new AbortController();
  const reason = new Error('stop');
  const pending = clock.run(api.tables.read('orders', { signal: controller.signal }));
  clock.setTimeout(() => controller.abort(reason), 50);
  await assert.rejects(pending, (error) => error === reason);
  assert.ok(api.idle);
  await assert.rejects(api.index({ signal: AbortSignal.abort(reason) }), (error) => error === reason);
});

test('each category becomes its class through the one table', async () => {
  for (const [status, Class, category] of [
    [400, BadRequestError, 'bad_request'], [401, AuthenticationError, 'authentication'],
    [403, PermissionDeniedError, 'permission'], [404, NotFoundError, 'not_found'],
  ]) {
    const { api, clock } = client(() => json(status, { detail: `status ${status}`, status }));
    await assert.rejects(clock.run(api.tables.read('orders')), (error) => {
      assert.ok(error instanceof Class, `${status}: ${error}`);
      assert.ok(error instanceof AcdError);
      assert.equal(error.category, category);
      assert.equal(error.status, status);
      return true;
    });
  }
  const { api, clock } = client(() => json(500, { detail: 'boom', status: 500 }), { config: { retry: { maxAttempts: 1 } } });
  await assert.rejects(clock.run(api.tables.read('orders')), ServerError);
  assert.equal(classOfCategory('rate_limit'), RateLimitError);
  assert.equal(classOfCategory('connection'), ConnectionError);
  const limited = errorFromCore({ type: 'rate_limited', category: 'rate_limit', status: 429, message: 'm', retry_at_ms: T0 });
  assert.ok(limited instanceof RateLimitError);
  assert.equal(limited.retryAt, T0);
  assert.equal(limited.code, 'RATE_LIMITED');
  assert.ok(errorFromCore({ type: 'x', category: 'request', message: 'm' }) instanceof AcdRequestError);
  assert.ok(!(errorFromCore({ type: 'x', category: 'request', message: 'm' }) instanceof BadRequestError));
});

test('a call without a credential is a config error, and nothing is sent', async () => {
  const { api, transport } = client(server, { apiKey: undefined });
  await assert.rejects(api.tables.read('orders'), AcdConfigError);
  assert.equal(transport.seen.length, 0);
});

test('ACD_API_KEY and ACD_BASE_URL are the fallbacks under Node; options win', async () => {
  const saved = { ...process.env };
  process.env.ACD_API_KEY = 'acd_live_from_env';
  process.env.ACD_BASE_URL = 'http://env.example:9000';
  try {
    const transport = scripted(server);
    const api = new AcdClient({ transport, config: { seed: 1 } });
    await api.tables.read('orders');
    assert.equal(new URL(transport.seen[0].url).origin, 'http://env.example:9000');
    assert.equal(transport.seen[0].headers.get('x-api-key'), 'acd_live_from_env');
    api.close();
    const explicit = new AcdClient({ baseUrl: BASE, apiKey: KEY, transport, config: { seed: 1 } });
    await explicit.tables.read('orders');
    assert.equal(new URL(transport.seen[1].url).origin, BASE);
    assert.equal(transport.seen[1].headers.get('x-api-key'), KEY);
    explicit.close();
  } finally {
    for (const name of ['ACD_API_KEY', 'ACD_BASE_URL']) {
      if (saved[name] === undefined) delete process.env[name]; else process.env[name] = saved[name];
    }
  }
});

test('onEvent and the logger see each wait, with a line of text', async () => {
  let answered = 0;
  const lines = [];
  const events = [];
  const { api, clock } = client(() => {
    answered += 1;
    return answered === 1 ? json(503, { detail: 'down', status: 503 }) : json(200, { data: [] });
  }, { logger: (line) => lines.push(line), onEvent: (event) => events.push(event.type) });
  assert.deepEqual(await clock.run(api.tables.read('orders')), []);
  assert.ok(events.includes('waiting') || events.includes('retrying'), events.join());
  assert.equal(lines.length, events.length);
  for (const line of lines) assert.equal(typeof line, 'string');
  const info = [];
  const second = client(() => json(503, { detail: 'down', status: 503 }),
    { logger: { info: (line) => info.push(line) }, config: { retry: { maxAttempts: 2 } } });
  await assert.rejects(second.clock.run(second.api.tables.read('orders')), ServerError);
  assert.ok(info.length >= 1);
});

test('limits() gives the throttle\'s view; close() ends live calls and later calls reject at once', async () => {
  const { api, clock, transport } = client(server, {}, false);
  await clock.run(api.tables.read('orders'));
  assert.ok(Array.isArray(api.limits()));
  const hanging = api.tables.iter('orders', { pageSize: 1 });
  const first = hanging.next();
  api.close();
  await assert.rejects(first, AcdConfigError);
  const sent = transport.seen.length;
  await assert.rejects(api.index(), (error) => error instanceof AcdConfigError && /closed/.test(error.message));
  await assert.rejects(collect(api.tables.iter('orders')), AcdConfigError);
  assert.throws(() => api.limits(), AcdConfigError);
  assert.equal(transport.seen.length, sent);
  assert.equal(clock.pendingTimers, 0, 'close released the timers');
  api.close();
});
