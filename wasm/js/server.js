// The gate (server role) over the full module's GateCore: one crossing per
// decision. A request goes in as its method, target bytes, header bytes
// (`name: value` lines) and client IP; the decision comes back as JSON text
// read by one JSON.parse into a GateResponse or an Admitted, which is
// answered by one more crossing. Arguments are checked here (their
// sentences name the argument, never a value); every rule is the core's.
import { GateCore, simulateJson } from '../pkg/acd_wasm.js';
import { AcdArgumentError, AcdConfigError, AcdStateError } from './errors.js';
import { camelKeys, describe, snakeJson } from './json.js';

const encoder = new TextEncoder();
const NEWLINE = 10;

const argument = (message) => new AcdArgumentError(message, 'INVALID_ARGUMENT');

/** `value` as bytes (a string or a Uint8Array). */
function bytes(value, what) {
  if (typeof value === 'string') return encoder.encode(value);
  if (value instanceof Uint8Array) return value;
  throw argument(`${what} must be a string or a Uint8Array, got ${describe(value)}`);
}

/** `[name, value]` entries of pairs, a Headers or Map, or a plain object. */
function entries(value, what) {
  if (value === undefined || value === null) return [];
  if (typeof value === 'object' && typeof value[Symbol.iterator] === 'function') return [...value];
  if (typeof value === 'object' && !(value instanceof Uint8Array)) return Object.entries(value);
  throw argument(`${what} must be an array of [name, value] pairs, a Headers or Map object, or a plain object, got ${describe(value)}`);
}

/** Headers as `name: value\n` lines, in bytes. */
function headerBytes(headers) {
  const parts = entries(headers, 'request.headers').flatMap(([name, value]) => {
    if (typeof name !== 'string') throw argument(`request.headers: a header name must be a string, got ${describe(name)}`);
    const what = `value of header ${JSON.stringify(name)}`;
    const line = bytes(value, what);
    if (line.includes(NEWLINE)) throw argument(`${what} must not contain a line break`);
    return [encoder.encode(`${name}: `), line, Uint8Array.of(NEWLINE)];
  });
  const out = new Uint8Array(parts.reduce((size, part) => size + part.length, 0));
  parts.reduce((at, part) => { out.set(part, at); return at + part.length; }, 0);
  return out;
}

/** A GateRequestInit as the core's arguments: method, target, headers, client IP. */
function requestParts(request) {
  if (request === null || typeof request !== 'object') {
    throw argument(`request must be an object such as {target: "/api/v1"}, got ${describe(request)}`);
  }
  const method = request.method ?? 'GET';
  if (typeof method !== 'string') throw argument(`request.method must be a string, got ${describe(method)}`);
  const clientIp = request.clientIp ?? '127.0.0.1';
  if (typeof clientIp !== 'string') throw argument(`request.clientIp must be a string, got ${describe(clientIp)}`);
  return [method, bytes(request.target, 'request.target'), headerBytes(request.headers), clientIp];
}

/** A credential record (no secret) checked and in the core's snake_case. */
function record(entry, what) {
  if (entry === null || typeof entry !== 'object') throw argument(`${what} must be an object, got ${describe(entry)}`);
  for (const member of ['id', 'user']) {
    if (typeof entry[member] !== 'string') throw argument(`${what}.${member} must be a string, got ${describe(entry[member])}`);
  }
  const kind = { apiKey: 'api_key', api_key: 'api_key', oauth2: 'oauth2' }[entry.kind];
  if (kind === undefined) throw argument(`${what}.kind must be "apiKey" or "oauth2"`);
  const scopes = entry.scopes ?? [];
  if (!Array.isArray(scopes) || scopes.some((scope) => typeof scope !== 'string')) {
    throw argument(`${what}.scopes must be an array of strings`);
  }
  const expires = entry.expiresAt ?? entry.expires_at ?? null;
  if (expires !== null && !Number.isSafeInteger(expires)) throw argument(`${what}.expiresAt must be a number or null`);
  return { id: entry.id, kind, user: entry.user, scopes, expires_at: expires };
}

/** The credential table's JSON. */
function credentialsText(credentials) {
  if (credentials === undefined || credentials === null) return undefined;
  if (!Array.isArray(credentials)) throw argument(`credentials must be an array, got ${describe(credentials)}`);
  return JSON.stringify(credentials.map((entry, index) => {
    const what = `credentials[${index}]`;
    if (typeof entry?.secret !== 'string') throw argument(`${what}.secret must be a string, got ${describe(entry?.secret)}`);
    return { secret: entry.secret, ...record(entry, what) };
  }));
}

/** Configuration (an object or JSON text, camelCase or snake_case) as JSON text. */
function configText(config, what) {
  try {
    return config === undefined || config === null ? undefined : snakeJson(config);
  } catch (error) {
    throw new AcdConfigError(`${what}: ${error.message}`, 'INVALID_CONFIG');
  }
}

/** A finished response: status, headers in order, body. */
export class GateResponse {
  #text;

  constructor({ status, headers, body }) {
    this.status = status;
    this.headers = headers;
    this.#text = body;
  }

  /** Always `"respond"`: tells a GateResponse from an Admitted. */
  get type() { return 'respond'; }
  /** The body as text (always JSON), and as bytes. */
  get text() { return this.#text; }
  get body() { return encoder.encode(this.#text); }
  /** The first value of header `name` (case-insensitive), or undefined. */
  header(name) { return this.headers.find(([key]) => key.toLowerCase() === String(name).toLowerCase())?.[1]; }
  /** Nothing to release. */
  free() {}
}

/** A request that passed every rule, waiting for one answer about its resource. */
export class Admitted {
  #core;
  #decision;

  constructor(core, decision) {
    this.#core = core;
    this.#decision = decision;
  }

  #get(member) {
    if (this.#decision === null) {
      throw new AcdStateError('This admitted request was already answered; each request gets one response.', 'ALREADY_ANSWERED');
    }
    return this.#decision[member];
  }

  /** Always `"resolve"`. */
  get type() { return 'resolve'; }
  /** The operation's id, e.g. `listTableRecords`. */
  get operationId() { return this.#get('operation_id'); }
  /** The decoded path parameters as `[name, value]` pairs. */
  get pathParams() { return this.#get('path_params'); }
  /** The validated query parameters, defaults applied. */
  get params() { return this.#get('params'); }
  /** The authenticated user, or undefined. */
  get user() { return this.#get('user') ?? undefined; }
  /** The credential's non-secret id, or undefined. */
  get credentialId() { return this.#get('credential_id') ?? undefined; }
  /** Whether the caller asked for the stable-egress path. */
  get stableEgress() { return this.#get('stable_egress'); }

  #answer(kind, payload) {
    const id = this.#get('id');
    this.#decision = null;
    return new GateResponse(JSON.parse(this.#core.answer(id, kind, payload)));
  }

  /** Answers with the payload (raw JSON: the records array for reads); 404; 403. */
  respondFound(payload) { return this.#answer('found', bytes(payload, 'payload')); }
  respondNotFound() { return this.#answer('not_found', new Uint8Array(0)); }
  respondForbidden() { return this.#answer('forbidden', new Uint8Array(0)); }
  /** Answers 400 with the resource's own parameter problems. */
  respondInvalid(problems) {
    if (!Array.isArray(problems)) throw argument(`problems must be an array, got ${describe(problems)}`);
    return this.#answer('invalid', encoder.encode(JSON.stringify(problems)));
  }

  /** Nothing to release. */
  free() {}
}

/** The gate: configuration, in-memory credentials and limits. */
export class Gate {
  #core;

  /** A gate with `config` (every member optional) and a credential table. */
  constructor(config, credentials, options = {}) {
    const text = credentialsText(credentials);
    this.#core = new GateCore(configText(config, 'gate configuration'), text, options.demo === true, options.hashSeed);
  }

  /** Like the constructor, the limiter's hash seed given (a bigint). */
  static withHashSeed(config, credentials, hashSeed) { return new Gate(config, credentials, { hashSeed }); }
  /** A gate with the published demo credentials. */
  static demo(config) { return new Gate(config, undefined, { demo: true }); }

  #decision(text) {
    const decision = JSON.parse(text);
    return decision.type === 'respond' ? new GateResponse(decision) : new Admitted(this.#core, decision);
  }

  /** Decides `request` at `nowMs`: a GateResponse, or an Admitted to answer. */
  decide(request, nowMs) { return this.#decision(this.#core.decide(...requestParts(request), nowMs)); }
  /** `decide` at `Date.now()`. */
  decideNow(request) { return this.decide(request, Date.now()); }
  /** Two-step form, step one: the secret to look up for `request`, or undefined. */
  credentialToLookUp(request) {
    const [method, target, headers] = requestParts(request);
    return this.#core.credentialToLookUp(method, target, headers);
  }

  /** Step two: decides with the caller's record (null: unknown credential). */
  decideAnswered(request, found, nowMs) {
    const text = found === null || found === undefined ? undefined : JSON.stringify(record(found, 'record'));
    return this.#decision(this.#core.decideAnswered(...requestParts(request), text, nowMs));
  }

  /** The API index this gate serves, as JSON text. */
  indexJson() { return this.#core.indexJson(); }
  /** Releases the gate. */
  free() { this.#core.free(); }
}

/** Runs a simulation (acd-core's sim) and returns its report (camelCase members). */
export function simulate(config) {
  return camelKeys(JSON.parse(simulateJson(configText(config ?? {}, 'simulation') ?? '{}')));
}
