// Replays tests/vectors/client-driver.json through the wasm Driver of the
// module the default entry loads (pkg/acd_client_bg.wasm), byte for byte as
// tests/tests/client_driver_vectors.rs does in Rust: config and call specs
// in as JSON bytes, answers as status, header block and body bytes, each
// poll's batch out as JSON text compared (after writing call ids as their
// aliases and credential values as "<redacted>") with the hand-written one.
// Events are decoded strictly: every type must be one of the protocol's.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Driver, initSync } from '../pkg/acd_client.js';
import { errorFromCore } from 'acd-client';
import { vectorFiles } from './vectors.mjs';

initSync({ module: readFileSync(new URL('../pkg/acd_client_bg.wasm', import.meta.url)) });

const encoder = new TextEncoder();
const bytes = (value) => encoder.encode(JSON.stringify(value));
const CREDENTIAL_HEADERS = new Set(['x-api-key', 'authorization']);
const EVENT_TYPES = new Set(['response', 'page', 'run_status', 'waiting', 'retrying', 'deprecation', 'done', 'failed']);
const [{ file }] = vectorFiles('client-driver');

/** `batch` with call ids as aliases and credential values redacted. */
function normalise(batch, aliases) {
  const alias = (id) => aliases.get(id) ?? String(id);
  for (const transmit of batch.transmits) {
    transmit.call = alias(transmit.call);
    transmit.headers = transmit.headers.map(([name, value]) =>
      [name, CREDENTIAL_HEADERS.has(name.toLowerCase()) ? '<redacted>' : value]);
  }
  for (const event of batch.events) {
    assert.ok(EVENT_TYPES.has(event.type), `an event type outside the protocol: ${event.type}`);
    event.call = alias(event.call);
  }
  return batch;
}

test('the driver vectors are there', () => {
  assert.ok(file.cases.length >= 9, `${file.cases.length} cases`);
});

describe('client-driver.json', () => {
  for (const testCase of file.cases) {
    test(testCase.name, () => {
      const driver = new Driver(bytes(testCase.config));
      const ids = new Map();
      const aliases = new Map();
      try {
        testCase.steps.forEach((step, index) => {
          const here = `${testCase.name}, step ${index}`;
          if (step.start !== undefined) {
            let id;
            let refusal;
            try { id = driver.start(bytes(step.start)); } catch (error) { refusal = error; }
            if (step.error === undefined) {
              assert.equal(refusal, undefined, `${here}: refused: ${refusal?.message}`);
              ids.set(step.as, id);
              aliases.set(id, step.as);
            } else {
              assert.ok(refusal, `${here}: expected a refusal`);
              const actual = JSON.parse(refusal.json);
              for (const [name, value] of Object.entries(step.error)) assert.deepEqual(actual[name], value, `${here}: ${name}`);
              assert.equal(errorFromCore(actual).category, step.error.category ?? actual.category);
            }
          } else if (step.respond !== undefined) {
            const { call, status, headers, body } = step.respond;
            driver.respond(ids.get(call), status, headers, bytes(body), step.at);
          } else if (step.fail !== undefined) {
            driver.fail(ids.get(step.fail.call), step.fail.kind, step.at);
          } else if (step.poll !== undefined) {
            assert.deepEqual(normalise(JSON.parse(driver.poll(step.at)), aliases), step.poll, here);
          } else {
            assert.fail(`${here}: unknown step ${JSON.stringify(step)}`);
          }
        });
      } finally {
        driver.free();
      }
    });
  }
});
