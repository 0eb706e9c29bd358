// Entry "acd" (and its alias "acd/client") for browsers and bundlers: the
// SDK's client over the client-only module pkg/acd_client_bg.wasm (the
// small one). Call the default export (init) once and await it first
// (Node's entry, node.js, does it on import):
//   import init, { AcdClient } from 'acd';
//   await init();
// The gate and the simulation are in "acd/gate"; the test helpers in
// "acd/testing".
import { Driver } from '../pkg/acd_client.js';
import { acdClientOver } from './easy.js';
import { driverEngine } from './engine.js';

export { default, version } from '../pkg/acd_client.js';
export * from './errors.js';
export { systemClock } from './easy.js';
export { fetchTransport, classifyFetchError, systemTimers } from './transport.js';

/** The SDK's client. */
export const AcdClient = acdClientOver((config) => driverEngine(Driver, config));
