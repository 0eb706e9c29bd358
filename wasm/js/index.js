// Entry for browsers and bundlers. Call the default export (init) once and
// await it before anything else (Node's entry does it on import):
//   import init, { AcdClient } from 'acd';
//   await init();
export * from '../pkg/acd_wasm.js';
export { default } from '../pkg/acd_wasm.js';
export * from './errors.js';
export { AcdClient, systemClock } from './easy.js';
export { fetchTransport, classifyFetchError, systemTimers } from './transport.js';
export { randomEntropy, setEntropySource } from './entropy.js';
