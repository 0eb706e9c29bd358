// Types of the "acd/gate" entry (gate.js, gate-node.js): the full module's
// declarations (gate, simulation, the client driver) and the error classes.
export * from '../pkg/acd_wasm.js';
export { default } from '../pkg/acd_wasm.js';
export * from './errors.js';
