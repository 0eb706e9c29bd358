// Entry "acd/testing" for Node: testing.js, the full module instantiated on import.
import './gate-node.js';

export * from './testing.js';
