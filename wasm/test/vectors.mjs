// Loading the conformance vectors under tests/vectors/ (format: see
// tests/vectors/README.md) and turning their requests into acd-wasm inputs.
import { readFileSync, readdirSync } from 'node:fs';

/** The tests/vectors directory. */
export const VECTORS_DIR = new URL('../../tests/vectors/', import.meta.url);

/** Every vector file whose name starts with `prefix`, parsed, sorted by name. */
export function vectorFiles(prefix) {
  return readdirSync(VECTORS_DIR)
    .filter((name) => name.startsWith(prefix) && name.endsWith('.json'))
    .sort()
    .map((name) => ({ name, file: JSON.parse(readFileSync(new URL(name, VECTORS_DIR), 'utf8')) }));
}

/** A vector credential (snake_case) as a CredentialInit. */
export function credentialInit(credential) {
  return {
    secret: credential.secret,
    id: credential.id,
    kind: credential.kind,
    user: credential.user,
    scopes: credential.scopes ?? [],
    expiresAt: credential.expires_at ?? null,
  };
}

/** A vector request as a GateRequestInit (defaults as the README gives them). */
export function gateRequestInit(request) {
  const target = request.target_hex !== undefined
    ? new Uint8Array(Buffer.from(request.target_hex, 'hex'))
    : request.target;
  return {
    method: request.method ?? 'GET',
    target,
    headers: request.headers ?? [],
    clientIp: request.client_ip ?? '203.0.113.7',
  };
}
