// The easy path (AcdClient over the fetch transport) against scripted raw
// TCP servers on loopback (issue 43, items 2 and 5): the body bound is on
// the decoded (decompressed) size, the core's default when the caller sets
// none, and a small gzip body inflating past it ends in the core's typed
// error having pulled little more than the bound from fetch's decoder; a
// 100 Continue or 103 Early Hints before the 200 is skipped; a response
// nobody asked for, left on a kept-alive connection, is never the answer to
// the next request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { gzipSync, deflateSync } from 'node:zlib';
import { AcdClient, AcdProtocolError, fetchTransport } from 'acd';

const SECRET = 'acd_live_demo_ada';
const MIB = 1024 * 1024;
// 256 MiB of zeros in about 250 KB of gzip.
const BOMB_SIZE = 256 * MIB;
const BOMB = gzipSync(Buffer.alloc(BOMB_SIZE), { level: 9 });

/**
 * A raw TCP server on a free loopback port: `answer(request, index)` gives
 * the bytes written for the index-th request (counted over all
 * connections), read as whole header blocks; `requests` lists them.
 */
async function scripted(answer) {
  const requests = [];
  const sockets = new Set();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    let pending = '';
    socket.on('data', (data) => {
      pending += data.toString('latin1');
      for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
        const request = pending.slice(0, end);
        pending = pending.slice(end + 4);
        requests.push(request);
        const reply = answer(request, requests.length - 1);
        if (!socket.destroyed) socket.write(reply);
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close() { for (const socket of sockets) socket.destroy(); server.close(); },
  };
}

/** A 200 with `body` and `extra` header lines. */
function ok(body, extra = '') {
  const bytes = Buffer.from(body);
  return Buffer.concat([
    Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\n${extra}\r\n`),
    bytes,
  ]);
}

/**
 * A 200 whose body is `body`, said to be in `encoding`; with `announce`
 * false it has no Content-Length (it ends when the connection closes), so
 * only the decoded size can refuse it.
 */
function encoded(encoding, body, announce = true) {
  const length = announce ? `Content-Length: ${body.length}` : 'Connection: close';
  return Buffer.concat([
    Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: ${encoding}\r\n`
      + `${length}\r\n\r\n`),
    body,
  ]);
}

/**
 * The global fetch, counting the decoded bytes the transport pulls from
 * each response's body (`counted.bytes`); the transport's `limits` are
 * recorded in `counted.limits`.
 */
function countingTransport(counted) {
  const inner = fetchTransport({
    async fetch(url, init) {
      const response = await fetch(url, init);
      if (!response.body) return response;
      const counter = new TransformStream({
        transform(chunk, controller) { counted.bytes += chunk.byteLength; controller.enqueue(chunk); },
      });
      return new Response(response.body.pipeThrough(counter), { status: response.status, headers: response.headers });
    },
  });
  return { send(request, signal, limits) { counted.limits.push(limits); return inner.send(request, signal, limits); } };
}

async function firstPage(api) {
  for await (const page of api.tables.pages('orders', { pageSize: 10 })) return page;
  return undefined;
}

test('the bomb is small and inflates past the default bound', () => {
  assert.ok(BOMB.length < 300 * 1024, `${BOMB.length}`);
});

for (const bound of ['the core default', 1000]) {
  test(`a gzip body inflating past ${bound === 1000 ? 'a bound of 1000 bytes' : 'the core default bound'} is BODY_TOO_LARGE, little more than the bound pulled`, async () => {
    const server = await scripted(() => encoded('gzip', BOMB, false));
    const counted = { bytes: 0, limits: [] };
    const config = { retry: { maxAttempts: 1 }, ...(bound === 1000 ? { maxBodyBytes: 1000 } : {}) };
    const api = new AcdClient({ baseUrl: server.url, apiKey: SECRET, config, transport: countingTransport(counted) });
    try {
      const error = await firstPage(api).then(() => null, (caught) => caught);
      const limit = counted.limits[0].maxBodyBytes; // the core's, when none was set
      if (bound === 1000) assert.equal(limit, 1000);
      assert.ok(limit < BOMB_SIZE / 4, `${limit}`);
      assert.ok(error instanceof AcdProtocolError, `${error}`);
      assert.equal(error.code, 'BODY_TOO_LARGE');
      assert.equal(error.category, 'protocol');
      assert.equal(error.status, 200);
      assert.ok(error.message.includes(`larger than the ${limit} bytes the client's max body size allows`), error.message);
      // fetch inflates in small pieces; the transport stops pulling once past the bound.
      assert.ok(counted.bytes > limit, `${counted.bytes}`);
      assert.ok(counted.bytes <= limit + MIB, `${counted.bytes} decoded bytes pulled against a bound of ${limit}`);
    } finally {
      api.close();
      server.close();
    }
  });
}

test('with no bound set, a gzip bomb is refused through the default fetch transport too', async () => {
  const server = await scripted(() => encoded('gzip', BOMB, false));
  const api = new AcdClient({ baseUrl: server.url, apiKey: SECRET, config: { retry: { maxAttempts: 1 } } });
  try {
    const error = await firstPage(api).then(() => null, (caught) => caught);
    assert.ok(error instanceof AcdProtocolError, `${error}`);
    assert.equal(error.code, 'BODY_TOO_LARGE');
  } finally {
    api.close();
    server.close();
  }
});

for (const [encoding, pack] of [['gzip', gzipSync], ['deflate', deflateSync]]) {
  test(`a ${encoding} page within the bound is decoded, the bound counting decoded bytes`, async () => {
    const records = Array.from({ length: 200 }, (_, id) => ({ id }));
    const page = Buffer.from(JSON.stringify({ data: records }));
    const body = pack(page);
    assert.ok(body.length < page.length / 2);
    const server = await scripted(() => encoded(encoding, body));
    const api = new AcdClient({
      baseUrl: server.url, apiKey: SECRET, config: { maxBodyBytes: page.length, retry: { maxAttempts: 1 } },
    });
    try {
      assert.deepEqual(await api.tables.read('orders'), records);
    } finally {
      api.close();
      server.close();
    }
  });
}

// undici (Node's fetch) destroys the connection on a 100 it did not ask for
// ('bad response'), so that case is a known failure of the fetch transport.
const UNDICI_100 = 'undici ends the exchange on an unsolicited 100 Continue (issue 43 item 5)';

for (const informational of ['100 Continue', '103 Early Hints']) {
  const options = informational.startsWith('100') ? { todo: UNDICI_100 } : {};
  test(`a ${informational} before the 200 is skipped and the 200 is the answer`, options, async () => {
    const hints = informational.startsWith('103') ? 'Link: </style.css>; rel=preload\r\n' : '';
    const server = await scripted(() => Buffer.concat([
      Buffer.from(`HTTP/1.1 ${informational}\r\n${hints}\r\n`),
      ok('{"data": [{"id": 1}]}'),
    ]));
    const api = new AcdClient({ baseUrl: server.url, apiKey: SECRET, config: { retry: { maxAttempts: 1 } } });
    try {
      assert.deepEqual(await api.tables.read('orders'), [{ id: 1 }]);
      assert.equal(server.requests.length, 1);
    } finally {
      api.close();
      server.close();
    }
  });
}

test('a response nobody asked for, left on a kept-alive connection, is never the next answer', async () => {
  const server = await scripted((request, index) => {
    const answer = ok(`{"data": [{"id": ${index + 1}}]}`);
    // After the first answer, an extra 200 on the same connection.
    return index === 0 ? Buffer.concat([answer, ok('{"data": [{"id": 666}]}')]) : answer;
  });
  const api = new AcdClient({ baseUrl: server.url, apiKey: SECRET });
  try {
    const first = await api.tables.read('orders');
    const second = await api.tables.read('orders');
    assert.deepEqual([first, second], [[{ id: 1 }], [{ id: 2 }]]);
    assert.equal(server.requests.length, 2);
  } finally {
    api.close();
    server.close();
  }
});
