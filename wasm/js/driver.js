// The package's `Client`: the module's driver class with `start` and
// `handle` taking a shortcut for the common shapes. A spec of strings and
// numbers, or a response with string-pair headers and a Uint8Array (or no)
// body, crosses into the module as one string (js/shapes.js) in a single
// call; any other shape goes through the module's member-by-member reading,
// which has every check and error sentence. No rule lives here.
import { pairsText, specText } from './shapes.js';

const NO_BODY = new Uint8Array(0);

/**
 * The `Client` class over `Raw`, the driver class of one wasm module.
 * @param {Function} Raw
 */
export function clientOver(Raw) {
  return class Client extends Raw {
    start(spec) {
      const text = specText(spec);
      return text === undefined ? super.start(spec) : this.startText(text);
    }

    handle(id, outcome, nowMs) {
      if (outcome !== null && typeof outcome === 'object' && typeof outcome.status === 'number'
        && (outcome.type === undefined || outcome.type === 'response')) {
        const { headers, body } = outcome;
        const text = headers === undefined || headers === null ? '' : pairsText(headers);
        const bytes = body === undefined || body === null ? NO_BODY : body;
        if (text !== undefined && bytes instanceof Uint8Array) {
          return this.handleResponseText(id, outcome.status, text, bytes, nowMs);
        }
      }
      return super.handle(id, outcome, nowMs);
    }
  };
}
