// Types of the acd entries (index.js for browsers, node.js for Node): the
// wasm-bindgen declarations, the error classes, the easy path, the fetch
// transport and the entropy source.
export * from '../pkg/acd_wasm.js';
export { default } from '../pkg/acd_wasm.js';
export * from './errors.js';
export * from './easy.js';
export * from './transport.js';
export * from './entropy.js';
