// Replays tests/vectors/client-errors.json in JavaScript through the public
// package: core turns each case's error into the driver protocol's flat
// error object (`clientErrorJson`), and the class the package makes of it
// must be the one the vector lists for JavaScript (core's table,
// `ErrorCategory::classes`). No test here names the category it asserts:
// the category comes from core.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as acd from 'acd-client';
import { vectorFiles } from './vectors.mjs';

const { AcdError, AcdApiError, BadRequestError, clientErrorJson, errorCategoriesJson, errorFromCore } = acd;
const [{ file }] = vectorFiles('client-errors');

for (const { name, input, expect } of file.cases) {
  test(name, () => {
    const json = JSON.parse(clientErrorJson(JSON.stringify(input)));
    for (const member of ['category', 'message', 'status', 'sent', 'retry_at_ms']) {
      if (member in expect) assert.deepEqual(json[member], expect[member], member);
    }
    const error = errorFromCore(json);
    if (expect.classes) {
      assert.equal(error.constructor.name, expect.classes.js);
      assert.equal(error.constructor, acd[expect.classes.js]);
    }
    assert.ok(error instanceof AcdError && error instanceof Error);
    assert.equal(error.message, json.message);
    assert.equal(error.code, input.type.toUpperCase());
    if (typeof json.status === 'number') assert.equal(error.status, json.status);
    if (typeof json.retry_at_ms === 'number') assert.equal(error.retryAt, json.retry_at_ms);
  });
}

test("every category of core's list maps to the class core names", () => {
  const table = JSON.parse(errorCategoriesJson());
  assert.ok(table.length >= 13);
  for (const row of table) {
    const error = errorFromCore({ type: 'x', category: row.category, message: 'm' });
    assert.equal(error.constructor.name, row.js, row.category);
    assert.ok(acd[row.js], row.js);
  }
});

test('a 418 is a BadRequestError with the body the API sent', () => {
  const json = JSON.parse(clientErrorJson(JSON.stringify(
    { type: 'api', status: 418, detail: 'teapot', extra: { hint: 1 } })));
  const error = errorFromCore(json);
  assert.ok(error instanceof BadRequestError && error instanceof AcdApiError);
  assert.deepEqual(error.body, { detail: 'teapot', status: 418, hint: 1 });
  assert.equal(error.sent, true);
});
