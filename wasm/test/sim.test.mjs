// The simulation from JavaScript: client instances against a real gate in
// virtual time (acd-core's sim), configured in camelCase, with the report's
// figures and trace asserted here. Figures worked out by hand: 550 rows in
// pages of 100 is 6 reads; table reads are limited to 5 per 60 s per user,
// so the 6th read waits for the next window instead of meeting a 429. The
// windows are fixed and aligned to the epoch; the simulation starts at
// 1_700_000_000_000, 20 s into one, so the 6th read goes out after 40 s.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AcdConfigError, simulate } from 'acd-client/gate';

const reader = (name, tasks) => ({
  name,
  config: { credentials: [{ id: 'main', kind: 'apiKey', secret: 'acd_live_demo_ada', user: 'ada' }] },
  tasks,
});
const orders = Array.from({ length: 550 }, (_, i) => ({ id: i + 1, name: `row-${i + 1}` }));

test('a table pager in virtual time: 6 reads, no 429, the 6th waits for the window', () => {
  const report = simulate({
    seed: 3,
    dataset: { tables: { orders }, connections: {}, runs: {} },
    clients: [reader('reader', [{ type: 'table', table: 'orders', options: { pageSize: 100 } }])],
  });
  assert.equal(report.completed, true);
  assert.deepEqual(report.violations, []);
  assert.equal(report.requestsSent, 6);
  assert.equal(report.responses429, 0);
  assert.ok(report.elapsedMs >= 40_000 && report.elapsedMs < 41_000, `elapsed ${report.elapsedMs}`);
  assert.equal(report.clients[0].name, 'reader');
  assert.equal(report.clients[0].jobsDone, 1);
  assert.ok(report.trace.length >= 12, 'every send and response is traced');
  assert.deepEqual(simulate({
    seed: 3,
    dataset: { tables: { orders }, connections: {}, runs: {} },
    clients: [reader('reader', [{ type: 'table', table: 'orders', options: { pageSize: 100 } }])],
  }).trace, report.trace, 'the same seed gives the same trace');
});

test('a refused simulation configuration is an AcdConfigError naming the member', () => {
  assert.throws(() => simulate({ seed: 1, noSuchMember: true }), (error) => {
    assert.ok(error instanceof AcdConfigError);
    assert.match(error.message, /no_such_member/);
    return true;
  });
});
