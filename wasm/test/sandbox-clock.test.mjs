// SandboxClock against a real acd-sandbox on its manual clock: the client
// pages 23 rows past the 5-per-60 s table-read window with no 429, and the
// waits move the sandbox's clock instead of passing real time. Needs the
// sandbox binary (target/release/acd-sandbox, or $ACD_SANDBOX_BIN).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { sandboxBin as bin, startSandboxWith } from '../browser/sandbox.mjs';
import { AcdClient, fetchTransport } from 'acd-client';
import { SandboxClock } from 'acd-client/testing';

const skip = existsSync(bin) ? false : `missing the sandbox binary ${bin}`;
const rows = Array.from({ length: 23 }, (_, i) => ({ id: i + 1 }));
const start = (args) => startSandboxWith({ tables: [{ id: 'orders', owner: 'ada', records: rows }] }, args);

test('a client pages past the window in the sandbox\'s time', { skip }, async () => {
  const sandbox = await start(['--clock', 'manual']);
  try {
    const clock = await SandboxClock.connect(sandbox.url);
    const start0 = clock.now();
    const inner = fetchTransport({ timeoutMs: 10_000 });
    const statuses = [];
    const transport = {
      async send(request, signal, limits) {
        const response = await inner.send(request, signal, limits);
        statuses.push(response.status);
        return response;
      },
    };
    const api = new AcdClient({ baseUrl: sandbox.url, apiKey: 'acd_live_demo_ada', clock, timers: clock, transport });
    const started = performance.now();
    const got = [];
    for await (const row of api.tables.iter('orders', { pageSize: 2 })) got.push(row);
    const realMs = performance.now() - started;
    assert.deepEqual(got, rows);
    // 12 reads at 5 per 60 s: waits for two new windows, never a 429.
    assert.deepEqual(statuses, Array(12).fill(200));
    assert.ok(clock.sleeps.length >= 2, `${clock.sleeps}`);
    assert.equal(await clock.sync(), clock.now());
    assert.ok(clock.now() - start0 >= 60_000, `${clock.now() - start0}`);
    assert.equal(clock.lastError, null);
    // Waiting for real would take two minutes.
    assert.ok(realMs < 30_000, `${realMs} ms`);
  } finally {
    sandbox.stop();
  }
});

test('the clock moves only when told, and a system clock is named', { skip }, async () => {
  const manual = await start(['--clock', 'manual']);
  try {
    const clock = await SandboxClock.connect(manual.url);
    const now = clock.now();
    assert.equal(await clock.advance(1_500), now + 1_500);
    assert.equal(await clock.set(1_700_000_000_000), 1_700_000_000_000);
    await new Promise((resolve) => { clock.setTimeout(resolve, 250); });
    assert.equal(clock.now(), 1_700_000_000_250);
    assert.equal(await clock.sync(), 1_700_000_000_250);
    const cancelled = clock.setTimeout(() => assert.fail('a cleared timer fired'), 10);
    clock.clearTimeout(cancelled);
    await new Promise((resolve) => { setTimeout(resolve, 20); });
    assert.equal(await clock.sync(), 1_700_000_000_250);
  } finally {
    manual.stop();
  }
  const system = await start(['--admin']);
  try {
    await assert.rejects(SandboxClock.connect(system.url), /--clock manual/);
  } finally {
    system.stop();
  }
});

test('7 concurrent reads at 5 per 60 s take one extra window, not two, and the guard timers do not move the clock', { skip }, async () => {
  const sandbox = await start(['--clock', 'manual']);
  try {
    const clock = await SandboxClock.connect(sandbox.url);
    // 1 s before a boundary of the sandbox's aligned 60 s windows.
    const start0 = await clock.set(1_700_000_039_000);
    const warnings = [];
    const logger = { warn: (line) => warnings.push(line), info: () => {}, debug: () => {} };
    const api = new AcdClient({ baseUrl: sandbox.url, apiKey: 'acd_live_demo_ada', clock, timers: clock, logger });
    const pages = await Promise.all(Array.from({ length: 7 }, () => api.tables.read('orders', { pageSize: 2 })));
    assert.deepEqual(pages, Array(7).fill(rows.slice(0, 2)));
    const elapsed = (await clock.sync()) - start0;
    // 5 go at once; 2 once the window has ended (1 s), plus at most 1 s of jitter.
    assert.ok(elapsed >= 1_000 && elapsed <= 2_500, `${elapsed} ms`);
    assert.deepEqual(warnings, [], 'no wait of 10 s or more was said');
    api.close();
  } finally {
    sandbox.stop();
  }
});
