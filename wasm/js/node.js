// Entry "acd-client" (and "acd-client/client") for Node: index.js, its module instantiated on import.
import { readFileSync } from 'node:fs';
import { webcrypto } from 'node:crypto';
import { initSync } from '../pkg/acd_client.js';

initSync({ module: readFileSync(new URL('../pkg/acd_client_bg.wasm', import.meta.url)) });
if (!globalThis.crypto?.getRandomValues) globalThis.crypto = webcrypto; // the driver's seed (Node 18)

export * from './index.js';
export { default } from './index.js';
