// The SDK conformance kit (tests/vectors/sdk-scenarios.json) through
// AcdClient in Node, in virtual time over the package's fetchTransport and a
// scripted fetch (wasm/test/sdk-kit.mjs). A scenario listed in the kit's
// known_failures.js is reported as a todo naming its issue item, and fails
// once it passes (so the entry is removed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { AcdClient, fetchTransport } from 'acd-client';
import { VirtualClock } from 'acd-client/testing';
import { VECTORS_DIR } from './vectors.mjs';
import { knownFailure, problems, replay, scriptedFetch } from './sdk-kit.mjs';

const kit = JSON.parse(readFileSync(new URL('sdk-scenarios.json', VECTORS_DIR), 'utf8'));

for (const scenario of kit.scenarios) {
  const issue = knownFailure(kit, 'js', scenario.name);
  test(scenario.name, async (t) => {
    const found = problems(kit, scenario, await replay({ AcdClient, fetchTransport, VirtualClock }, kit, scenario));
    if (issue !== undefined) {
      assert.ok(found.length > 0, `passes, but is listed in known_failures.js: remove the entry (${issue})`);
      t.todo(`${issue}: ${found.join('; ')}`);
      return;
    }
    assert.deepEqual(found, []);
  });
}

test('the scripted fetch refuses, as undici does, with ECONNREFUSED in the cause', async () => {
  const clock = new VirtualClock(0);
  const { fetch, sent } = scriptedFetch({ server: { 'GET /x': [{ fail: 'refuse' }] } }, 'http://h', clock);
  await assert.rejects(fetch('http://h/x', { method: 'GET', headers: [] }),
    (error) => error instanceof TypeError && error.cause.code === 'ECONNREFUSED');
  assert.equal(sent.length, 1);
});
