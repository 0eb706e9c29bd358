// The "acd/client" entry: the client role alone in its own, size-first
// module (pkg/acd_client_bg.wasm). Its AcdClient drives that module's
// driver; here it runs against the real gate rules (a Gate of the full
// module behind gateTransport) in virtual time, and it must behave exactly
// as the "acd" entry's: the same rows, requests, statuses and waits, worked
// out by hand from the spec (5 table reads per 60 s per user).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as small from 'acd/client';
import * as full from 'acd';
import { VirtualClock, gateTransport } from 'acd/testing';

const T0 = 1_700_000_000_000;
const rows = Array.from({ length: 9 }, (_, i) => ({ id: i + 1 }));

function tables(admitted) {
  const { offset = 0, limit = 100 } = admitted.params;
  return admitted.respondFound(JSON.stringify(rows.slice(offset, offset + limit)));
}

async function readAll(entry) {
  const clock = new VirtualClock(T0);
  const transport = gateTransport(full.Gate.demo(), { clock, answer: tables });
  const waits = [];
  const api = new entry.AcdClient({
    baseUrl: 'http://127.0.0.1:8080', apiKey: 'acd_live_demo_ada', user: 'ada', clock, timers: clock,
    transport, entropy: new Uint8Array(32), onEvent: (event) => waits.push(event.type),
  });
  const got = [];
  await clock.run((async () => { for await (const row of api.tables.iter('orders', { pageSize: 1 })) got.push(row); })());
  api.close();
  return { got, statuses: transport.statuses, waits, elapsed: clock.now() - T0 };
}

test('acd/client reads a table through the easy path exactly as acd does', async () => {
  const viaSmall = await readAll(small);
  assert.deepEqual(viaSmall.got, rows);
  // 9 rows in pages of 1, then an empty page: 10 reads, all 200; reads 6
  // and up wait for the next window instead of drawing a 429.
  assert.deepEqual(viaSmall.statuses, Array(10).fill(200));
  assert.deepEqual(viaSmall.waits, ['waiting']);
  assert.deepEqual(viaSmall, await readAll(full));
});

test('acd/client carries the client role only', () => {
  for (const name of ['AcdClient', 'Client', 'ClientRequest', 'AcdError', 'AcdApiError', 'fetchTransport',
    'classifyFetchError', 'systemClock', 'systemTimers', 'randomEntropy', 'version', 'nowMs']) {
    assert.notEqual(small[name], undefined, name);
  }
  for (const name of ['Gate', 'Admitted', 'simulate', 'Throttle', 'RetryPlanner', 'interpretResponse']) {
    assert.equal(small[name], undefined, name);
    assert.notEqual(full[name], undefined, name);
  }
  // One set of error classes: both modules throw the same AcdError.
  assert.equal(small.AcdError, full.AcdError);
  assert.equal(small.version(), full.version());
});

test('the client module checks its arguments like the full one', () => {
  const client = new small.Client({}, new Uint8Array(32));
  assert.throws(() => client.pollTransmits(-1), (error) =>
    error instanceof full.AcdArgumentError && error.code === 'INVALID_ARGUMENT'
    && /nowMs must be a whole number of Unix milliseconds/.test(error.message));
  client.free();
});

test('acd/client builds the standard operations and getRun only; acd takes a caller-built catalogue', () => {
  const catalogue = full.standardCatalogue();
  assert.throws(() => new small.Client({ catalogue }, new Uint8Array(32)), (error) =>
    error instanceof full.AcdConfigError && error.code === 'INVALID_CONFIG'
    && /unknown field `catalogue`/.test(error.message));
  const client = new full.Client({ catalogue }, new Uint8Array(32));
  client.free();
});
