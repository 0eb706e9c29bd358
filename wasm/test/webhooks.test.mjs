// Webhooks through the package's public entries: `webhooks` from "acd"
// replays every verify case of tests/vectors/webhooks.json (signatures
// computed with the Standard Webhooks reference library) and reproduces the
// reference signatures of its sign cases; `signWebhook` from "acd/testing"
// signs for a handler's tests; the facade's contract (raw bodies only,
// headers in every shape Node and fetch give, Dates, the error's code).
// The delivery-schedule cases are the sender's: the planner is not exposed
// to JavaScript (a receiver never plans deliveries), so Rust replays them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webhooks, WebhookVerificationError, AcdError, AcdArgumentError } from 'acd';
import { signWebhook } from 'acd/testing';
import { vectorFiles } from './vectors.mjs';

const [{ file: VECTOR }] = vectorFiles('webhooks');
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const BODY = '{"type":"run.succeeded","timestamp":"2023-11-14T22:13:20.000Z","data":{"run":{"id":"run_1","status":"succeeded"}}}';

test('the webhook vectors are present', () => {
  assert.ok(VECTOR.verify.length >= 25 && VECTOR.sign.length >= 3);
});

for (const c of VECTOR.verify) {
  test(`webhook vector: ${c.name}`, () => {
    const options = { nowMs: c.now_ms, toleranceMs: c.tolerance_ms };
    for (const call of [webhooks.verify, webhooks.unwrap]) {
      if (c.expect.error) {
        assert.throws(() => call(c.body, c.headers, c.secrets, options), (error) => {
          assert.ok(error instanceof WebhookVerificationError && error instanceof AcdError);
          assert.equal(error.code, c.expect.error);
          assert.ok(error.message.length > 0);
          return true;
        });
        continue;
      }
      const event = call(new TextEncoder().encode(c.body), new Headers(c.headers), c.secrets, options);
      const want = c.expect.ok;
      assert.deepEqual([event.id, event.webhookTimestamp, event.type], [want.id, want.webhook_timestamp, want.type]);
      if (call === webhooks.unwrap) assert.deepEqual([event.run.id, event.run.status], [want.run_id, want.run_status]);
      else assert.equal(event.data.run.id, want.run_id);
    }
  });
}

for (const c of VECTOR.sign) {
  test(`sign reproduces the reference signature of ${c.id}`, () => {
    for (const sign of [webhooks.sign, signWebhook]) {
      const signed = sign(c.body, c.secret, { id: c.id, timestamp: c.timestamp });
      assert.deepEqual(signed.headers, {
        'webhook-id': c.id, 'webhook-timestamp': String(c.timestamp), 'webhook-signature': c.signature,
      });
      assert.equal(new TextDecoder().decode(signed.body), c.body);
    }
  });
}

test('a parsed body is refused', () => {
  const signed = webhooks.sign(BODY, SECRET, { id: 'msg_1', timestamp: 1_700_000_000 });
  assert.throws(() => webhooks.verify(JSON.parse(BODY), signed.headers, SECRET, { nowMs: 1_700_000_000_000 }),
    (error) => error instanceof AcdArgumentError && /raw request body/.test(error.message));
});

test('signed for a handler test, then unwrapped from Node-style headers with a Date and a rotation', () => {
  const old = `whsec_${'QUJD'.repeat(8)}`;
  const signed = signWebhook(JSON.parse(BODY), [SECRET, old], { id: 'msg_7', timestampMs: 1_700_000_000_999 });
  assert.equal(signed.headers['webhook-signature'].split(' ').length, 2);
  const nodeHeaders = { 'content-type': 'application/json', ...signed.headers, 'x-forwarded-for': ['a', 'b'] };
  const event = webhooks.unwrap(Buffer.from(signed.body), nodeHeaders, old, { now: new Date(1_700_000_299_000) });
  assert.equal(event.id, 'msg_7');
  assert.equal(event.webhookTimestamp, 1_700_000_000);
  assert.deepEqual(event.run, { id: 'run_1', status: 'succeeded' });
  assert.throws(() => webhooks.verify(signed.body, signed.headers, SECRET, { nowMs: 1_700_000_001_000, toleranceMs: 0 }),
    (error) => error.code === 'timestamp_out_of_tolerance');
});

test('the tolerance defaults to the core\'s and now to the wall clock', () => {
  const signed = webhooks.sign(BODY, SECRET, { id: 'msg_1', timestamp: 1_700_000_000 });
  webhooks.verify(signed.body, signed.headers, SECRET, { nowMs: 1_700_000_300_000 });
  assert.throws(() => webhooks.verify(signed.body, signed.headers, SECRET, { nowMs: 1_700_000_301_000 }),
    (error) => error.code === 'timestamp_out_of_tolerance');
  assert.throws(() => webhooks.verify(signed.body, signed.headers, SECRET),
    (error) => error.code === 'timestamp_out_of_tolerance');
  const fresh = webhooks.sign(BODY, SECRET);
  assert.match(fresh.headers['webhook-id'], /^msg_[0-9a-f]{24}$/);
  assert.equal(webhooks.unwrap(fresh.body, Object.entries(fresh.headers), SECRET).type, 'run.succeeded');
});

test('unwrap refuses a run event without a run but keeps other types; a bad secret has the core\'s code', () => {
  const bare = webhooks.sign({ type: 'run.failed', timestamp: 't', data: {} }, SECRET, { timestamp: 1 });
  assert.equal(webhooks.verify(bare.body, bare.headers, SECRET, { nowMs: 1000 }).type, 'run.failed');
  assert.throws(() => webhooks.unwrap(bare.body, bare.headers, SECRET, { nowMs: 1000 }),
    (error) => error.code === 'bad_payload');
  const other = webhooks.sign({ type: 'custom.ping', timestamp: 't', data: { x: 1 } }, SECRET, { timestamp: 1 });
  const event = webhooks.unwrap(other.body, other.headers, SECRET, { nowMs: 1000 });
  assert.equal(event.run, null);
  assert.deepEqual(event.data, { x: 1 });
  assert.throws(() => webhooks.sign(BODY, 'not-a-secret'), (error) => error.code === 'bad_secret');
});
