// The requests `Client.pollTransmits()` hands out are the driver's: each is
// readable until its outcome is handed to `handle` or its call is
// cancelled (or until `free()` on it or on the client), and released then,
// so a drive loop that never calls `free()` leaks nothing. Reading one
// after that throws `AcdStateError` with code REQUEST_RELEASED.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AcdArgumentError, AcdStateError, Client, ClientRequest, Gate, initSync } from 'acd/gate';
import { gateTransport } from 'acd/testing';

const T0 = 1_700_000_000_000;
const SECRET = 'acd_live_demo_ada';
const credentials = [{ id: 'main', kind: 'apiKey', secret: SECRET, user: 'ada' }];
const URL_OF_READ = 'http://127.0.0.1:8080/api/v1/tables/orders?limit=2';
const page = { status: 200, headers: [['Content-Type', 'application/json']], body: '{"data":[{"id":1}]}' };

const isReleased = (error) => error instanceof AcdStateError && error.code === 'REQUEST_RELEASED'
  && /^this request was released: the driver releases a transmit's request when its outcome is handed to handle\(\)/
    .test(error.message);

/** A driver with one table read sent: `{client, id, request}`. */
function sentRead(Driver = Client) {
  const client = new Driver({ credentials, seed: 1 });
  const id = client.start({ operation: 'listTableRecords', path: { id: 'orders' }, params: { limit: 2 } });
  const [transmit] = client.pollTransmits(T0);
  assert.equal(transmit.id, id);
  return { client, id, request: transmit.request };
}

for (const [name, Driver, Request] of [['acd/gate', Client, ClientRequest]]) {
  test(`${name}: a transmit's request reads until its outcome is handled, then throws`, () => {
    const { client, id, request } = sentRead(Driver);
    assert.ok(request instanceof Request);
    assert.equal(request.method, 'GET');
    assert.equal(request.url, URL_OF_READ);
    assert.equal(request.header('x-api-key'), SECRET);
    assert.equal(request.attempts, 0);
    assert.equal(JSON.stringify(request).includes(SECRET), false, 'toJSON still redacts the credential');
    client.handle(id, page, T0);
    assert.throws(() => request.url, isReleased);
    assert.throws(() => request.header('x-api-key'), isReleased);
    assert.throws(() => request.toJSON(), isReleased);
    assert.throws(() => { request.attempts = 2; }, isReleased);
    request.free(); // a no-op once released
    request[Symbol.dispose]();
    assert.deepEqual(client.pollEvents().map(({ event }) => event.type), ['response', 'done']);
    client.free();
  });
}

test('free() releases a request early; handle still takes the outcome', () => {
  const { client, id, request } = sentRead();
  request.free();
  assert.throws(() => request.method, isReleased);
  client.handle(id, page, T0);
  assert.deepEqual(client.pollEvents().map(({ event }) => event.type), ['response', 'done']);
  client.free();
});

test('a handle that is refused keeps the request readable', () => {
  const { client, id, request } = sentRead();
  assert.throws(() => client.handle(id, { status: 1000, headers: [] }, T0), AcdArgumentError);
  assert.equal(request.url, URL_OF_READ);
  client.handle(id, page, T0);
  assert.throws(() => request.url, isReleased);
  client.free();
});

test('cancelling the call releases its request; its late outcome is still taken', () => {
  const { client, id, request } = sentRead();
  client.cancel(id);
  assert.throws(() => request.url, isReleased);
  client.handle(id, page, T0);
  assert.deepEqual(client.pollEvents(), [], 'nothing more is emitted for a cancelled call');
  client.free();
});

test('freeing the client releases every request it still holds', () => {
  const client = new Client({ credentials, seed: 1 });
  client.start({ operation: 'listTableRecords', path: { id: 'orders' } });
  client.start({ operation: 'getApiIndex' });
  const transmits = client.pollTransmits(T0);
  assert.equal(transmits.length, 2);
  assert.deepEqual(transmits.map(({ request }) => request.method), ['GET', 'GET']);
  client.free();
  for (const { request } of transmits) assert.throws(() => request.url, isReleased);
});

test('a retry hands out a new request; the first attempt\'s was released', () => {
  const client = new Client({ credentials, seed: 1, retry: { backoff: { baseMs: 1, capMs: 1 } } });
  const id = client.start({ operation: 'listTableRecords', path: { id: 'orders' } });
  const [first] = client.pollTransmits(T0);
  client.handle(id, { type: 'transport', failure: 'connect' }, T0);
  assert.throws(() => first.request.url, isReleased);
  const later = client.pollTimeout();
  assert.equal(typeof later, 'number');
  const [second] = client.pollTransmits(later);
  assert.equal(second.id, id);
  assert.equal(second.request.url, 'http://127.0.0.1:8080/api/v1/tables/orders');
  client.free();
});

test('a drive loop that never frees its requests does not grow the module\'s memory', () => {
  const { memory } = initSync();
  const client = new Client({ credentials, seed: 1, clientIpQuota: { requests: 1_000_000, windowMs: 60_000 } });
  let now = T0;
  const oneCall = () => {
    now += 15_000; // 4 table reads a minute: under every limit
    const id = client.start({ operation: 'listTableRecords', path: { id: 'orders' } });
    const [{ request }] = client.pollTransmits(now);
    assert.equal(request.method, 'GET');
    client.handle(id, page, now);
    client.pollEvents();
  };
  for (let i = 0; i < 2_000; i += 1) oneCall();
  const before = memory.buffer.byteLength;
  // A request of this read takes well over 200 bytes of the module's
  // memory: 50,000 leaked ones would grow it by megabytes.
  for (let i = 0; i < 50_000; i += 1) oneCall();
  assert.ok(memory.buffer.byteLength - before <= 65_536,
    `the module's memory grew from ${before} to ${memory.buffer.byteLength} bytes`);
  client.free();
});

test('gateTransport keeps readable copies of what it sent, with the headers unlisted', async () => {
  const gate = Gate.demo();
  const transport = gateTransport(gate, { clock: { now: () => T0 } });
  const { client, id, request } = sentRead();
  client.handle(id, await transport.send(request), T0);
  assert.throws(() => request.url, isReleased);
  const [sent] = transport.requests;
  assert.equal(sent.url, URL_OF_READ);
  assert.equal(sent.method, 'GET');
  assert.deepEqual(sent.headers.find(([header]) => header === 'X-API-Key'), ['X-API-Key', SECRET]);
  assert.equal(JSON.stringify(transport.requests).includes(SECRET), false);
  assert.deepEqual(transport.statuses, [200]);
  client.free();
  gate.free();
});
