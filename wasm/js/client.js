// "acd/client": an alias of "acd" (the client-only module), kept for pages
// that import it by this name.
export * from './index.js';
export { default } from './index.js';
