// Entry "acd" (and "acd/client") for Node: the same as index.js, the module
// instantiated on import from the .wasm file next to it, so it is ready:
//   import { AcdClient } from 'acd';
import { readFileSync } from 'node:fs';
import { webcrypto } from 'node:crypto';
import { initSync } from '../pkg/acd_client.js';

initSync({ module: readFileSync(new URL('../pkg/acd_client_bg.wasm', import.meta.url)) });
// The driver seeds itself from crypto.getRandomValues (Node 18 has it only here).
if (!globalThis.crypto?.getRandomValues) globalThis.crypto = webcrypto;

export * from './index.js';
export { default } from './index.js';
