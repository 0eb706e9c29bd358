// Entry "acd-client/testing" for Node: testing.js, the full module instantiated on
// import, and startSandbox() (a real acd-sandbox; Node only).
import './gate-node.js';

export * from './testing.js';
export { startSandbox, sandboxBinary } from './sandbox-node.js';
