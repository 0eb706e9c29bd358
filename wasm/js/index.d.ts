// Types of the "acd" entry (index.js for browsers, node.js for Node) and its
// alias "acd/client": the SDK's client, the error classes, the fetch
// transport.
export { default, version, errorCategoriesJson, clientErrorJson } from '../pkg/acd_client.js';
export * from './errors.js';
export * from './easy.js';
export * from './transport.js';
export * from './webhooks.js';
