// The package's entries: "acd-client" (and its alias "acd-client/client") carries the
// SDK's client over the client-only module, which stays within 300 KiB;
// the gate and the simulation come only from "acd-client/gate" (and "acd-client/testing"),
// which load the full module. Both share one set of error classes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import * as main from 'acd-client';
import * as alias from 'acd-client/client';
import * as gate from 'acd-client/gate';
import * as testing from 'acd-client/testing';

const pkg = (name) => new URL(`../pkg/${name}`, import.meta.url);

test('the default entry carries the client, not the gate or the simulation', () => {
  for (const name of ['AcdClient', 'AcdError', 'NotFoundError', 'RateLimitError', 'fetchTransport',
    'classifyFetchError', 'systemClock', 'systemTimers', 'version']) {
    assert.notEqual(main[name], undefined, name);
  }
  for (const name of ['Gate', 'Admitted', 'GateResponse', 'simulate', 'Driver']) {
    assert.equal(main[name], undefined, name);
    assert.notEqual(gate[name], undefined, name);
  }
  // The low-level blocks left the public surface: the driver protocol is the one way in.
  for (const name of ['Client', 'ClientRequest', 'Throttle', 'RetryPlanner', 'interpretResponse', 'GateCore', 'simulateJson']) {
    assert.equal(main[name], undefined, name);
    assert.equal(gate[name], undefined, name);
  }
  assert.equal(alias.AcdClient, main.AcdClient);
  assert.equal(typeof testing.VirtualClock, 'function');
  assert.equal(main.AcdError, gate.AcdError, 'one set of error classes');
  assert.equal(main.version(), gate.version());
});

test('the default entry loads the client-only module; the full one only behind acd-client/gate and acd-client/testing', () => {
  const read = (name) => readFileSync(new URL(`../js/${name}`, import.meta.url), 'utf8');
  assert.match(read('node.js'), /pkg\/acd_client_bg\.wasm/);
  assert.match(read('index.js'), /pkg\/acd_client\.js/);
  for (const name of ['node.js', 'index.js', 'easy.js', 'engine.js', 'errors.js', 'transport.js', 'json.js']) {
    assert.doesNotMatch(read(name), /acd_wasm/, name);
  }
  assert.match(read('gate-node.js'), /pkg\/acd_wasm_bg\.wasm/);
  // The size goal (300 KiB) is measured and printed by scripts/test-wasm.
  assert.ok(statSync(pkg('acd_client_bg.wasm')).size < statSync(pkg('acd_wasm_bg.wasm')).size / 3);
});
