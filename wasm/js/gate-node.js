// Entry "acd/gate" for Node: gate.js with the module instantiated on import.
import { readFileSync } from 'node:fs';
import { initSync } from '../pkg/acd_wasm.js';

initSync({ module: readFileSync(new URL('../pkg/acd_wasm_bg.wasm', import.meta.url)) });

export * from './gate.js';
export { default } from './gate.js';
