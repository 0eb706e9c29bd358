// Seed material for default clients: 32 bytes from the platform's
// cryptographic generator (crypto.getRandomValues), so no two clients share
// jitter or idempotency keys. The core never reads entropy itself.

let source = globalThis.crypto;

/** Sets the generator (the Node entry passes node:crypto's webcrypto on Node 18). */
export function setEntropySource(crypto) {
  source = crypto;
}

/** 32 fresh random bytes. */
export function randomEntropy() {
  if (!source?.getRandomValues) {
    throw new Error('no crypto.getRandomValues on this platform: pass `entropy` (32 random bytes) explicitly');
  }
  return source.getRandomValues(new Uint8Array(32));
}
