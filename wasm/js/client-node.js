// Entry "acd/client" for Node: the same module as client.js, instantiated
// on import from the .wasm file next to it, so it is ready to use:
//   import { AcdClient } from 'acd/client';
import { readFileSync } from 'node:fs';
import { webcrypto } from 'node:crypto';
import { initSync } from '../pkg/acd_client.js';
import { setEntropySource } from './entropy.js';

initSync({ module: readFileSync(new URL('../pkg/acd_client_bg.wasm', import.meta.url)) });
if (!globalThis.crypto?.getRandomValues) setEntropySource(webcrypto); // Node 18

export * from './client.js';
export { default } from './client.js';
