// Entry for browsers and bundlers. Call the default export (init) once and
// await it before anything else (Node's entry does it on import):
//   import init, { AcdClient } from 'acd';
//   await init();
// This module carries every feature (client, low-level blocks, gate,
// simulation); a page that only calls the API loads the smaller "acd/client".
import { Client as ModuleClient, ClientRequest } from '../pkg/acd_wasm.js';
import { clientOver } from './driver.js';
import { acdClientOver } from './easy.js';

export * from '../pkg/acd_wasm.js';
export { default } from '../pkg/acd_wasm.js';
export * from './errors.js';
export { systemClock } from './easy.js';
export { fetchTransport, classifyFetchError, systemTimers } from './transport.js';
export { randomEntropy, setEntropySource } from './entropy.js';

/** The driver (the module's, with shortcuts for the common shapes). */
export const Client = clientOver(ModuleClient, ClientRequest);

/** The easy path over this module's driver. */
export const AcdClient = acdClientOver(Client);
