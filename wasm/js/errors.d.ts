/** Machine-readable error codes. */
export type AcdErrorCode =
  | "INVALID_CONFIG"
  | "INVALID_ARGUMENT"
  | "ALREADY_ANSWERED"
  | "API_ERROR"
  | "PROTOCOL_ERROR"
  | "INVALID_REQUEST"
  | (string & {});

/** Base class of every error acd-wasm throws. */
export class AcdError extends Error {
  constructor(message: string, code: AcdErrorCode, details?: Record<string, unknown>);
  readonly code: AcdErrorCode;
  [extra: string]: unknown;
}
/** A gate configuration or credential table was refused. */
export class AcdConfigError extends AcdError {}
/** An argument had the wrong type or value. */
export class AcdArgumentError extends AcdError {}
/** An object was used after it was spent (e.g. answered twice). */
export class AcdStateError extends AcdError {}
/** The API answered with an error response. */
export class AcdApiError extends AcdError {
  readonly status: number;
  readonly detail: string;
}
/** A response did not follow the protocol. */
export class AcdProtocolError extends AcdError {}
/** A request could not be built (invalid parameters). */
export class AcdRequestError extends AcdError {
  readonly problems: Array<{ parameter: string; problem: string }>;
}
/** Used by the wasm module. */
export function createAcdError(
  className: string, code: string, message: string, details?: Record<string, unknown>,
): AcdError;
