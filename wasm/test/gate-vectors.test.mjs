// Replays every tests/vectors/gate-*.json case through the wasm gate and
// compares status, header list (names, values, order), body bytes and what
// the gate admitted with the generated `expect` members, which the Rust
// suite produces and checks: equal here means equal to Rust byte for byte.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Gate, Admitted, GateResponse } from 'acd-client/gate';
import { vectorFiles, credentialInit, gateRequestInit } from './vectors.mjs';

const files = vectorFiles('gate-');

test('the gate vector files are there', () => {
  assert.ok(files.length >= 5, `found ${files.length} gate vector files`);
});

function answer(admitted, resource) {
  assert.ok(resource, 'the gate admitted the request but the step gives no resource answer');
  switch (resource.kind) {
    case 'found': return admitted.respondFound(resource.payload);
    case 'not_found': return admitted.respondNotFound();
    case 'forbidden': return admitted.respondForbidden();
    case 'invalid': return admitted.respondInvalid(resource.problems);
    default: throw new Error(`unknown resource kind ${resource.kind}`);
  }
}

for (const { name, file } of files) {
  describe(name, () => {
    assert.equal(file.format, 'acd-gate-vectors/1');
    for (const testCase of file.cases) {
      test(testCase.name, () => {
        const gate = new Gate(file.config ?? null, file.credentials.map(credentialInit));
        try {
          testCase.steps.forEach((step, index) => {
            const label = `${testCase.name} step ${index + 1}`;
            const decision = gate.decide(gateRequestInit(step.request), step.at);
            let admitted;
            let response;
            if (decision instanceof Admitted) {
              assert.equal(decision.type, 'resolve');
              admitted = {
                operation_id: decision.operationId,
                path_params: decision.pathParams,
                params: { ...decision.params },
                user: decision.user ?? null,
                stable_egress: decision.stableEgress,
              };
              response = answer(decision, step.resource);
            } else {
              assert.ok(decision instanceof GateResponse);
              assert.equal(decision.type, 'respond');
              response = decision;
            }
            const expect = step.expect;
            assert.ok(expect, `${label}: no generated expect (run ACD_BLESS=1 cargo test)`);
            assert.equal(response.status, step.expect_status, `${label}: hand-written status`);
            assert.equal(response.status, expect.status, `${label}: status`);
            assert.deepEqual(response.headers, expect.headers, `${label}: headers`);
            assert.deepEqual(
              Buffer.from(response.body), Buffer.from(expect.body, 'utf8'), `${label}: body bytes`,
            );
            assert.deepEqual(admitted, expect.admitted, `${label}: admitted`);
            response.free();
          });
        } finally {
          gate.free();
        }
      });
    }
  });
}
