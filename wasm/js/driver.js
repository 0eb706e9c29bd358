// The package's `Client`: the module's driver class with `start` and
// `handle` taking a shortcut for the common shapes. A spec of strings and
// numbers, or a response with string-pair headers and a Uint8Array (or no)
// body, is written as one string (js/shapes.js) with `TextEncoder.encodeInto`
// straight into a scratch buffer the module owns, and read there in a
// single call; any other shape goes through the module's member-by-member
// reading, which has every check and error sentence. No rule lives here.
import { pairsText, specText } from './shapes.js';

const NO_BODY = new Uint8Array(0);
const encoder = new TextEncoder();

/**
 * The `Client` class over `Raw`, the driver class of one wasm module.
 * @param {Function} Raw
 */
export function clientOver(Raw) {
  return class Client extends Raw {
    /** The module's scratch buffer as a Uint8Array (empty once detached). */
    #scratch = NO_BODY;

    /**
     * Writes `text` and then `bytes` to the scratch buffer; returns the
     * number of bytes the text took.
     */
    #write(text, bytes) {
      let view = this.#scratch;
      if (view.byteLength < bytes.length + text.length) {
        // Enough for any text of this length (3 bytes per UTF-16 unit at most).
        view = this.scratchView(bytes.length + 3 * text.length);
        this.#scratch = view;
      }
      let { read, written } = encoder.encodeInto(text, view);
      if (read !== text.length || view.byteLength - written < bytes.length) {
        view = this.scratchView(bytes.length + 3 * text.length);
        this.#scratch = view;
        ({ written } = encoder.encodeInto(text, view));
      }
      if (bytes.length > 0) view.set(bytes, written);
      return written;
    }

    start(spec) {
      const text = specText(spec);
      return text === undefined ? super.start(spec) : this.startScratch(this.#write(text, NO_BODY));
    }

    handle(id, outcome, nowMs) {
      if (outcome !== null && typeof outcome === 'object' && typeof outcome.status === 'number'
        && (outcome.type === undefined || outcome.type === 'response')) {
        const { headers, body } = outcome;
        const text = headers === undefined || headers === null ? '' : pairsText(headers);
        const bytes = body === undefined || body === null ? NO_BODY : body;
        if (text !== undefined && bytes instanceof Uint8Array) {
          const headersLength = this.#write(text, bytes);
          return this.handleScratch(id, outcome.status, headersLength, bytes.length, nowMs);
        }
      }
      return super.handle(id, outcome, nowMs);
    }
  };
}
