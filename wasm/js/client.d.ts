// Types of the "acd/client" entries (client.js for browsers, client-node.js
// for Node): the client module's wasm-bindgen declarations, the error
// classes, the easy path, the fetch transport and the entropy source.
export * from '../pkg/acd_client.js';
export { default } from '../pkg/acd_client.js';
export * from './errors.js';
export * from './easy.js';
export * from './transport.js';
export * from './entropy.js';
