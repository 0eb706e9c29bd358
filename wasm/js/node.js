// Entry for Node: the same module as index.js, instantiated on import from
// the .wasm file next to it, so it is ready to use:
//   import { AcdClient, Gate } from 'acd';
import { readFileSync } from 'node:fs';
import { webcrypto } from 'node:crypto';
import { initSync } from '../pkg/acd_wasm.js';
import { setEntropySource } from './entropy.js';

initSync({ module: readFileSync(new URL('../pkg/acd_wasm_bg.wasm', import.meta.url)) });
if (!globalThis.crypto?.getRandomValues) setEntropySource(webcrypto); // Node 18

export * from './index.js';
export { default } from './index.js';
