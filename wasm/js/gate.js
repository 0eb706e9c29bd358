// Entry "acd/gate" for browsers and bundlers: the full module
// pkg/acd_wasm_bg.wasm (gate, simulation and the client driver). Call the
// default export (init) once and await it first (gate-node.js does it):
//   import init, { Gate, simulate } from 'acd/gate';
import { Client as ModuleClient, ClientRequest } from '../pkg/acd_wasm.js';
import { clientOver } from './driver.js';

export * from '../pkg/acd_wasm.js';
export { default } from '../pkg/acd_wasm.js';
export * from './errors.js';
export { Admitted, Gate, GateResponse, simulate } from './server.js';

/** The full module's client driver (for tools and tests). */
export const Client = clientOver(ModuleClient, ClientRequest);
