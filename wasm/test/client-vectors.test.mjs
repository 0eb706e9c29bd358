// Replays every tests/vectors/client-*.json case through the wasm client,
// exactly as tests/tests/client_vectors.rs does in Rust (conventions:
// tests/vectors/README.md, "Client vectors"). Each case's `output` is the
// Rust result; the JSON form produced here must equal it, and the
// hand-written `expect` must be contained in it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Client, RetryPlanner, Throttle, parseDeprecation, parseRateLimitHeaders, standardCatalogue,
  agentRunOperation, interpretResponse, clientErrorFromJSON, AcdError, AcdConfigError, AcdRequestError,
  AcdApiError, AcdProtocolError, AcdTransportError, AuthenticationError, PermissionDeniedError, NotFoundError,
  RateLimitError, ServerError, ConnectionError, TimeoutError, BadRequestError,
} from 'acd/gate';
import { vectorFiles } from './vectors.mjs';

/** Whether `expected` is contained in `actual` (the README's rule). */
function contains(actual, expected) {
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length
      && expected.every((item, i) => contains(actual[i], item));
  }
  if (expected !== null && typeof expected === 'object') {
    return actual !== null && typeof actual === 'object' && !Array.isArray(actual)
      && Object.entries(expected).every(([key, value]) => key in actual && contains(actual[key], value));
  }
  return actual === expected;
}

/** JSON form of a thrown client error, or rethrow anything else. */
function errorJson(error) {
  if (error instanceof AcdError && error.data) return error.data;
  throw error;
}

function result(run) {
  try {
    const value = run();
    return { ok: value.toWireJSON ? value.toWireJSON() : value };
  } catch (error) {
    return { error: errorJson(error) };
  }
}

/**
 * The client every vector uses unless its input says otherwise:
 * `idempotency_keys` turns automatic keys on, `honours_idempotency_key`
 * marks createAgentRun as honouring them; seed 0 (keys as KeyStream::from_seed(0)).
 */
function client(input) {
  const credentials = input.credentials ?? [
    { id: 'main', kind: 'api_key', secret: 'acd_live_demo_ada', user: 'ada' },
    { id: 'ci', kind: 'api_key', secret: 'acd_live_demo_ada_ci', user: 'ada' },
  ];
  return new Client({
    catalogue: [...standardCatalogue(),
      { ...agentRunOperation(), honours_idempotency_key: input.honours_idempotency_key ?? false }],
    credentials,
    idempotency_keys: input.idempotency_keys ?? false,
    seed: 0,
  });
}

/** The default request a throttle or retry step talks about. */
function spec(input) {
  const specs = {
    listTableRecords: { operation: 'listTableRecords', path: { id: 't' } },
    listConnectionRecords: {
      operation: 'listConnectionRecords', path: { connection_id: 'c' }, params: { entityId: 'e' },
    },
    getApiIndex: { operation: 'getApiIndex' },
    createAgentRun: { operation: 'createAgentRun', path: { agent_id: 'a1' } },
  };
  const base = specs[input.operation];
  assert.ok(base, `no default request for ${input.operation}`);
  return input.credential ? { ...base, credential: input.credential } : base;
}

const runners = {
  'client-interpret.json': (input) => result(() => interpretResponse(
    input.operation, { status: input.status, headers: input.headers ?? [], body: input.body },
  )),
  'client-ratelimit.json': (input) => parseRateLimitHeaders(input.headers ?? [], input.now),
  'client-throttle.json': (input) => {
    const c = client(input);
    const throttle = new Throttle();
    return input.steps.map((step) => {
      const [kind, body] = Object.entries(step)[0];
      const request = c.build(spec(body));
      switch (kind) {
        case 'send':
          for (let i = 0; i < (body.count ?? 1); i += 1) throttle.onSent(request, body.now);
          return null;
        case 'response':
          throttle.onResponse(request, { status: body.status, headers: body.headers ?? [] }, body.now);
          return null;
        case 'plan':
          return throttle.plan(request, body.now);
        default:
          throw new Error(`unknown throttle step ${kind}`);
      }
    });
  },
  'client-retry.json': (input) => {
    const c = client(input);
    const request = c.build(input.idempotency_key
      ? { ...spec(input), idempotencyKey: input.idempotency_key } : spec(input));
    request.attempts = input.attempts;
    request.firstSentAt = input.first_sent_at;
    const planner = new RetryPlanner(null, null, input.seed, input.budget_available);
    const outcome = input.outcome.transport !== undefined
      ? { type: 'transport', failure: input.outcome.transport }
      : { status: input.outcome.status, headers: input.outcome.headers ?? [], body: '{}' };
    return planner.onOutcome(request, outcome, input.now);
  },
  'client-request.json': (input) => result(() => client(input).build({
    operation: input.operation,
    path: input.path ?? [],
    query: input.query ?? [],
    credential: input.credential,
    egress: input.egress ?? 'default',
    body: input.body,
    idempotencyKey: input.idempotency_key,
  })),
  'client-deprecation.json': (input) => parseDeprecation(input.operation, input.headers ?? []),
  'client-errors.json': (input) => {
    const error = clientErrorFromJSON(JSON.stringify(input));
    return { category: error.category, message: error.message };
  },
};

// The class each category becomes, written from errors.js's documentation.
// A request error with an HTTP status is the API's refusal (BadRequestError).
const CLASS_OF_CATEGORY = {
  config: AcdConfigError,
  request: AcdRequestError,
  authentication: AuthenticationError,
  permission: PermissionDeniedError,
  not_found: NotFoundError,
  rate_limit: RateLimitError,
  server: ServerError,
  connection: ConnectionError,
  timeout: TimeoutError,
  interrupted: AcdTransportError,
  protocol: AcdProtocolError,
};
const answered = (error) => typeof error.status === 'number';

test('each client error becomes the class of its category, with code and data', () => {
  const file = vectorFiles('client-').find(({ name }) => name === 'client-errors.json').file;
  for (const { name, input, expect } of file.cases) {
    const error = clientErrorFromJSON(JSON.stringify(input));
    const expected = expect.category === 'request' && answered(error) ? BadRequestError : CLASS_OF_CATEGORY[expect.category];
    assert.equal(error.constructor, expected, name);
    assert.ok(error instanceof AcdError, name);
    assert.equal(error.code, input.kind.toUpperCase(), name);
    assert.deepEqual(error.data, input, name);
  }
});

const files = vectorFiles('client-');

test('every client vector file has a replay', () => {
  assert.deepEqual(files.map(({ name }) => name).sort(), Object.keys(runners).sort());
});

for (const { name, file } of files) {
  describe(name, () => {
    assert.equal(file.format, 'acd-client-vectors/1');
    const run = runners[name];
    for (const testCase of file.cases) {
      test(testCase.name, () => {
        assert.ok(run, `no replay for ${name}`);
        const actual = JSON.parse(JSON.stringify(run(testCase.input)));
        assert.ok(contains(actual, testCase.expect),
          `breaks the hand-written expect\n  expect: ${JSON.stringify(testCase.expect)}\n  actual: ${JSON.stringify(actual)}`);
        assert.deepEqual(actual, testCase.output);
      });
    }
  });
}
