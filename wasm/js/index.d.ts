// Types of the acd-wasm entries (index.js for browsers, node.js for Node):
// the wasm-bindgen declarations plus the error classes.
export * from './acd_wasm.js';
export { default } from './acd_wasm.js';
export {
  AcdError, AcdConfigError, AcdArgumentError, AcdStateError, AcdApiError, AcdProtocolError,
  AcdRequestError, AcdTransportError, type AcdErrorCode,
} from './__SNIPPETS__/errors.js';
