// Entry "acd/testing" for Node: the helpers of testing.js with the full
// module instantiated on import.
import './gate-node.js';

export * from './testing.js';
