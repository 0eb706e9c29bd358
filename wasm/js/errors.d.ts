/** Machine-readable error codes. */
export type AcdErrorCode =
  | "INVALID_CONFIG"
  | "INVALID_ARGUMENT"
  | "ALREADY_ANSWERED"
  | "API"
  | "PROTOCOL"
  | "TRANSPORT"
  | "GAVE_UP"
  | "INVALID_PARAMS"
  | "UNKNOWN_OPERATION"
  | "MISSING_PATH_PARAM"
  | "BAD_PATH_PARAM"
  | "NO_CREDENTIAL"
  | "UNKNOWN_CREDENTIAL"
  | "CREDENTIAL_NOT_ACCEPTED"
  | "STABLE_EGRESS_UNAVAILABLE"
  | "KEYSET_VALUE_MISSING"
  | (string & {});

/** Base class of every error acd-wasm throws. */
export class AcdError extends Error {
  constructor(message: string, code: AcdErrorCode, details?: Record<string, unknown>);
  readonly code: AcdErrorCode;
  /** For client errors: the core's category (the class follows from it). */
  readonly category?:
    | "config" | "request" | "authentication" | "permission" | "not_found" | "rate_limit"
    | "server" | "connection" | "timeout" | "interrupted" | "protocol" | "cancelled";
  /** For client errors: the core's JSON form (`{kind, ...}`). */
  readonly data?: { kind: string; [member: string]: unknown };
  [extra: string]: unknown;
}
/** A gate configuration or credential table was refused. */
export class AcdConfigError extends AcdError {}
/** An argument had the wrong type or value. */
export class AcdArgumentError extends AcdError {}
/** An object was used after it was spent (e.g. answered twice). */
export class AcdStateError extends AcdError {}
/** The API answered with an error response (also after retries gave up). */
export class AcdApiError extends AcdError {
  readonly status: number;
  readonly detail: string;
  /** The body's other members (e.g. the 400 `errors` array, the 429 `limit`). */
  readonly extra: Record<string, unknown>;
}
/** A response did not follow the protocol (a redirect, a malformed or over-large body). */
export class AcdProtocolError extends AcdApiError {}
/** A request could not be built; nothing was sent. */
export class AcdRequestError extends AcdError {
  readonly problems?: Array<{ parameter: string; problem: string }>;
}
/** The transport failed and the call was not retried (further). */
export class AcdTransportError extends AcdError {}
/** Used by the wasm module. */
export function createAcdError(
  className: string, code: string, message: string, details?: Record<string, unknown>,
): AcdError;
