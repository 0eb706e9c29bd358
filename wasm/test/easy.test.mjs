// The client (AcdClient) against the real gate rules, in virtual time: a
// VirtualClock is the clock and the timers, and gateTransport hands every
// request to the core's test server (a table `orders` of 23 rows, the
// spec's limits). No sockets, no sleeping; every figure
// below is worked out by hand from the spec (5 table reads per 60 s per
// user, 100 requests per 60 s per credential).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AcdApiError, AcdClient, AcdConfigError, AcdRequestError, NotFoundError } from 'acd-client';
import { Driver } from 'acd-client/gate';
import { VirtualClock, gateTransport } from 'acd-client/testing';

const T0 = 1_700_000_000_000;
const SECRET = 'acd_live_demo_ada';
const rows = Array.from({ length: 23 }, (_, i) => ({ id: i + 1, name: `row ${i + 1}` }));

/** A client, a gate transport and a virtual clock wired together. */
function setup(options = {}) {
  const clock = new VirtualClock(T0);
  const transport = gateTransport({ clock, tables: { orders: rows }, latencyMs: 20 });
  const events = [];
  const api = new AcdClient({
    baseUrl: 'http://127.0.0.1:8080', apiKey: SECRET, clock, timers: clock, transport,
    onEvent: (event) => events.push(event), ...options,
  });
  return { api, clock, transport, events };
}

async function collect(iterable) {
  const out = [];
  for await (const item of iterable) out.push(item);
  return out;
}

test('tables.iter pages through every row; the 6th page waits for the window instead of a 429', async () => {
  const { api, clock, transport, events } = setup();
  const got = await clock.run(collect(api.tables.iter('orders', { pageSize: 2 })));
  assert.deepEqual(got, rows);
  assert.equal(transport.requests.length, 12, '23 rows in pages of 2');
  assert.deepEqual(transport.statuses, Array(12).fill(200));
  const waits = events.filter((event) => event.type === 'waiting');
  assert.equal(waits.length, 2, 'pages 6 and 11 wait');
  for (const wait of waits) {
    assert.deepEqual(wait.limit, { name: 'user_table_reads', requests: 5, windowSeconds: 60 });
    assert.equal(wait.reason, 'quota');
  }
  // The gate's windows are fixed and aligned to the epoch: T0 is 20 s into
  // one, so it ends at T0 + 40 s and the next at T0 + 100 s. Each wait ends
  // after its window's end (plus the throttle's jitter), within the next one.
  assert.ok(waits[0].until >= T0 + 40_000 && waits[0].until < T0 + 100_000, `${waits[0].until - T0}`);
  assert.ok(waits[1].until >= T0 + 100_000 && waits[1].until < T0 + 160_000, `${waits[1].until - T0}`);
  assert.ok(clock.now() >= waits[1].until);
  assert.ok(api.idle);
});

test('pages<T>() gives numbered pages and marks the last one', async () => {
  const { api, clock } = setup();
  const pages = await clock.run(collect(api.tables.pages('orders', { pageSize: 10 })));
  assert.deepEqual(pages.map(({ page, last, records }) => [page, last, records.length]),
    [[1, false, 10], [2, false, 10], [3, true, 3]]);
});

test('index() resolves to the API index', async () => {
  const { api, clock } = setup();
  const index = await clock.run(api.index());
  assert.equal(index.version, 'v1');
  assert.equal(typeof index.name, 'string');
});

test('an API error rejects with AcdApiError (status, detail); nothing is retried', async () => {
  const { api, clock, transport } = setup();
  await assert.rejects(clock.run(collect(api.tables.iter('missing'))), (error) => {
    assert.ok(error instanceof AcdApiError);
    assert.ok(error instanceof NotFoundError);
    assert.equal(error.category, 'not_found');
    assert.equal(error.status, 404);
    assert.equal(typeof error.detail, 'string');
    assert.ok(!String(error.message).includes(SECRET));
    return true;
  });
  assert.deepEqual(transport.statuses, [404]);
});

test('an invalid option is refused before anything is sent', async () => {
  const { api, transport } = setup();
  await assert.rejects(collect(api.tables.iter('orders', { pageSize: 0 })), (error) => {
    assert.ok(error instanceof AcdRequestError);
    assert.match(error.message, /limit must be an integer from 1 to 5000/);
    return true;
  });
  assert.equal(transport.requests.length, 0);
});

test('breaking out of the loop cancels the pager: nothing more is sent', async () => {
  const { api, clock, transport } = setup();
  const first = await clock.run((async () => {
    for await (const row of api.tables.iter('orders', { pageSize: 2 })) return row;
    return undefined;
  })());
  assert.deepEqual(first, rows[0]);
  assert.ok(api.idle);
  // The second page may already be in flight (the pager sends it as soon
  // as the first arrives); its answer only updates the throttle.
  const sent = transport.requests.length;
  assert.ok(sent === 1 || sent === 2, `${sent}`);
  await clock.run(new Promise((resolve) => { clock.setTimeout(resolve, 600_000); }));
  assert.equal(transport.requests.length, sent, 'nothing was sent after the break');
  assert.equal(clock.pendingTimers, 0, 'no timer left behind');
});

test('an AbortSignal cancels a call that waits for the throttle', async () => {
  const { api, clock, transport } = setup();
  await clock.run(collect(api.tables.iter('orders', { pageSize: 5 }))); // 5 reads: the window is used up
  const controller = new AbortController();
  const reason = new Error('closed');
  const pending = collect(api.tables.iter('orders', { pageSize: 5, signal: controller.signal }));
  await new Promise((resolve) => { setImmediate(resolve); });
  assert.equal(transport.requests.length, 5, 'the 6th read waits');
  controller.abort(reason);
  await assert.rejects(pending, (error) => error === reason);
  assert.ok(api.idle);
  assert.equal(transport.requests.length, 5, 'nothing was sent after the abort');
});

test('a connect failure and a timeout of a GET are retried; the rows still arrive once each', async () => {
  const clock = new VirtualClock(T0);
  const inner = gateTransport({ clock, tables: { orders: rows } });
  const failures = [{ type: 'transport', failure: 'connect' }, { type: 'transport', failure: 'timeout' }];
  const seen = [];
  const transport = {
    async send(request, signal) {
      const failure = failures.shift();
      seen.push(failure?.failure ?? 'sent');
      return failure ?? inner.send(request, signal);
    },
  };
  const api = new AcdClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: SECRET, clock, timers: clock, transport });
  const got = await clock.run(collect(api.tables.iter('orders', { pageSize: 50 })));
  assert.deepEqual(got, rows);
  assert.deepEqual(seen, ['connect', 'timeout', 'sent']);
});

const encoder = new TextEncoder();
const bytes = (value) => encoder.encode(JSON.stringify(value));

/** A Driver (the driver protocol, from acd-client/gate) with `config` (snake_case). */
function driver(config) {
  return new Driver(bytes({ base_url: 'http://127.0.0.1:8080', api_key: SECRET, ...config }));
}

/** The waits (until − now) a client plans after three 503s in a row. */
function backoffs(config) {
  const client = driver(config);
  const call = client.start(bytes({ type: 'request', operation: 'listTableRecords', path: { id: 'orders' } }));
  const waits = [];
  let now = T0;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const [transmit] = JSON.parse(client.poll(now)).transmits;
    if (!transmit) break;
    client.respond(call, 503, 'content-type: application/json\n', bytes({ detail: 'down', status: 503 }), now);
    for (const event of JSON.parse(client.poll(now)).events) {
      if (event.type === 'waiting') { waits.push(event.until - now); now = event.until; }
    }
  }
  client.free();
  return waits;
}

test('two default clients draw different jitter; a seeded client repeats itself', () => {
  const a = backoffs({});
  const b = backoffs({});
  assert.equal(a.length, 3);
  assert.notDeepEqual(a, b, 'entropy from crypto.getRandomValues');
  assert.deepEqual(backoffs({ seed: 7 }), backoffs({ seed: 7 }));
});

test('a refused configuration never shows the secret', () => {
  assert.throws(() => new AcdClient({ apiKey: 'acd_live_bad secret' }), (error) => {
    assert.ok(error instanceof AcdConfigError, `${error}`);
    assert.equal(error.category, 'config');
    return !String(error).includes('bad secret') && !JSON.stringify(error).includes('bad secret');
  });
});

test('an unknown option is refused with the TypeError Python raises, before anything is sent', async () => {
  const { api, transport } = setup();
  assert.throws(() => api.tables.read('orders', { page_size: 2 }),
    (error) => error instanceof TypeError && error.message.startsWith("unknown call option(s) ['page_size']; the options are "));
  assert.throws(() => api.runs.create('a1', { body: {} }), TypeError);
  assert.equal(transport.requests.length, 0);
});

test('tables.read sends the typed call: direction only when descending', async () => {
  const { api, clock, transport } = setup();
  const page = await clock.run(api.tables.read('orders', { pageSize: 2, orderBy: 'id', descending: false }));
  assert.equal(page.length, 2);
  await clock.run(api.tables.read('orders', { pageSize: 2, orderBy: 'id', descending: true }));
  const targets = transport.requests.map((request) => new URL(request.url).search);
  assert.deepEqual(targets, ['?limit=2&order_by=id', '?limit=2&order_by=id&direction=desc']);
});
