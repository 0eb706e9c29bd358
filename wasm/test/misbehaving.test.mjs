// The easy path (AcdClient over the fetch transport) against misbehaving
// servers on loopback: a redirect to another address is never followed (the
// second server never sees a request, so never a credential), a body that
// trickles in ends with the timeout, and a body above maxBodyBytes ends the
// call with a typed error without being read. A wait longer than a host
// timer can hold is slept in pieces, never handed whole to setTimeout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { AcdApiError, AcdClient, AcdProtocolError, ConnectionError, AcdTransportError, fetchTransport } from 'acd-client';

const SECRET = 'acd_live_demo_ada';

/** A server on a free loopback port; `onRequest(req, res)` decides; `seen` lists requests. */
async function serve(onRequest) {
  const seen = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url, headers: req.headers });
    res.on('error', () => {});
    onRequest(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => { server.closeAllConnections(); server.close(); },
  };
}

async function firstPage(api) {
  for await (const page of api.tables.pages('orders', { pageSize: 10 })) return page;
  return undefined;
}

test('a 302 is not followed: the call fails naming 302 and the Location, the second server sees nothing', async () => {
  const second = await serve((req, res) => { res.writeHead(200); res.end('{"data":[]}'); });
  const target = `${second.url}/api/v1/tables/orders?api_key=${SECRET}`;
  const first = await serve((req, res) => { res.writeHead(302, { location: target }); res.end(); });
  const api = new AcdClient({ baseUrl: first.url, apiKey: SECRET });
  try {
    const error = await firstPage(api).then(() => null, (caught) => caught);
    assert.ok(error instanceof AcdApiError, `${error}`);
    assert.equal(error.code, 'REDIRECT');
    assert.equal(error.status, 302);
    assert.ok(error.message.includes(`302 (a redirect to ${second.url}/api/v1/tables/orders)`), error.message);
    assert.ok(!error.message.includes(SECRET) && !error.message.includes('api_key'), error.message);
    assert.equal(first.seen.length, 1);
    assert.deepEqual(second.seen, []);
  } finally {
    api.close();
    first.close();
    second.close();
  }
});

test('a body trickling one byte every 250 ms fails with the 1 s timeout, after one attempt', async () => {
  const server = await serve((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '60' });
    let sent = 0;
    const drip = setInterval(() => {
      if (sent === 60 || res.destroyed) { clearInterval(drip); res.end(); return; }
      res.write(' ');
      sent += 1;
    }, 250);
    res.on('close', () => clearInterval(drip));
  });
  const api = new AcdClient({
    baseUrl: server.url, apiKey: SECRET, config: { retry: { maxAttempts: 1 } },
    transport: fetchTransport({ timeoutMs: 1000 }),
  });
  try {
    const started = Date.now();
    const error = await firstPage(api).then(() => null, (caught) => caught);
    const elapsed = Date.now() - started;
    assert.ok(error instanceof AcdTransportError, `${error}`);
    assert.equal(error.category, 'timeout', JSON.stringify(error.data));
    assert.equal(server.seen.length, 1);
    assert.ok(elapsed < 4000, `the 1 s timeout took ${elapsed} ms`);
  } finally {
    api.close();
    server.close();
  }
});

/** A 200 of 64 MiB written in 64 KiB pieces as the client reads; counts what went out. */
function huge(sent, announce) {
  const piece = Buffer.alloc(65536, 0x20);
  return (req, res) => {
    res.writeHead(200, announce
      ? { 'content-type': 'application/json', 'content-length': String(1024 * piece.length) }
      : { 'content-type': 'application/json' });
    let left = 1024;
    const write = () => {
      while (left > 0 && !res.destroyed) {
        left -= 1;
        sent.bytes += piece.length;
        if (!res.write(piece)) { res.once('drain', write); return; }
      }
      if (!res.destroyed) res.end();
    };
    write();
  };
}

for (const announce of [false, true]) {
  test(`a body above maxBodyBytes is a typed error and is not read (Content-Length ${announce ? 'sent' : 'absent'})`, async () => {
    const sent = { bytes: 0 };
    const server = await serve(huge(sent, announce));
    const api = new AcdClient({
      baseUrl: server.url, apiKey: SECRET, config: { maxBodyBytes: 1000, retry: { maxAttempts: 1 } },
    });
    try {
      const error = await firstPage(api).then(() => null, (caught) => caught);
      assert.ok(error instanceof AcdProtocolError, `${error}`);
      assert.equal(error.code, 'BODY_TOO_LARGE');
      assert.equal(error.status, 200);
      assert.ok(error.message.includes("larger than the 1000 bytes the client's max body size allows"), error.message);
      await new Promise((resolve) => { setTimeout(resolve, 300); });
      assert.ok(sent.bytes < 16 * 1024 * 1024, `the server wrote ${sent.bytes} bytes`);
    } finally {
      api.close();
      server.close();
    }
  });
}

test('a wait beyond 2^31 - 1 ms is slept in pieces a timer can hold, one wakeup each', async () => {
  const MAX = 2 ** 31 - 1;
  const interval = 5_000_000_000;
  let now = 1_700_000_000_000;
  const delays = [];
  let pending = null;
  const timers = {
    setTimeout(callback, ms) { delays.push(ms); pending = { callback, ms }; return delays.length; },
    clearTimeout() { pending = null; },
  };
  let polls = 0;
  const transport = {
    async send() {
      polls += 1;
      const status = polls === 1 ? 'running' : 'succeeded';
      const body = new TextEncoder().encode(JSON.stringify({ data: { id: 'r1', status } }));
      return { status: 200, headers: [['content-type', 'application/json']], body };
    },
  };
  const api = new AcdClient({
    baseUrl: 'http://127.0.0.1:9', apiKey: SECRET, clock: { now: () => now }, timers, transport,
  });
  let run;
  const waiting = api.runs.wait('r1', { intervalMs: interval, jitterPerMille: 0, timeoutMs: 4 * interval })
    .then((value) => { run = value; });
  for (let turn = 0; turn < 20 && run === undefined; turn += 1) {
    await new Promise((resolve) => { setImmediate(resolve); });
    if (pending !== null && run === undefined) {
      const { callback, ms } = pending;
      pending = null;
      now += ms;
      callback();
    }
  }
  await waiting;
  api.close();
  assert.equal(run.status, 'succeeded');
  assert.equal(polls, 2);
  assert.ok(delays.every((ms) => ms <= MAX), `${delays}`);
  // 5e9 ms = 2 full pieces and 705,032,706 ms more: three wakeups.
  assert.deepEqual(delays.filter((ms) => ms > 0), [MAX, MAX, interval - 2 * MAX]);
});

test('with no maxBodyBytes set, a never-ending body stops at the core default bound with a typed error', async () => {
  const sent = { bytes: 0 };
  const piece = Buffer.alloc(65536, 0x20);
  const server = await serve((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }); // chunked, never ends
    const write = () => {
      while (!res.destroyed) {
        sent.bytes += piece.length;
        if (!res.write(piece)) { res.once('drain', write); return; }
      }
    };
    write();
  });
  const api = new AcdClient({ baseUrl: server.url, apiKey: SECRET, config: { retry: { maxAttempts: 1 } } });
  try {
    const error = await firstPage(api).then(() => null, (caught) => caught);
    assert.ok(error instanceof AcdProtocolError, `${error}`);
    assert.equal(error.code, 'BODY_TOO_LARGE');
    assert.ok(error.message.includes("the client's max body size allows"), error.message);
  } finally {
    api.close();
    server.close();
  }
});

test('a refused connection names the origin and the reason, and a never-sent POST is retried', async () => {
  const probe = await serve(() => {});
  const { url } = probe;
  probe.close();
  await new Promise((resolve) => { setTimeout(resolve, 10); });
  const api = new AcdClient({
    baseUrl: url, apiKey: SECRET, config: { retry: { maxAttempts: 2, backoff: { baseMs: 1, capMs: 2 } } },
  });
  try {
    const error = await api.runs.create('agent-1', { input: { x: 1 } }).then(() => null, (caught) => caught);
    assert.ok(error instanceof ConnectionError, `${error}`);
    assert.ok(error.message.includes('gave up after 2 attempt(s)'), error.message);
    assert.ok(error.message.includes(`the request to ${url} failed in transport: could not connect (connection refused)`),
      error.message);
  } finally {
    api.close();
  }
});
