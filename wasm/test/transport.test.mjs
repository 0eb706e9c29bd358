// The fetch transport against real sockets on loopback: a success, and each
// transport-failure kind (connect refused, timeout, failed after sending,
// aborted by the caller). The timeout timer is injected and fired by hand
// once the server holds the request, so no test waits on the wall clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { fetchTransport, classifyFetchError } from '../js/transport.js';

/** A server on a free loopback port; `onRequest(req, res)` decides. */
async function serve(onRequest) {
  const server = createServer(onRequest);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/api/v1/tables/orders`,
    close: () => { server.closeAllConnections(); server.close(); },
  };
}

/** Timers whose callbacks run only when `fire()` is called. */
function manualTimers() {
  const pending = new Map();
  let next = 1;
  return {
    setTimeout(callback, ms) { pending.set(next, { callback, ms }); next += 1; return next - 1; },
    clearTimeout(handle) { pending.delete(handle); },
    fire() { for (const [handle, { callback }] of pending) { pending.delete(handle); callback(); } },
    get delays() { return [...pending.values()].map(({ ms }) => ms); },
  };
}

const request = (url) => ({ method: 'GET', url, headers: [['accept', 'application/json']] });

test('a response becomes {status, headers, body} with the bytes as sent', async () => {
  const server = await serve((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'ratelimit-remaining': '4' });
    res.end('{"data":[{"id":1}]}');
  });
  try {
    const outcome = await fetchTransport().send(request(server.url));
    assert.equal(outcome.status, 200);
    assert.deepEqual(outcome.headers.find(([name]) => name === 'ratelimit-remaining'), ['ratelimit-remaining', '4']);
    assert.equal(new TextDecoder().decode(outcome.body), '{"data":[{"id":1}]}');
  } finally { server.close(); }
});

test('a refused connection is "refused": nothing was sent', async () => {
  const server = await serve(() => {});
  const { url } = server;
  server.close();
  await new Promise((resolve) => { setTimeout(resolve, 10); });
  const outcome = await fetchTransport().send(request(url));
  assert.deepEqual(outcome, { type: 'transport', failure: 'refused' });
});

test("a port on fetch's bad-port list is \"blocked\": fetch sent nothing", async () => {
  const outcome = await fetchTransport().send(request('http://127.0.0.1:9/api/v1/tables/orders'));
  assert.deepEqual(outcome, { type: 'transport', failure: 'blocked' });
});

test("a fetch failing with AbortSignal.timeout's TimeoutError is \"timeout\", not \"interrupted\"", async () => {
  const timedOut = () => Promise.reject(new DOMException('The operation timed out.', 'TimeoutError'));
  const outcome = await fetchTransport({ fetch: timedOut }).send(request('http://127.0.0.1:1/x'));
  assert.deepEqual(outcome, { type: 'transport', failure: 'timeout' });
});

test('no answer before the (injected) timer fires is "timeout", not "connect"', async () => {
  const timers = manualTimers();
  let received;
  const arrived = new Promise((resolve) => { received = resolve; });
  const server = await serve(() => received()); // holds the request, never answers
  try {
    const pending = fetchTransport({ timers, timeoutMs: 1234 }).send(request(server.url));
    await arrived;
    assert.deepEqual(timers.delays, [1234]);
    timers.fire();
    assert.deepEqual(await pending, { type: 'transport', failure: 'timeout' });
  } finally { server.close(); }
});

test('a connection dropped after the request arrived is "interrupted" (or "reset"): maybe processed', async () => {
  const server = await serve((req) => { req.socket.destroy(); });
  try {
    const outcome = await fetchTransport().send(request(server.url));
    assert.equal(outcome.type, 'transport');
    assert.ok(['interrupted', 'reset'].includes(outcome.failure), outcome.failure);
  } finally { server.close(); }
});

test("the caller's AbortSignal rejects with its reason; it is not a transport outcome", async () => {
  let received;
  const arrived = new Promise((resolve) => { received = resolve; });
  const server = await serve(() => received());
  try {
    const controller = new AbortController();
    const pending = fetchTransport().send(request(server.url), controller.signal);
    await arrived;
    const reason = new Error('user left the page');
    controller.abort(reason);
    await assert.rejects(pending, (error) => error === reason);
    const already = AbortSignal.abort(reason);
    await assert.rejects(fetchTransport().send(request(server.url), already), (error) => error === reason);
  } finally { server.close(); }
});

test('classifyFetchError names the fact each error proves', () => {
  const failed = (cause) => Object.assign(new TypeError('fetch failed'), { cause });
  assert.equal(classifyFetchError(failed({ code: 'ECONNREFUSED' })), 'refused');
  assert.equal(classifyFetchError(failed({ code: 'ENOTFOUND' })), 'dns');
  assert.equal(classifyFetchError(failed({ code: 'UND_ERR_CONNECT_TIMEOUT' })), 'connect_timeout');
  assert.equal(classifyFetchError(failed({ code: 'EHOSTUNREACH' })), 'connect');
  assert.equal(classifyFetchError(failed({ code: 'ECONNRESET' })), 'reset');
  assert.equal(classifyFetchError(failed({ code: 'UND_ERR_SOCKET' })), 'interrupted');
  assert.equal(classifyFetchError(failed({ code: 'HPE_INVALID_CONSTANT' })), 'protocol');
  assert.equal(classifyFetchError(failed(new Error('bad port'))), 'blocked');
  assert.equal(classifyFetchError(new DOMException('timed out', 'TimeoutError')), 'timeout');
  // A browser says only this, for a network error and a CORS refusal alike.
  assert.equal(classifyFetchError(new TypeError('Failed to fetch')), 'unknown');
  const nested = { cause: { errors: [{ code: 'ECONNREFUSED' }] } };
  assert.equal(classifyFetchError(nested), 'refused');
});
