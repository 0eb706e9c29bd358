// The package's `Client`: the module's driver class with `start` and
// `handle` taking a shortcut for the common shapes. A spec of strings and
// numbers, or a response with string-pair headers and a Uint8Array (or no)
// body, is written as one string (js/shapes.js) with `TextEncoder.encodeInto`
// straight into a scratch buffer the module owns, and read there in a
// single call; any other shape goes through the module's member-by-member
// reading, which has every check and error sentence.
//
// The requests `pollTransmits` hands out are the driver's: each stays
// readable until its outcome is handed to `handle` or its call is
// cancelled (or `free()` is called on it, or on the client), and is
// released then. So no finalizer is registered per request (wasm-bindgen
// registers one for every object it wraps; that registration was about a
// tenth of a client call). No rule lives here.
import { AcdStateError } from './errors.js';
import { pairsText, recordsThenDone, separators, specText, takeStash } from './shapes.js';

// What `pollEventsMailbox` returns besides a text's length (fast_path.rs).
const EVENTS_STASHED = -1;
const NO_EVENTS = -2;
const NO_BODY = new Uint8Array(0);
const NO_MAIL = new Float64Array(0);
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true, fatal: true });
// Node's Buffer reads UTF-8 from a byte range in a third of the time of a
// TextDecoder over a subarray (the records' text is the module's own
// valid UTF-8, so the two read it alike); elsewhere the TextDecoder.
const utf8Slice = globalThis.Buffer?.prototype?.utf8Slice;
const decodeUtf8 = typeof utf8Slice === 'function'
  ? (bytes, length) => utf8Slice.call(bytes, 0, length)
  : (bytes, length) => decoder.decode(bytes.subarray(0, length));

/** The error a released request throws when it is read. */
function released() {
  return new AcdStateError('this request was released: the driver releases a transmit\'s request when its '
    + 'outcome is handed to handle() or its call is cancelled (or when free() is called); read what you '
    + 'need before then', 'REQUEST_RELEASED');
}

/**
 * The class of the requests the driver holds: the module's `ClientRequest`
 * (same members, `instanceof` holds) whose members throw `AcdStateError`
 * once it is released, and whose `free()` releases it early (and is a
 * no-op after).
 * @param {Function} Request the module's ClientRequest class
 */
function heldRequestClass(Request) {
  class ClientRequest extends Request {
    free() {
      if (this.__wbg_ptr !== 0) super.free();
    }
  }
  ClientRequest.prototype[Symbol.dispose] = ClientRequest.prototype.free;
  const guarded = (member) => function guard(...args) {
    if (this.__wbg_ptr === 0) throw released();
    return member.apply(this, args);
  };
  const members = Object.getOwnPropertyDescriptors(Request.prototype);
  for (const [name, member] of Object.entries(members)) {
    if (name === 'constructor' || name === 'free' || name.startsWith('__')) continue;
    const descriptor = { configurable: true, enumerable: member.enumerable };
    if (typeof member.value === 'function') {
      Object.defineProperty(ClientRequest.prototype, name, {
        ...descriptor, writable: true, value: guarded(member.value),
      });
    } else if (member.get || member.set) {
      Object.defineProperty(ClientRequest.prototype, name, {
        ...descriptor, get: member.get && guarded(member.get), set: member.set && guarded(member.set),
      });
    }
  }
  return ClientRequest;
}

/** Releases every request in `held` (a client's map of them). */
function releaseAll(held) {
  for (const request of held.values()) request.free();
  held.clear();
}

/** Releases the requests of a client that was collected without `free()`. */
const orphanedRequests = new FinalizationRegistry(releaseAll);

/**
 * The `Client` class over `Raw`, the driver class of one wasm module, and
 * `Request`, its ClientRequest class.
 * @param {Function} Raw
 * @param {Function} Request
 */
export function clientOver(Raw, Request) {
  const HeldRequest = heldRequestClass(Request);
  return class Client extends Raw {
    /** The module's scratch buffer as a Uint8Array (empty once detached). */
    #scratch = NO_BODY;

    /** The module's mailbox as a Float64Array (empty once detached). */
    #mailbox = NO_MAIL;

    /** The requests handed out and not yet released, by call id. */
    #held = new Map();

    constructor(...args) {
      super(...args);
      orphanedRequests.register(this, this.#held, this);
    }

    /** Releases the client and every request it still holds. */
    free() {
      orphanedRequests.unregister(this);
      releaseAll(this.#held);
      super.free();
    }

    [Symbol.dispose]() { this.free(); }

    /** The mailbox, its view fetched again after the memory grew. */
    #mail() {
      if (this.#mailbox.byteLength === 0) {
        const bytes = this.mailboxView();
        this.#mailbox = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8);
      }
      return this.#mailbox;
    }

    /**
     * The request of handle `handle` (the module hands requests over as
     * handles, see driver.rs), held for call `id`.
     */
    #hold(id, handle) {
      const request = Object.create(HeldRequest.prototype);
      request.__wbg_ptr = handle;
      this.#held.get(id)?.free(); // (one attempt per call is in flight: never there)
      this.#held.set(id, request);
      return request;
    }

    pollTransmits(nowMs) {
      const due = this.pollTransmitsMailbox(nowMs);
      if (due === 0) return [];
      if (due === 1) {
        const mail = this.#mail();
        const id = mail[0];
        return [{ id, request: this.#hold(id, mail[1]) }];
      }
      const transmits = takeStash();
      for (const transmit of transmits) transmit.request = this.#hold(transmit.id, transmit.request);
      return transmits;
    }

    pollEvents() {
      const length = this.pollEventsMailbox();
      if (length === NO_EVENTS) return [];
      if (length === EVENTS_STASHED) return takeStash();
      // A page of records and then the call's end: the records' JSON text
      // is in the scratch buffer, the rest in the mailbox.
      const mail = this.#mail();
      const id = mail[0];
      const status = mail[1];
      let view = this.#scratch;
      if (view.byteOffset !== mail[2] || view.byteLength !== mail[3]) {
        // The buffer moved (it grew) or the memory did: a fresh view.
        view = this.scratchView(0);
        this.#scratch = view;
      }
      return recordsThenDone(id, status, decodeUtf8(view, length));
    }

    cancel(id) {
      super.cancel(id);
      this.#release(id);
    }

    /** Releases the request of call `id` once its outcome was taken. */
    #release(id) {
      const request = this.#held.get(id);
      if (request !== undefined) {
        this.#held.delete(id);
        request.free();
      }
    }

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
      if (text !== undefined) {
        const id = this.startScratch(this.#write(text, NO_BODY), separators);
        if (id >= 0) return id;
      }
      return super.start(spec);
    }

    handle(id, outcome, nowMs) {
      if (outcome !== null && typeof outcome === 'object' && typeof outcome.status === 'number'
        && (outcome.type === undefined || outcome.type === 'response')) {
        const { headers, body } = outcome;
        const text = headers === undefined || headers === null ? '' : pairsText(headers);
        const bytes = body === undefined || body === null ? NO_BODY : body;
        if (text !== undefined && bytes instanceof Uint8Array) {
          const headersLength = this.#write(text, bytes);
          if (this.handleScratch(id, outcome.status, headersLength, bytes.length, separators, nowMs)) {
            this.#release(id);
            return;
          }
        }
      }
      super.handle(id, outcome, nowMs);
      this.#release(id);
    }
  };
}
