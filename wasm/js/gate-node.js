// Entry "acd-client/gate" for Node: gate.js with the module instantiated on import.
import { readFileSync } from 'node:fs';
import { webcrypto } from 'node:crypto';
import { initSync } from '../pkg/acd_wasm.js';

initSync({ module: readFileSync(new URL('../pkg/acd_wasm_bg.wasm', import.meta.url)) });
if (!globalThis.crypto?.getRandomValues) globalThis.crypto = webcrypto; // Node 18

export * from './gate.js';
export { default } from './gate.js';
