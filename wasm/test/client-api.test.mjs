// The JavaScript surface of the wasm client: build / plan / onSent /
// onOutcome, errors as AcdError subclasses, and the pager and poller driven
// in virtual time against the wasm gate (no sockets, no sleeping).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Admitted, AcdApiError, AcdConfigError, AcdRequestError, AcdTransportError, ApiResponse, Call,
  Client, ClientRequest, Gate, Pager, RunPoller, agentRunOperation, standardCatalogue,
} from 'acd';

const T0 = 1_700_000_000_000;
const ADA = { id: 'main', kind: 'api_key', secret: 'acd_live_demo_ada', user: 'ada' };
const rows = Array.from({ length: 23 }, (_, i) => ({ id: i + 1, name: `row ${i + 1}` }));

/** A transport that hands the request to a wasm gate serving `rows`. */
function gateTransport(gate, seen) {
  return (request, now) => {
    const decision = gate.decide(
      { method: request.method, target: request.target, headers: request.headers }, now,
    );
    const response = decision instanceof Admitted
      ? (() => {
        const { offset = 0, limit = 100 } = decision.params;
        return decision.respondFound(JSON.stringify(rows.slice(offset, offset + limit)));
      })()
      : decision;
    seen.push(response.status);
    return { status: response.status, headers: response.headers, body: response.body };
  };
}

test('build validates with the gate sentences and builds the wire request', () => {
  const client = new Client({ credentials: [ADA] });
  const request = client.build({ operation: 'listTableRecords', path: { id: 'orders' }, params: { limit: 2 } });
  assert.ok(request instanceof ClientRequest);
  assert.equal(request.url, 'http://127.0.0.1:8080/api/v1/tables/orders?limit=2');
  assert.equal(request.target, '/api/v1/tables/orders?limit=2');
  assert.equal(request.header('x-api-key'), 'acd_live_demo_ada');
  assert.equal(request.attempts, 0);
  assert.ok(!JSON.stringify(request).includes('acd_live_demo_ada'), 'toJSON redacts the credential');
  assert.ok(JSON.stringify(request.toWireJSON()).includes('acd_live_demo_ada'));
  assert.deepEqual(client.plan(request, T0), { plan: 'send_now' });
  assert.throws(() => client.build({ operation: 'listTableRecords', path: { id: 'o' }, params: { limit: 0 } }),
    (error) => {
      assert.ok(error instanceof AcdRequestError);
      assert.equal(error.code, 'INVALID_PARAMS');
      assert.match(error.message, /limit must be an integer from 1 to 5000/);
      assert.equal(error.problems[0].parameter, 'limit');
      assert.equal(error.data.kind, 'invalid_params');
      return true;
    });
  assert.throws(() => client.build({ operation: 'nope' }), { code: 'UNKNOWN_OPERATION' });
  assert.throws(() => client.build({ operation: 'getApiIndex', params: { size: 1 } }), /parameter roles/);
});

test('configuration errors are AcdConfigError and never show a secret', () => {
  const secret = 'acd_live_has space';
  assert.throws(() => new Client({ credentials: [{ ...ADA, secret }] }), (error) => {
    assert.ok(error instanceof AcdConfigError);
    assert.equal(error.code, 'INVALID_CONFIG');
    assert.ok(!String(error).includes(secret) && !JSON.stringify(error).includes(secret));
    return true;
  });
  assert.throws(() => new Client({ base_url: 'http://x/' }), /configuration `base_url`/);
  assert.throws(() => new Client({ no_such: 1 }), /unknown field `no_such`/);
});

test('onOutcome retries a 503, then finishes with the records', () => {
  const client = new Client({ credentials: [ADA] });
  const request = client.build({ operation: 'listTableRecords', path: { id: 't' } });
  client.onSent(request, T0);
  const retry = client.onOutcome(request, { status: 503, body: '{"detail":"down","status":503}' }, T0 + 10);
  assert.equal(retry.kind, 'retry');
  assert.deepEqual(retry.cause, { type: 'server_error', status: 503 });
  assert.ok(retry.at > T0 + 10);
  client.onSent(request, retry.at);
  const done = client.onOutcome(request, { status: 200, headers: [['RateLimit-Remaining', '3']], body: '{"data":[{"id":1}]}' }, retry.at + 5);
  assert.equal(done.kind, 'finished');
  assert.equal(done.ok, true);
  assert.ok(done.response instanceof ApiResponse);
  assert.deepEqual(done.response.records, [{ id: 1 }]);
  assert.deepEqual(done.response.recordsJson, ['{"id":1}']);
  assert.equal(request.attempts, 2);
});

test('an API error is returned as an AcdApiError with status and detail', () => {
  const client = new Client({ credentials: [ADA] });
  const request = client.build({ operation: 'listTableRecords', path: { id: 'missing' } });
  client.onSent(request, T0);
  const done = client.onOutcome(request, { status: 404, body: '{"detail":"No table \\"missing\\".","status":404}' }, T0);
  assert.equal(done.ok, false);
  assert.ok(done.error instanceof AcdApiError);
  assert.equal(done.error.status, 404);
  assert.equal(done.error.detail, 'No table "missing".');
  assert.equal(done.error.code, 'API');
  assert.throws(() => client.interpret(request, { status: 200, body: 'not json' }), { name: 'AcdProtocolError' });
  const failed = client.onOutcome(request, { transport: 'timeout' }, T0 + 1);
  assert.ok(failed.kind === 'retry' || failed.error instanceof AcdTransportError);
});

test('the pager waits for the throttle instead of meeting a 429, in virtual time', () => {
  const gate = Gate.demo();
  const client = new Client({ credentials: [ADA] });
  const pager = Pager.table('orders', { pageSize: 2 });
  const statuses = [];
  const send = gateTransport(gate, statuses);
  const received = [];
  let now = T0;
  let waits = 0;
  for (let guard = 0; guard < 100 && !pager.isFinished; guard += 1) {
    const step = pager.poll(client, now);
    if (step.kind === 'wait') {
      assert.ok(step.until > now);
      waits += 1;
      now = step.until;
    } else if (step.kind === 'send') {
      const event = pager.handle(client, send(step.request, now), now + 20);
      now += 20;
      if (event.kind === 'page') received.push(...event.records);
      else assert.fail(`unexpected ${event.kind}`);
    }
  }
  assert.ok(pager.isFinished);
  assert.deepEqual(received, rows);
  assert.equal(pager.pages, 12);
  assert.ok(!statuses.includes(429), `statuses ${statuses}`);
  assert.ok(waits >= 2, 'the 6th and 11th pages waited');
  const [state] = client.limits(now).filter((limit) => limit.name === 'user_table_reads');
  assert.equal(state.limit, 5);
});

test('a Call drives one request; a RunPoller stops at a terminal state', () => {
  const client = new Client({ credentials: [ADA], catalogue: undefined });
  const call = new Call(client.build({ operation: 'getApiIndex' }));
  const step = call.poll(client, T0);
  assert.equal(step.kind, 'send');
  const index = Gate.demo().indexJson();
  const event = call.handle(client, { status: 200, body: index }, T0 + 5);
  assert.equal(event.kind, 'finished');
  assert.equal(event.response.kind, 'index');
  assert.equal(event.response.index.version, 'v1');
  assert.ok(call.isFinished);

  // A run-reading operation the spec names without detail, added by the caller.
  const getRun = {
    ...agentRunOperation(), id: 'getAgentRun', method: 'GET',
    path: '/agents/{agent_id}/runs/{run_id}', extra_limits: [],
  };
  const runs = new Client({ credentials: [ADA], catalogue: [...standardCatalogue(), getRun] });
  const poller = new RunPoller(
    { operation: 'getAgentRun', path: { agent_id: 'a1', run_id: 'r1' } }, { jitterPerMille: 0 },
  );
  const states = ['queued', 'running', 'succeeded'];
  let now = T0;
  const seen = [];
  for (let guard = 0; guard < 20 && !poller.isFinished; guard += 1) {
    const next = poller.poll(runs, now);
    if (next.kind === 'wait') {
      now = next.until;
    } else {
      const body = JSON.stringify({ data: { id: 'r1', status: states[seen.length] } });
      const polled = poller.handle(runs, { status: 200, body }, now);
      assert.equal(polled.kind, 'status');
      seen.push(polled.state);
    }
  }
  assert.deepEqual(seen, states);
  assert.equal(poller.polls, 3);
  assert.ok(now - T0 >= 2_000, 'about once per second');
});
