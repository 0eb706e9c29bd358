// acd-wasm entry for browsers and bundlers. Call the default export (init)
// once and await it before using anything else:
//   import init, { Gate } from 'acd-wasm';
//   await init();
// The build (scripts/lib/build-wasm.sh) replaces __SNIPPETS__ with the
// directory wasm-bindgen wrote js/errors.js to, so that the error classes
// exported here are the very ones the module throws.
export * from './acd_wasm.js';
export { default } from './acd_wasm.js';
export {
  AcdError, AcdConfigError, AcdArgumentError, AcdStateError, AcdApiError, AcdProtocolError,
  AcdRequestError, AcdTransportError,
} from './__SNIPPETS__/errors.js';
