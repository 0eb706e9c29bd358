// Types of the "acd-client/gate" entry (gate.js, gate-node.js): the gate, the simulation, the Driver, the errors.
/** A limit's size. */
export interface Quota { requests: number; windowMs: number }

/** One problem with one parameter, as in a 400 `errors` array. */
export interface ParamProblem { parameter: string; problem: string }

/** Header forms: [name, value] pairs, a Headers/Map, or a plain object. */
export type HeadersInit = Iterable<[string, string | Uint8Array]> | Record<string, string | Uint8Array>;

export { default, version, Driver } from '../pkg/acd_wasm.js';
export * from './errors.js';

/** A request as the gate sees it: `target` is the path and raw query as received (default method GET, client IP 127.0.0.1). */
export interface GateRequestInit { method?: string; target: string | Uint8Array; headers?: HeadersInit; clientIp?: string }

/** What a credential store knows about one credential (no secret; `expiresAt` in Unix ms). */
export interface CredentialRecordInit {
  id: string; kind: "apiKey" | "api_key" | "oauth2"; user: string; scopes?: string[]; expiresAt?: number | null;
}

/** One entry of the gate's in-memory credential table (the secret is never shown). */
export interface CredentialInit extends CredentialRecordInit { secret: string }

/** Gate configuration (every member optional; camelCase, or the sandbox's snake_case). */
export interface GateConfig {
  version?: string; baseUrl?: string; stableEgressUrl?: string | null; apiKeyPrefix?: string;
  oauthTokenPrefix?: string; stableEgressHeader?: string; realm?: string;
  limits?: { credential?: Quota; clientIp?: Quota };
  catalogue?: unknown[];
  versionDeprecation?: { deprecatedAt: number; sunsetAt?: number | null } | null;
  /** The index document, as served (its wire member names). */
  index?: Record<string, unknown>;
}

/** A simulation (every member optional; see acd-core's `sim::SimConfig`). */
export interface SimConfig {
  seed?: number; startMs?: number; latencyMs?: number; timeoutMs?: number; maxVirtualMs?: number; dateHeader?: boolean;
  gate?: GateConfig;
  credentials?: CredentialInit[];
  dataset?: { tables: Record<string, unknown[]>; connections: Record<string, Record<string, unknown[]>>; runs: Record<string, unknown> };
  faults?: Array<{ fromMs: number; untilMs: number; perMille: number; kind: { type: "serverError"; status: number } | { type: "connect" } | { type: "timeout" }; client?: string | null }>;
  clients?: Array<{ name: string; config?: Record<string, unknown>; clientIp?: string; clockSkewMs?: number; startOffsetMs?: number; tasks?: Array<Record<string, unknown> & { type: "table" | "connection" | "pollRun" | "burst" }> }>;
  naiveClients?: boolean; naiveBaseline?: boolean;
}

/** A simulation's report (camelCase members). */
export interface SimReport {
  requestsSent: number; responses429: number; avoidable429: number; retries: number; faultsInjected: number;
  elapsedMs: number; completed: boolean; violations: string[];
  clients: Array<{ name: string; requestsSent: number; responses429: number; jobsDone: number; jobsFailed: number; [member: string]: unknown }>;
  trace: Array<{ atMs: number; client: number; job: number; what: unknown }>;
  baseline?: { requestsSent: number; responses429: number; retries: number; elapsedMs: number; completed: boolean; avoided429: number } | null;
}

/** A finished response: status, headers in order, body. */
export declare class GateResponse {
  readonly type: 'respond';
  readonly status: number;
  /** `[name, value]` pairs, in the order to send them. */
  readonly headers: Array<[string, string]>;
  /** The body's bytes, and as text (always JSON). */
  readonly body: Uint8Array;
  readonly text: string;
  /** The first value of header `name` (case-insensitive). */
  header(name: string): string | undefined;
  free(): void;
}

/** A request that passed every rule, waiting for one answer about its resource. */
export declare class Admitted {
  readonly type: 'resolve';
  readonly operationId: string;
  readonly pathParams: Array<[string, string]>;
  readonly params: Record<string, number | string>;
  readonly user: string | undefined;
  readonly credentialId: string | undefined;
  readonly stableEgress: boolean;
  /** Answers with the payload (raw JSON: the records array for reads). */
  respondFound(payload: string | Uint8Array): GateResponse;
  respondNotFound(): GateResponse;
  respondForbidden(): GateResponse;
  respondInvalid(problems: ParamProblem[]): GateResponse;
  free(): void;
}

/** The gate (server role): configuration, in-memory credentials and limits. */
export declare class Gate {
  constructor(config?: GateConfig | string | null, credentials?: CredentialInit[] | null);
  static withHashSeed(config: GateConfig | string | null, credentials: CredentialInit[] | null, hashSeed: bigint): Gate;
  static demo(config?: GateConfig | string | null): Gate;
  /** Decides `request` at `nowMs` (Unix ms). */
  decide(request: GateRequestInit, nowMs: number): GateResponse | Admitted;
  decideNow(request: GateRequestInit): GateResponse | Admitted;
  /** Two-step form: the secret to look up, if any. */
  credentialToLookUp(request: GateRequestInit): string | undefined;
  decideAnswered(request: GateRequestInit, record: CredentialRecordInit | null, nowMs: number): GateResponse | Admitted;
  indexJson(): string;
  free(): void;
}

/** Runs a simulation in virtual time; its report. */
export declare function simulate(config?: SimConfig | string | null): SimReport;
