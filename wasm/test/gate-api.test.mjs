// The JavaScript surface of the wasm gate: classes, argument conversions,
// errors as Error subclasses with codes, and no secret in any message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Gate, Admitted, GateResponse, AcdError, AcdArgumentError, AcdConfigError, AcdStateError,
  version,
} from 'acd-client/gate';
import * as errorsEntry from 'acd-client/errors';

const T0 = 1_700_000_000_000;
const ADA = 'acd_live_demo_ada';
const table = (query = '') => ({ target: `/api/v1/tables/orders${query}`, headers: [['X-API-Key', ADA]] });

test('an admitted table read exposes what the gate validated, then answers once', () => {
  const gate = Gate.demo();
  const decision = gate.decide(table('?limit=2'), T0);
  assert.ok(decision instanceof Admitted);
  assert.equal(decision.operationId, 'listTableRecords');
  assert.deepEqual(decision.pathParams, [['id', 'orders']]);
  assert.deepEqual({ ...decision.params }, { direction: 'asc', limit: 2, offset: 0 });
  assert.equal(decision.user, 'ada');
  assert.equal(decision.credentialId, 'key-ada');
  assert.equal(decision.stableEgress, false);
  const response = decision.respondFound(new TextEncoder().encode('[{"id":1}]'));
  assert.ok(response instanceof GateResponse);
  assert.equal(response.status, 200);
  assert.equal(response.text, '{"data":[{"id":1}]}');
  assert.equal(response.header('ratelimit-remaining'), '4');
  assert.equal(response.header('Retry-After'), undefined);
  assert.throws(() => decision.respondNotFound(), (error) => {
    assert.ok(error instanceof AcdStateError && error instanceof AcdError && error instanceof Error);
    assert.equal(error.code, 'ALREADY_ANSWERED');
    assert.equal(error.name, 'AcdStateError');
    return true;
  });
  assert.throws(() => decision.operationId, { code: 'ALREADY_ANSWERED' });
});

test('headers may be pairs, a plain object, a Headers or a Map', () => {
  const gate = Gate.demo();
  for (const headers of [[['X-API-Key', ADA]], { 'x-api-key': ADA }, new Headers({ 'X-API-Key': ADA }),
    new Map([['X-API-Key', ADA]]), [['X-API-Key', new TextEncoder().encode(ADA)]]]) {
    assert.equal(gate.decide({ target: '/api/v1/tables/t', headers }, T0).type, 'resolve');
  }
});

test('the index is served without a credential and matches indexJson', () => {
  const gate = new Gate({ base_url: 'http://127.0.0.1:9' });
  const response = gate.decide({ target: '/api/v1', clientIp: '192.0.2.1' }, T0);
  assert.equal(response.status, 200);
  assert.equal(response.text, gate.indexJson());
  assert.equal(JSON.parse(response.text).base_url, 'http://127.0.0.1:9');
  assert.equal(gate.decideNow({ target: '/api/v1' }).status, 200);
});

test('the sixth table read in a minute is a 429 with Retry-After', () => {
  const gate = Gate.demo();
  for (let i = 0; i < 5; i += 1) {
    gate.decide(table(), T0 + i).respondFound('[]');
  }
  const refused = gate.decide(table(), T0 + 5);
  assert.equal(refused.status, 429);
  assert.equal(JSON.parse(refused.text).status, 429);
  assert.ok(Number(refused.header('Retry-After')) > 0);
});

test('bad arguments throw AcdArgumentError naming the argument, never the value', () => {
  const gate = Gate.demo();
  const cases = [
    [() => gate.decide({ target: 5 }, T0), /request\.target must be a string or a Uint8Array, got a number/],
    [() => gate.decide('/api/v1', T0), /request must be an object/],
    [() => gate.decide({ target: '/api/v1' }, -1), /nowMs must be a whole number.*got a negative number/],
    [() => gate.decide({ target: '/api/v1' }, 1.5), /got a fraction/],
    [() => gate.decide({ target: '/api/v1' }, Number.NaN), /got NaN/],
    [() => gate.decide({ ...table(), headers: [['X-API-Key', 42]] }, T0), /value of header "X-API-Key"/],
    [() => gate.decide({ ...table(), headers: 'X-API-Key: k' }, T0), /request\.headers must be/],
  ];
  for (const [call, message] of cases) {
    assert.throws(call, (error) => {
      assert.ok(error instanceof AcdArgumentError, String(error));
      assert.equal(error.code, 'INVALID_ARGUMENT');
      assert.match(error.message, message);
      return true;
    });
  }
});

test('refused configurations throw AcdConfigError with the core sentence', () => {
  assert.throws(() => new Gate({ base_url: 'http://x/' }), (error) => {
    assert.ok(error instanceof AcdConfigError);
    assert.equal(error.code, 'INVALID_CONFIG');
    assert.equal(error.message, "gate configuration `base_url`: must not end with '/'");
    return true;
  });
  assert.throws(() => new Gate('{"limits": {"credential": {"requests": "x"}}}'), { code: 'INVALID_CONFIG' });
  assert.throws(() => new Gate({ no_such_member: 1 }), /unknown field `no_such_member`/);
});

test('secrets never appear in errors, toString or responses', () => {
  const secret = 'acd_live_very_secret_value';
  const attempts = [
    () => new Gate(null, [{ secret, id: 'k', kind: secret, user: 'u' }]),
    () => new Gate(null, [{ secret, id: 'k', kind: 'api_key', user: 'u', expiresAt: secret }]),
    () => Gate.demo().decide({ ...table(), headers: [['X-API-Key', secret], ['X-API-Key', 7]] }, T0),
  ];
  for (const attempt of attempts) {
    assert.throws(attempt, (error) => {
      assert.ok(!String(error).includes(secret) && !JSON.stringify(error).includes(secret));
      assert.ok(!error.message.includes(secret));
      return true;
    });
  }
  const response = Gate.demo().decide({ ...table(), headers: [['X-API-Key', secret]] }, T0);
  assert.equal(response.status, 401);
  assert.ok(!response.text.includes(secret) && !response.headers.flat().join().includes(secret));
});

test('the error classes are exported from the package and from acd-wasm/errors', () => {
  assert.equal(errorsEntry.AcdError, AcdError);
  assert.equal(errorsEntry.AcdArgumentError, AcdArgumentError);
  assert.ok(new AcdArgumentError('m', 'INVALID_ARGUMENT') instanceof Error);
});

test('the version', () => {
  assert.match(version(), /^\d+\.\d+\.\d+$/);
});

test('the two-step form asks for the secret, then decides with the caller record', () => {
  const gate = new Gate();
  const request = table('?limit=3');
  assert.equal(gate.credentialToLookUp(request), ADA);
  assert.equal(gate.credentialToLookUp({ target: '/api/v1' }), undefined);
  const admitted = gate.decideAnswered(request, { id: 'key-ada', kind: 'api_key', user: 'ada' }, T0);
  assert.equal(admitted.type, 'resolve');
  assert.equal(admitted.user, 'ada');
  const unknown = gate.decideAnswered(request, null, T0);
  assert.equal(unknown.status, 401);
  assert.throws(() => gate.decideAnswered(request, { id: 'k', kind: 'api_key' }, T0),
    /record\.user must be a string, got undefined/);
});
