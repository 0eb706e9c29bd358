// Entry "acd" (alias "acd/client") for browsers and bundlers: the SDK's
// client over the client-only module pkg/acd_client_bg.wasm. Await the
// default export (init) once first (node.js does it on import). The gate
// and the simulation are in "acd/gate", the test helpers in "acd/testing".
import { Driver, webhookSignJson, webhookVerifyJson } from '../pkg/acd_client.js';
import { acdClientOver } from './easy.js';
import { driverEngine } from './engine.js';
import { webhooksOver } from './webhooks.js';

export { default, version, errorCategoriesJson, clientErrorJson } from '../pkg/acd_client.js';
export * from './errors.js';
export { systemClock } from './easy.js';
export { fetchTransport, classifyFetchError, systemTimers } from './transport.js';

/** The SDK's client. */
export const AcdClient = acdClientOver((config) => driverEngine(Driver, config));

/** Webhook verification (`verify`, `unwrap`) and signing for tests (`sign`), in the core. */
export const webhooks = webhooksOver({ webhookVerifyJson, webhookSignJson });
