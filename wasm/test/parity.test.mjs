// The parity steps of docs/sdk.md against a real acd-sandbox (the same
// steps as the Python and Kotlin parity tests): every row of the table, a
// 429 waited out (with its event and log line checked), a deprecation
// notice, a run created and waited for. Needs the sandbox binary
// (target/release/acd-sandbox, or $ACD_SANDBOX_BIN); skipped, saying why,
// without it. Expected values are written by hand from the configuration.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sandboxBin as bin, startSandboxWith as startSandbox } from '../browser/sandbox.mjs';
import { existsSync } from 'node:fs';
import {
  AcdClient, AcdConfigError, BadRequestError, NotFoundError, TimeoutError,
} from 'acd-client';

const skip = existsSync(bin) ? false : `missing the sandbox binary ${bin}`;
const KEY = 'acd_live_demo_ada';
const orders = Array.from({ length: 7 }, (_, i) => ({ id: i + 1, sku: `sku-${i + 1}` }));
const contacts = Array.from({ length: 5 }, (_, i) => ({ id: i + 1, email: `c${i + 1}@example.com` }));
// Deprecated since 2024-01-01T00:00:00Z, sunset 2030-01-01T00:00:00Z.
const DEPRECATED_AT = 1_704_067_200;
const SUNSET_AT = 1_893_456_000;

const dataset = {
  tables: [{ id: 'orders', owner: 'ada', records: orders }],
  connections: [{ id: 'crm', owner: 'ada', entities: { contacts } }],
  runs: { lifecycle: [{ status: 'queued', duration_ms: 150 }, { status: 'running', duration_ms: 150 }, { status: 'succeeded' }] },
};

let sandbox;
before(async () => {
  if (skip) return;
  sandbox = await startSandbox({
    ...dataset,
    extra_limits: { user_table_reads: { requests: 1000, window_ms: 60_000 } },
    version_deprecation: { deprecated_at: DEPRECATED_AT, sunset_at: SUNSET_AT },
  }, ['--faults']);
});
after(() => sandbox?.stop());

async function collect(iterable) {
  const out = [];
  for await (const item of iterable) out.push(item);
  return out;
}

test('index, tables, connections, request and limits', { skip }, async () => {
  // The sandbox's table-read limit is raised past the client's model of
  // it (5 per 60 s): the client sends without waiting ahead.
  const api = new AcdClient({ baseUrl: sandbox.url, apiKey: KEY, config: { proactiveThrottle: false } });
  try {
    const index = await api.index();
    assert.equal(index.version, 'v1');
    assert.equal(typeof index.rate_limits.requests, 'number');
    assert.deepEqual(await api.tables.read('orders', { pageSize: 3, offset: 2 }), orders.slice(2, 5));
    assert.deepEqual(await collect(api.tables.iter('orders', { pageSize: 3 })), orders);
    const pages = await collect(api.tables.pages('orders', { pageSize: 3 }));
    assert.deepEqual(pages.map((p) => p.records.length), [3, 3, 1]);
    assert.deepEqual(pages.map((p) => p.last), [false, false, true]);
    assert.deepEqual(await api.connections.read('crm', 'contacts', { pageSize: 2 }), contacts.slice(0, 2));
    assert.deepEqual(await collect(api.connections.iter('crm', 'contacts', { pageSize: 2 })), contacts);
    assert.deepEqual((await collect(api.connections.pages('crm', 'contacts', { pageSize: 4 }))).map((p) => p.records.length), [4, 1]);
    const raw = await api.request('listTableRecords', { path: { id: 'orders' }, query: { limit: '2' } });
    assert.deepEqual(raw, orders.slice(0, 2));
    const limits = api.limits();
    assert.ok(limits.some((limit) => limit.name === 'user_table_reads'), JSON.stringify(limits));
    await assert.rejects(api.tables.read('missing'), NotFoundError);
  } finally {
    api.close();
  }
});

test('per-call options: headers reach the server, timeoutMs bounds the call, a signal cancels it', { skip }, async () => {
  const api = new AcdClient({ baseUrl: sandbox.url, apiKey: KEY });
  try {
    await assert.rejects(api.tables.read('orders', { headers: { Prefer: 'code=400' } }), (error) => {
      assert.ok(error instanceof BadRequestError, `${error}`);
      assert.equal(error.status, 400);
      return true;
    });
    await assert.rejects(api.tables.read('orders', { headers: { Prefer: 'latency=2000' }, timeoutMs: 300 }), TimeoutError);
    const reason = new Error('stop');
    const controller = new AbortController();
    setTimeout(() => controller.abort(reason), 100);
    await assert.rejects(api.tables.read('orders', { headers: { Prefer: 'latency=2000' }, signal: controller.signal }),
      (error) => error === reason);
  } finally {
    api.close();
  }
});

test('a run is created, read and waited for', { skip }, async () => {
  const api = new AcdClient({ baseUrl: sandbox.url, apiKey: KEY });
  try {
    const run = await api.runs.create('agent-1', { input: { question: 'status?' } });
    assert.equal(run.agent_id, 'agent-1');
    assert.equal(run.status, 'queued');
    assert.equal((await api.runs.get(run.id)).id, run.id);
    const statuses = [];
    const done = await api.runs.wait(run.id, { intervalMs: 100, onStatus: (status) => statuses.push(status) });
    assert.equal(done.status, 'succeeded');
    assert.equal(statuses.at(-1), 'succeeded');
  } finally {
    api.close();
  }
});

test('a deprecation notice reaches onEvent and the logger, once per operation', { skip }, async () => {
  const events = [];
  const lines = [];
  const api = new AcdClient({
    baseUrl: sandbox.url, apiKey: KEY, onEvent: (event) => events.push(event), logger: { info: (l) => lines.push(l), warn: (l) => lines.push(l) },
  });
  try {
    await api.index();
    await api.index();
    const notices = events.filter((event) => event.type === 'deprecation');
    assert.equal(notices.length, 1, JSON.stringify(events));
    assert.equal(typeof notices[0].message, 'string');
    assert.ok(lines.includes(notices[0].message));
  } finally {
    api.close();
  }
});

test('a 429 is waited out: the waiting event and its log line, then the rows', { skip }, async () => {
  const limited = await startSandbox({ ...dataset, extra_limits: { user_table_reads: { requests: 2, window_ms: 2000 } } });
  const first = new AcdClient({ baseUrl: limited.url, apiKey: KEY });
  const events = [];
  const lines = [];
  const second = new AcdClient({ baseUrl: limited.url, apiKey: KEY, onEvent: (event) => events.push(event), logger: (line) => lines.push(line) });
  try {
    // The first client spends the window's two reads; the second does not
    // know, draws the server's 429 and waits for its Retry-After.
    await first.tables.read('orders', { pageSize: 1 });
    await first.tables.read('orders', { pageSize: 1 });
    const started = Date.now();
    assert.deepEqual(await second.tables.read('orders', { pageSize: 2 }), orders.slice(0, 2));
    const waits = events.filter((event) => event.type === 'waiting' || event.type === 'retrying');
    assert.ok(waits.length >= 1, JSON.stringify(events));
    assert.ok(lines.length >= 1 && lines.every((line) => typeof line === 'string' && line.length > 0));
    assert.ok(Date.now() - started <= 5000);
  } finally {
    first.close();
    second.close();
    limited.stop();
  }
});

test('ACD_API_KEY and ACD_BASE_URL are read when nothing is passed; a closed client refuses at once', { skip }, async () => {
  const saved = [process.env.ACD_API_KEY, process.env.ACD_BASE_URL];
  process.env.ACD_API_KEY = KEY;
  process.env.ACD_BASE_URL = sandbox.url;
  try {
    const api = new AcdClient();
    assert.equal((await api.tables.read('orders', { pageSize: 1 }))[0].id, 1);
    api.close();
    await assert.rejects(api.index(), AcdConfigError);
  } finally {
    if (saved[0] === undefined) delete process.env.ACD_API_KEY; else process.env.ACD_API_KEY = saved[0];
    if (saved[1] === undefined) delete process.env.ACD_BASE_URL; else process.env.ACD_BASE_URL = saved[1];
  }
});
