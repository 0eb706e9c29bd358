// Entry "acd/client" for browsers and bundlers: the client role only (the
// driver, ClientRequest and the easy path over fetch) in the size-first
// module pkg/acd_client_bg.wasm, the one a dashboard page loads. Call the
// default export (init) once and await it first (Node's entry does it):
//   import init, { AcdClient } from 'acd/client';
//   await init();
import { Client as ModuleClient, ClientRequest } from '../pkg/acd_client.js';
import { clientOver } from './driver.js';
import { acdClientOver } from './easy.js';

export * from '../pkg/acd_client.js';
export { default } from '../pkg/acd_client.js';
export * from './errors.js';
export { systemClock } from './easy.js';
export { fetchTransport, classifyFetchError, systemTimers } from './transport.js';
export { randomEntropy, setEntropySource } from './entropy.js';

/** The driver (the module's, with shortcuts for the common shapes). */
export const Client = clientOver(ModuleClient, ClientRequest);

/** The easy path over this module's driver. */
export const AcdClient = acdClientOver(Client);
