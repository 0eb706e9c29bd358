// acd-wasm entry for Node: the same module as index.js, instantiated on
// import from the .wasm file next to this one, so it is ready to use:
//   import { Gate } from 'acd-wasm';
import { readFileSync } from 'node:fs';
import { initSync } from './acd_wasm.js';

initSync({ module: readFileSync(new URL('./acd_wasm_bg.wasm', import.meta.url)) });

export * from './index.js';
export { default } from './index.js';
