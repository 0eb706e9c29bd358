// Error classes of acd-wasm. Every failure the package throws is an
// AcdError: a real Error subclass whose `message` is the core's sentence,
// whose `code` is machine-readable, and which may carry extra members
// (`status`, `detail`, `problems`, and `data`: the core's JSON form of a
// client error, as in the conformance vectors). Messages never contain secrets.
// The wasm module imports this very file (../js/errors.js) and calls
// createAcdError; applications import the classes from the package ("acd"
// or "acd/errors") for instanceof checks.

/** Base class of every error acd-wasm throws. */
export class AcdError extends Error {
  constructor(message, code, details) {
    super(message);
    if (details && typeof details === 'object') {
      for (const [key, value] of Object.entries(details)) {
        if (key !== 'message' && key !== 'code' && key !== 'name' && key !== 'stack') {
          this[key] = value;
        }
      }
    }
    this.name = new.target.name;
    this.code = code;
  }
}

/** A gate configuration or credential table was refused. */
export class AcdConfigError extends AcdError {}
/** An argument had the wrong type or value. */
export class AcdArgumentError extends AcdError {}
/** An object was used after it was spent (e.g. answered twice). */
export class AcdStateError extends AcdError {}
/** The API answered with an error response (`status`, `detail`, `body`). */
export class AcdApiError extends AcdError {}
/** A response did not follow the protocol (a redirect, a malformed or
 * over-large body): the API answered, but not as its contract says. */
export class AcdProtocolError extends AcdApiError {}
/** A request could not be built; nothing was sent (`problems` for parameters). */
export class AcdRequestError extends AcdError {}
/** The transport failed and the call was not retried (further). */
export class AcdTransportError extends AcdError {}

const classes = {
  AcdConfigError, AcdArgumentError, AcdStateError, AcdApiError, AcdProtocolError, AcdRequestError,
  AcdTransportError,
};

/** Used by the wasm module: builds the error of class `className`. */
export function createAcdError(className, code, message, details) {
  const Class = Object.hasOwn(classes, className) ? classes[className] : AcdError;
  return new Class(message, code, details);
}
