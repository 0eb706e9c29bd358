// Entry "acd/gate" for browsers and bundlers: the full module
// pkg/acd_wasm_bg.wasm (gate, simulation, and the client's Driver for
// tools). Call the default export (init) once and await it first
// (gate-node.js does it):
//   import init, { Gate, simulate } from 'acd/gate';
export { default, version, Driver } from '../pkg/acd_wasm.js';
export * from './errors.js';
export { Admitted, Gate, GateResponse, simulate } from './server.js';
