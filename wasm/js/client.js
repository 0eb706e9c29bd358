// "acd-client/client": an alias of "acd-client" (the client-only module).
export * from './index.js';
export { default } from './index.js';
