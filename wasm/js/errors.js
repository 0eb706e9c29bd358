// Error classes of the acd package. Every failure it throws is an AcdError:
// an Error subclass whose `message` is the core's sentence, whose `code` is
// machine-readable, with the error object's other members (`status`,
// `category`, `retryAt`, `detail`, ...). Messages never contain secrets. A
// client error's class follows from the core's category through the one
// table below (CATEGORY_CLASSES, docs/sdk.md).

/** Base class of every error the package throws. */
export class AcdError extends Error {
  constructor(message, code, details) {
    super(message);
    if (details && typeof details === 'object') {
      for (const [key, value] of Object.entries(details)) {
        if (key !== 'message' && key !== 'code' && key !== 'name' && key !== 'stack') this[key] = value;
      }
    }
    this.name = new.target.name;
    this.code = code;
  }
}

/** The client's setup is wrong (configuration, credentials, a closed client); nothing was sent. */ export class AcdConfigError extends AcdError {}
/** This call's arguments are wrong; nothing was sent (`problems` for parameters). */ export class AcdRequestError extends AcdError {}
/** A JavaScript argument had the wrong type or value. */ export class AcdArgumentError extends AcdError {}
/** An object was used after it was spent (e.g. answered twice). */ export class AcdStateError extends AcdError {}
/** The API answered with an error (`status`, `detail`). */ export class AcdApiError extends AcdError {}
/** The API refused the request as malformed (400 and other 4xx). */ export class BadRequestError extends AcdApiError {}
/** The API refused the credential (401). */ export class AuthenticationError extends AcdApiError {}
/** The credential may not do this (403). */ export class PermissionDeniedError extends AcdApiError {}
/** The resource does not exist (404). */ export class NotFoundError extends AcdApiError {}
/** A rate limit refused the call (429); `retryAt` is the server's retry time (Unix ms), when given. */ export class RateLimitError extends AcdApiError {}
/** The server failed (5xx). */ export class ServerError extends AcdApiError {}
/** The server broke the API's contract (a redirect, a malformed or over-large body). */ export class AcdProtocolError extends AcdApiError {}
/** The transport failed and the call was not retried (further). */ export class AcdTransportError extends AcdError {}
/** The connection could not be made; the request was never sent. */ export class ConnectionError extends AcdTransportError {}
/** The connection broke after the request was sent (the server may have processed it). */ export class AcdInterruptedError extends AcdTransportError {}
/** No answer in time (a transport timeout, the call's `timeoutMs`, a run's deadline). */ export class TimeoutError extends AcdTransportError {}
/** The call was cancelled. */ export class AcdCancelledError extends AcdError {}
/**
 * A webhook delivery failed verification (`webhooks.verify`/`unwrap`).
 * `code` is the core's: `missing_header`, `bad_timestamp`,
 * `timestamp_out_of_tolerance`, `no_matching_signature`, `bad_secret` or
 * `bad_payload`. Answer such a delivery with a 400.
 */ export class WebhookVerificationError extends AcdError {}

/**
 * The one table: the class of a client error of each core category (core's
 * list, `ErrorCategory::classes`; a test checks it against
 * `errorCategoriesJson()`). `request`, the former name of
 * `invalid_request`, stays readable.
 */
export const CATEGORY_CLASSES = Object.freeze({
  config: AcdConfigError, invalid_request: AcdRequestError, request: AcdRequestError, bad_request: BadRequestError,
  authentication: AuthenticationError, permission: PermissionDeniedError,
  not_found: NotFoundError, rate_limit: RateLimitError, server: ServerError,
  connection: ConnectionError, timeout: TimeoutError, interrupted: AcdInterruptedError,
  protocol: AcdProtocolError, cancelled: AcdCancelledError,
});

/** The class of an error of `category`. */
export function classOfCategory(category) {
  return Object.hasOwn(CATEGORY_CLASSES, category) ? CATEGORY_CLASSES[category] : AcdError;
}

/**
 * The error of the core's flat error object (`{type, category, message,
 * status, detail, body, retry_at_ms, sent, ...}`, docs/driver-protocol.md):
 * its class from the table, `code` the type in upper case, `retryAt` (Unix
 * ms) from `retry_at_ms`.
 */
export function errorFromCore(json) {
  const { type, category, message, status, retry_at_ms: retryAt, ...rest } = json ?? {};
  const details = { ...rest, category };
  if (status !== undefined && status !== null) details.status = status;
  if (retryAt !== undefined && retryAt !== null) details.retryAt = retryAt;
  const Class = classOfCategory(category);
  return new Class(String(message ?? 'unknown error'), String(type ?? 'client').toUpperCase(), details);
}

const named = { AcdConfigError, AcdArgumentError, AcdStateError };

/** Used by the wasm modules (gate, simulation, test server): an error of class `className`. */
export const createAcdError = (className, code, message) => new (named[className] ?? AcdError)(message, code);
