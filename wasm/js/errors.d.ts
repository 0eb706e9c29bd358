// Types of the error classes (errors.js). A client error's class follows
// from the core's `category` through one table (docs/sdk.md).

/** The core's error categories. */
export type ErrorCategory =
  | 'config' | 'invalid_request' | 'bad_request' | 'authentication' | 'permission' | 'not_found'
  | 'rate_limit' | 'server' | 'connection' | 'timeout' | 'interrupted' | 'protocol' | 'cancelled'
  /** @deprecated the former name of `invalid_request`. */
  | 'request';

/** Base class of every error the package throws. */
export class AcdError extends Error {
  constructor(message: string, code: string, details?: Record<string, unknown>);
  /** Machine-readable: the core's error type in upper case (`API`, `INVALID_PARAMS`, ...). */
  readonly code: string;
  /** For client errors: the core's category (the class follows from it). */
  readonly category?: ErrorCategory;
  /** The HTTP status, when an answer caused the error. */
  readonly status?: number;
  /** The API's own sentence when it sent an Error body, else the core's. */
  readonly detail?: string;
  /** The API's Error body when it sent one, else `null`. */
  readonly body?: Record<string, unknown> | null;
  /** Whether the failing request reached the wire. */
  readonly sent?: boolean;
  [extra: string]: unknown;
}
/** The client's setup is wrong (configuration, credentials, a closed client); nothing was sent. */ export class AcdConfigError extends AcdError {}
/** This call's arguments are wrong; nothing was sent. */
export class AcdRequestError extends AcdError {
  readonly problems?: Array<{ parameter: string; problem: string }>;
}
/** A JavaScript argument had the wrong type or value. */ export class AcdArgumentError extends AcdError {}
/** An object was used after it was spent. */ export class AcdStateError extends AcdError {}
/** The API answered with an error. */
export class AcdApiError extends AcdError {
  readonly status: number;
  readonly detail?: string;
}
/** 400 and other 4xx. */ export class BadRequestError extends AcdApiError {}
/** 401. */ export class AuthenticationError extends AcdApiError {}
/** 403. */ export class PermissionDeniedError extends AcdApiError {}
/** 404. */ export class NotFoundError extends AcdApiError {}
/** 429 (or a wait longer than accepted); `retryAt` is the server's retry time. */
export class RateLimitError extends AcdApiError {
  readonly retryAt?: number;
}
/** 5xx. */ export class ServerError extends AcdApiError {}
/** A redirect, a malformed or over-large body. */ export class AcdProtocolError extends AcdApiError {}
/** The transport failed and the call was not retried (further). */ export class AcdTransportError extends AcdError {}
/** The connection could not be made; nothing was sent. */ export class ConnectionError extends AcdTransportError {}
/** No answer in time. */ export class TimeoutError extends AcdTransportError {}
/** The connection broke after the request was sent. */ export class AcdInterruptedError extends AcdTransportError {}
/** The call was cancelled. */ export class AcdCancelledError extends AcdError {}
/** The one table: category → class. */
export const CATEGORY_CLASSES: Readonly<Record<ErrorCategory, typeof AcdError>>;
/** The class of an error of `category` (with `status` when an answer caused it). */
export function classOfCategory(category: string): typeof AcdError;
/** The error of the core's error JSON (`{type, category, message, status, detail, body, retry_at_ms, sent}`). */
export function errorFromCore(json: Record<string, unknown>): AcdError;
/** Used by the wasm modules. */
export function createAcdError(className: string, code: string, message: string): AcdError;

/** The core's reasons a webhook delivery does not verify. */
export type WebhookErrorCode =
  | 'missing_header' | 'bad_timestamp' | 'timestamp_out_of_tolerance'
  | 'no_matching_signature' | 'bad_secret' | 'bad_payload';
/** A webhook delivery failed verification (`webhooks.verify`/`unwrap`); `code` is the core's reason. */
export class WebhookVerificationError extends AcdError {
  readonly code: WebhookErrorCode;
}
