// Types of entropy.js.

/** 32 fresh bytes from `crypto.getRandomValues`. */
export declare function randomEntropy(): Uint8Array;

/** Sets the generator used by `randomEntropy` (anything with `getRandomValues`). */
export declare function setEntropySource(crypto: { getRandomValues<T extends ArrayBufferView>(array: T): T }): void;
