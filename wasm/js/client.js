// "acd/client": an alias of "acd" (the client-only module).
export * from './index.js';
export { default } from './index.js';
