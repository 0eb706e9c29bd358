// Types of `webhooks` (from "acd") and `signWebhook` (from "acd/testing").
import type { Run } from './easy.js';

/** The raw body of a delivery, exactly as received. */
export type WebhookBody = string | Uint8Array | ArrayBuffer | ArrayBufferView;
/** Every header of the delivery: a Headers, a Map, an object (Node's `req.headers`) or [name, value] pairs. */
export type WebhookHeaders =
  | Headers
  | Map<string, string>
  | Record<string, string | string[] | undefined>
  | Array<[string, string]>;

/** How to verify. */
export interface VerifyOptions {
  /** The largest distance between the signing time and now, ms [default: the core's, 5 minutes]. */
  toleranceMs?: number;
  /** The receiver's clock: Unix ms or a Date [default: the wall clock]. */
  now?: number | Date;
  /** The same as `now`, in Unix ms. */
  nowMs?: number;
}

/** A verified webhook. */
export interface WebhookEvent {
  /** `webhook-id`: the same on every attempt of one event; dedupe on it. */
  id: string;
  /** `webhook-timestamp`: when this attempt was signed, Unix seconds. */
  webhookTimestamp: number;
  /** The event type, e.g. `run.succeeded`. */
  type: 'run.queued' | 'run.running' | 'run.succeeded' | 'run.failed' | 'run.cancelled' | (string & {});
  /** When the event happened (RFC 3339, UTC). */
  timestamp: string;
  /** The payload's `data` object. */
  data: Record<string, unknown>;
  /** From `unwrap`: the run of a run lifecycle event, else null. */
  run?: Run | null;
}

/** How `sign` signs. */
export interface SignOptions {
  /** The `webhook-id` [default: `msg_` and a random hex]. */
  id?: string;
  /** The signing time, whole Unix seconds [default: the wall clock]. */
  timestamp?: number;
  /** The signing time, Unix ms (rounded down to seconds). */
  timestampMs?: number;
}

/** A signed delivery: POST `body` with `headers` to the handler under test. */
export interface SignedWebhook {
  body: Uint8Array;
  headers: { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string };
}

/** Verification (and signing, for tests) of the API's webhooks, in the core. */
export interface Webhooks {
  /** Verifies a delivery: its event, or throws WebhookVerificationError (`code`: the core's reason). */
  verify(body: WebhookBody, headers: WebhookHeaders, secret: string | string[], options?: VerifyOptions): WebhookEvent;
  /** `verify`, then the typed decode of a run lifecycle event (`run`). */
  unwrap(body: WebhookBody, headers: WebhookHeaders, secret: string | string[], options?: VerifyOptions): WebhookEvent & { run: Run | null };
  /** Signs `payload` (an object is sent as JSON) as the API signs a delivery. */
  sign(payload: WebhookBody | Record<string, unknown>, secret: string | string[], options?: SignOptions): SignedWebhook;
}

/** The webhooks API. */
export declare const webhooks: Webhooks;
