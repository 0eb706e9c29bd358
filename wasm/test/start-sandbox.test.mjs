// startSandbox() from "acd-client/testing" (Node): the shipped acd-sandbox
// (ACD_SANDBOX_BIN, else on PATH) on a free loopback port with the manual
// clock and its admin routes, stopped by stop(). Needs the sandbox binary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { AcdClient } from 'acd-client';
import { startSandbox, sandboxBinary } from 'acd-client/testing';

const bin = process.env.ACD_SANDBOX_BIN;
const skip = bin && existsSync(bin) ? false : 'needs the acd-sandbox binary (ACD_SANDBOX_BIN)';
const orders = [{ id: 1, total: 5 }, { id: 2, total: 7 }];

test('startSandbox serves the given data on a free port with the manual clock', { skip }, async () => {
  const sandbox = await startSandbox({ config: { tables: [{ id: 'orders', owner: 'ada', records: orders }] } });
  try {
    assert.match(sandbox.url, /^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
    const api = new AcdClient({ baseUrl: sandbox.url, apiKey: sandbox.apiKey });
    const rows = [];
    for await (const row of api.tables.iter('orders')) rows.push(row);
    assert.deepEqual(rows, orders);
    const before = (await (await fetch(`${sandbox.url}/_sandbox/clock`)).json()).now_ms;
    assert.equal(await sandbox.advance(60_000), before + 60_000);
    const seen = await sandbox.requests('/api/v1/tables/*');
    assert.ok(seen.length >= 1 && seen.every((request) => request.path === '/api/v1/tables/orders'));
    assert.deepEqual(await sandbox.reset(), { cleared: ['rate_limits', 'runs'] });
  } finally {
    await sandbox.stop();
  }
  await assert.rejects(fetch(`${sandbox.url}/_sandbox/clock`), 'stopped: nothing listens');
});

test('without a binary the error says where it is looked for', () => {
  const saved = { bin: process.env.ACD_SANDBOX_BIN, path: process.env.PATH };
  delete process.env.ACD_SANDBOX_BIN;
  process.env.PATH = '/nonexistent';
  try {
    assert.throws(() => sandboxBinary(), /put it on PATH or name it in ACD_SANDBOX_BIN/);
  } finally {
    if (saved.bin !== undefined) process.env.ACD_SANDBOX_BIN = saved.bin;
    process.env.PATH = saved.path;
  }
});
