// The driver's hot path crosses the boundary in few calls: events and
// transmits are built by js/shapes.js, and response headers given as an
// array of string pairs cross as one string. These tests pin that every
// other shape still reads the same, and that odd input still gets the
// module's own error sentences.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AcdArgumentError, Client } from 'acd/gate';

const T0 = 1_700_000_000_000;
const credentials = [{ id: 'main', kind: 'apiKey', secret: 'acd_live_demo_ada', user: 'ada' }];
const rateHeaders = [['RateLimit-Limit', '10'], ['RateLimit-Remaining', '7'], ['RateLimit-Reset', '60']];

/** Sends one table read and answers it with `headers`; returns the driver and its events. */
function answer(headers) {
  const client = new Client({ credentials, seed: 1 });
  const id = client.start({ operation: 'listTableRecords', path: { id: 'orders' }, params: { limit: 2 } });
  const transmits = client.pollTransmits(T0);
  assert.deepEqual(transmits.map((t) => t.id), [id]);
  transmits[0].request.free();
  client.handle(id, { status: 200, headers, body: '{"data":[{"id":1},{"id":2}]}' }, T0);
  return { client, id, events: client.pollEvents() };
}

test('events arrive as {id, event} with the records parsed, then done', () => {
  const { client, id, events } = answer(rateHeaders);
  assert.deepEqual(events, [
    { id, event: { type: 'response', response: { type: 'records', status: 200, records: [{ id: 1 }, { id: 2 }] } } },
    { id, event: { type: 'done' } },
  ]);
  client.free();
});

test('response headers read the same from pairs, Headers, Map, a plain object and with a NUL', () => {
  const limitsOf = (headers) => {
    const { client } = answer(headers);
    const limits = client.limits(T0).map(({ limit, remaining }) => ({ limit, remaining }));
    client.free();
    return limits;
  };
  // The credential's own quota (100 per 60 s, one request sent) and the
  // limit the headers announce (RateLimit-Limit 10 with 7 remaining).
  const expected = [{ limit: 100, remaining: 99 }, { limit: 10, remaining: 7 }];
  assert.deepEqual(limitsOf(rateHeaders), expected);
  assert.deepEqual(limitsOf(new Headers(rateHeaders)), expected);
  assert.deepEqual(limitsOf(new Map(rateHeaders)), expected);
  assert.deepEqual(limitsOf(Object.fromEntries(rateHeaders)), expected);
  assert.deepEqual(limitsOf([...rateHeaders, ['X-Note', 'a\0b']]), expected);
  assert.deepEqual(limitsOf(rateHeaders.map(([n, v]) => [n, new TextEncoder().encode(v)])), expected);
});

test('a malformed header pair still gets the module\'s sentence', () => {
  const client = new Client({ credentials, seed: 1 });
  const id = client.start({ operation: 'listTableRecords', path: { id: 'orders' } });
  client.pollTransmits(T0)[0].request.free();
  assert.throws(() => client.handle(id, { status: 200, headers: [['RateLimit-Limit']], body: '' }, T0),
    (error) => error instanceof AcdArgumentError
      && error.message === 'outcome.headers[0] must be a [name, value] pair, got an array');
  assert.throws(() => client.handle(id, { status: 200, headers: [[1, '2']], body: '' }, T0),
    (error) => error instanceof AcdArgumentError
      && error.message === 'outcome.headers[0] name must be a string, got a number');
  client.free();
});

test('a spec builds the same request from plain objects, pairs and Maps', () => {
  const client = new Client({ credentials, seed: 1 });
  const wire = (spec) => {
    const request = client.build(spec);
    const { method, url } = request;
    request.free();
    return `${method} ${url}`;
  };
  const expected = 'GET http://127.0.0.1:8080/api/v1/tables/orders?limit=2&offset=10';
  assert.equal(wire({ operation: 'listTableRecords', path: { id: 'orders' }, params: { limit: 2, offset: '10' } }), expected);
  assert.equal(wire({ operation: 'listTableRecords', path: [['id', 'orders']], params: [['limit', '2'], ['offset', 10]] }), expected);
  assert.equal(wire({ operation: 'listTableRecords', path: new Map([['id', 'orders']]), params: new Map([['limit', 2], ['offset', 10]]) }), expected);
  assert.equal(wire({ operation: 'listTableRecords', path: { id: 'orders' }, params: { limit: 2, offset: 10 }, credential: 'main' }), expected);
  for (const params of [{ size: 2 }, new Map([['size', 2]])]) {
    assert.throws(() => client.build({ operation: 'listTableRecords', path: { id: 'orders' }, params }),
      (error) => error instanceof AcdArgumentError && error.message === 'spec.params has "size"; the parameter '
        + 'roles are offset, limit, orderBy, direction, after, entityId and filter (use spec.query for wire names)');
  }
  client.free();
});

test('a response reads the same with a Uint8Array body (one crossing) or a string body', () => {
  const run = (body) => {
    const client = new Client({ credentials, seed: 1 });
    const id = client.start({ operation: 'listTableRecords', path: { id: 'orders' } });
    client.pollTransmits(T0)[0].request.free();
    client.handle(id, { status: 200, headers: rateHeaders, body }, T0);
    const events = client.pollEvents().map(({ event }) => event);
    client.free();
    return events;
  };
  const text = '{"data":[{"id":7}]}';
  const expected = [
    { type: 'response', response: { type: 'records', status: 200, records: [{ id: 7 }] } },
    { type: 'done' },
  ];
  assert.deepEqual(run(new TextEncoder().encode(text)), expected);
  assert.deepEqual(run(text), expected);
});

test('a bad status, id or time gets the module\'s sentence on either path', () => {
  const client = new Client({ credentials, seed: 1 });
  const id = client.start({ operation: 'listTableRecords', path: { id: 'orders' } });
  client.pollTransmits(T0)[0].request.free();
  const status = (error) => error instanceof AcdArgumentError
    && error.message === 'outcome.status must be an HTTP status code (a number)';
  assert.throws(() => client.handle(id, { status: 1000, headers: [] }, T0), status);
  assert.throws(() => client.handle(id, { status: 200.5 }, T0), status);
  assert.throws(() => client.handle(id, { status: '200', headers: [] }, T0), status);
  assert.throws(() => client.handle(id, { status: 200, headers: [] }, -1),
    (error) => error instanceof AcdArgumentError && /^nowMs must be a whole number/.test(error.message));
  client.free();
});

test('pages larger than the scratch buffer, memory growth between calls and non-ASCII text read whole', () => {
  const client = new Client({ credentials, seed: 1, clientIpQuota: { requests: 1000, windowMs: 60_000 } });
  const rows = (count, width) => Array.from({ length: count }, (_, i) => ({ id: i, note: 'x'.repeat(width) }));
  const unicode = [{ id: 1, name: 'Zoë', city: '東京', mood: '🙂', quote: 'a "b" \\ c\n' }];
  // 2 KiB, 64 KiB, then 8 MiB of records (the module's memory grows), then
  // small again, and text beyond ASCII.
  const pages = [rows(2, 1000), rows(64, 1000), rows(1024, 8000), rows(3, 10), unicode];
  for (const [index, page] of pages.entries()) {
    const now = T0 + index * 15_000;
    const id = client.start({ operation: 'listTableRecords', path: { id: 'orders' }, params: { limit: page.length } });
    const [transmit] = client.pollTransmits(now);
    assert.equal(transmit.request.url, `http://127.0.0.1:8080/api/v1/tables/orders?limit=${page.length}`);
    const body = new TextEncoder().encode(JSON.stringify({ data: page }));
    client.handle(id, { status: 200, headers: rateHeaders, body }, now);
    assert.deepEqual(client.pollEvents(), [
      { id, event: { type: 'response', response: { type: 'records', status: 200, records: page } } },
      { id, event: { type: 'done' } },
    ]);
  }
  client.free();
});

test('a NUL inside a spec string cannot add fields: the spec is read member by member', () => {
  const urlOf = (spec) => {
    const client = new Client({ credentials, seed: 1 });
    client.start(spec);
    const [{ request }] = client.pollTransmits(T0);
    const { url } = request;
    client.free();
    return url;
  };
  // Written as one text, this value would carry a `limit` parameter of its own.
  const sneaky = { operation: 'listTableRecords', path: { id: 'orders\0rlimit\0' + '9' }, params: { limit: 2 } };
  assert.equal(urlOf(sneaky), 'http://127.0.0.1:8080/api/v1/tables/orders%00rlimit%009?limit=2');
  assert.equal(urlOf({ ...sneaky, path: [['id', 'orders\0rlimit\0' + '9']] }),
    'http://127.0.0.1:8080/api/v1/tables/orders%00rlimit%009?limit=2');
  assert.equal(urlOf({ operation: 'listTableRecords', path: { id: 'orders' }, params: { limit: 2 } }),
    'http://127.0.0.1:8080/api/v1/tables/orders?limit=2');
});
