// Replays tests/vectors/client-errors.json in JavaScript: each case's error
// object, as the core writes it (its members, `category` and `message`),
// becomes the class docs/sdk.md names for its category, with the core's
// sentence as `message` and its type as `code`. The classes below are
// written by hand from docs/sdk.md, not read from errors.js's table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AcdConfigError, AcdError, AcdProtocolError, AcdRequestError, AcdTransportError, AuthenticationError,
  BadRequestError, ConnectionError, NotFoundError, PermissionDeniedError, RateLimitError, ServerError,
  TimeoutError, errorFromCore,
} from 'acd';
import { vectorFiles } from './vectors.mjs';

const [{ file }] = vectorFiles('client-errors');

/** The class of docs/sdk.md for `category`; a request error with a status is the API's 400. */
function expectedClass(category, status) {
  switch (category) {
    case 'config': return AcdConfigError;
    case 'request': return status === undefined ? AcdRequestError : BadRequestError;
    case 'authentication': return AuthenticationError;
    case 'permission': return PermissionDeniedError;
    case 'not_found': return NotFoundError;
    case 'rate_limit': return RateLimitError;
    case 'server': return ServerError;
    case 'connection': return ConnectionError;
    case 'timeout': return TimeoutError;
    case 'interrupted': return AcdTransportError;
    case 'protocol': return AcdProtocolError;
    default: return undefined;
  }
}

test('the error vectors are there and cover every category but cancelled', () => {
  const categories = new Set(file.cases.map(({ expect }) => expect.category));
  for (const category of ['config', 'request', 'authentication', 'permission', 'not_found', 'rate_limit',
    'server', 'connection', 'timeout', 'interrupted', 'protocol']) {
    assert.ok(categories.has(category), category);
  }
});

for (const { name, input, expect } of file.cases) {
  test(name, () => {
    const json = { ...input, category: expect.category, message: expect.message };
    const error = errorFromCore(json);
    const status = typeof input.status === 'number' ? input.status : undefined;
    assert.equal(error.constructor, expectedClass(expect.category, status));
    assert.ok(error instanceof AcdError && error instanceof Error);
    assert.equal(error.message, expect.message);
    assert.equal(error.category, expect.category);
    assert.equal(error.code, input.type.toUpperCase());
    if (status !== undefined) assert.equal(error.status, status);
  });
}
