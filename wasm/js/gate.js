// Entry "acd-client/gate" for browsers and bundlers: the full module
// pkg/acd_wasm_bg.wasm (gate, simulation, the client's Driver for tools).
// Await the default export (init) once first (gate-node.js does it).
export { default, version, Driver } from '../pkg/acd_wasm.js';
export * from './errors.js';
export { Admitted, Gate, GateResponse, simulate } from './server.js';
