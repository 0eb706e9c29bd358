// A typed example of the acd package, checked by `tsc --noEmit --strict`
// against the shipped .d.ts (scripts/test-wasm), never run. It imports the
// package by name, so the check also covers package.json `exports`/`types`,
// and it touches every exported name of the SDK: the client, its typed
// documents, the errors, the gate and the testing helpers.
import init, {
  AcdApiError, AcdArgumentError, AcdCancelledError, AcdClient, AcdConfigError, AcdError, AcdProtocolError,
  AcdRequestError, AcdStateError, AcdTransportError, AuthenticationError, BadRequestError, ConnectionError,
  NotFoundError, PermissionDeniedError, RateLimitError, ServerError, TimeoutError, classOfCategory,
  classifyFetchError, errorFromCore, fetchTransport, systemClock, systemTimers, version,
  WebhookVerificationError, webhooks,
} from 'acd';
import type {
  ApiIndex, ErrorCategory, LimitState, Page, Run, Transport, VisibleEvent, WaitingEvent,
  WebhookErrorCode, WebhookEvent,
} from 'acd';
import { AcdError as SameAcdError } from 'acd/errors';
import { AcdClient as AliasClient } from 'acd/client';
import initGate, { Admitted, Driver, Gate, GateResponse, simulate } from 'acd/gate';
import type { GateConfig, GateRequestInit } from 'acd/gate';
import { TestServer, VirtualClock, gateTransport, signWebhook } from 'acd/testing';

interface Order { id: number; sku: string }

/** Every row of the SDK's table (docs/sdk.md). */
export async function sdk(signal: AbortSignal): Promise<number> {
  await init(); // browsers: fetches the .wasm next to the module; Node: already done
  const lines: string[] = [];
  const api = new AcdClient({
    baseUrl: 'https://api.example.com', apiKey: 'acd_live_demo_ada',
    onEvent: (event: VisibleEvent) => { if (event.type === 'waiting') void event.limit?.windowSeconds; },
    logger: (line) => { lines.push(line); },
  });
  const index: ApiIndex = await api.index({ signal, timeoutMs: 5_000 });
  let total = index.version.length + index.rate_limits.requests + index.authentication.methods.length;
  const page: Order[] = await api.tables.read<Order>('orders', { pageSize: 100, headers: { Prefer: 'code=200' } });
  total += page.length;
  for await (const order of api.tables.iter<Order>('orders', { pageSize: 100, signal, maxAttempts: 3 })) {
    total += order.id;
  }
  for await (const p of api.tables.pages<Order>('orders', { orderBy: 'id', uniqueOrder: true })) {
    const typed: Page<Order> = p;
    total += typed.records.length + (typed.last ? 1 : 0);
  }
  const contacts = await api.connections.read<{ email: string }>('crm', 'contacts', { filter: '{}' });
  total += contacts.length;
  for await (const contact of api.connections.iter<{ email: string }>('crm', 'contacts')) total += contact.email.length;
  for await (const p of api.connections.pages('crm', 'contacts', { pageSize: 50 })) total += p.page;
  const created: Run = await api.runs.create('agent-1', { input: { question: 'why?' } });
  const got: Run = await api.runs.get(created.id);
  const run: Run = await api.runs.wait(got.id, {
    intervalMs: 1_000, timeoutMs: 600_000, onStatus: (status) => { total += status.length; },
  });
  total += run.status.length + (run.created_at_ms ?? 0);
  const raw = await api.request<{ data: Order[] }>('listTableRecords', { path: { id: 'orders' }, query: { limit: 5 } });
  total += raw.data.length;
  const limits: LimitState[] = api.limits();
  total += limits.length + (limits[0]?.windowSeconds ?? 0) + (api.idle ? 1 : 0);
  api.close();
  return total + lines.length + new AliasClient().limits().length;
}

/** The gate (server role), from "acd/gate". */
export async function serveOne(request: GateRequestInit): Promise<GateResponse> {
  await initGate();
  const config: GateConfig = { baseUrl: 'http://127.0.0.1:8080', limits: { credential: { requests: 100, windowMs: 60_000 } } };
  const gate = new Gate(config, [{ secret: 'acd_live_demo_ada', id: 'key-ada', kind: 'apiKey', user: 'ada', scopes: [] }]);
  const decision: GateResponse | Admitted = gate.decide(request, Date.now());
  if (decision instanceof GateResponse) return decision;
  void simulate; void new Driver(new TextEncoder().encode('{}')).poll(Date.now());
  return decision.respondFound(JSON.stringify([{ owner: decision.user ?? null }]));
}

/** The testing helpers: the client against an in-process gate in virtual time. */
export async function virtual(): Promise<Order[]> {
  const clock = new VirtualClock(1_700_000_000_000);
  const transport: Transport = gateTransport({ clock, tables: { orders: [{ id: 1, sku: 'a' }] }, limits: { user_table_reads: { requests: 5, windowMs: 60_000 } } });
  const server = new TestServer({ runs: { run_1: { finishesAfterMs: 100, finalState: 'succeeded' } } });
  void server.exchange({ url: '/api/v1' }, clock.now()); void server.log(); void server.statuses;
  const api = new AcdClient({ apiKey: 'acd_live_demo_ada', clock, timers: clock, transport });
  const rows: Order[] = [];
  await clock.run((async () => { for await (const row of api.tables.iter<Order>('orders')) rows.push(row); })());
  return rows;
}

/** The errors: one class per category. */
export function explain(error: unknown): string {
  void classifyFetchError(error); void version(); void systemClock.now(); void systemTimers;
  const category: ErrorCategory = 'rate_limit';
  const Class: typeof AcdError = classOfCategory(category);
  void Class; void errorFromCore({ type: 'x', category: 'timeout', message: 'm' });
  const waiting: WaitingEvent = { type: 'waiting', call: 1, until: 0, reason: 'quota', message: 'waiting 1.0 s' };
  void waiting;
  if (error instanceof RateLimitError) return `retry at ${error.retryAt ?? 'unknown'}`;
  if (error instanceof BadRequestError || error instanceof AuthenticationError || error instanceof PermissionDeniedError
    || error instanceof NotFoundError || error instanceof ServerError || error instanceof AcdProtocolError) {
    return `${error.status}`;
  }
  if (error instanceof AcdApiError) return `${error.status}: ${error.detail ?? ''}`;
  if (error instanceof AcdConfigError || error instanceof AcdArgumentError || error instanceof AcdStateError
    || error instanceof AcdRequestError || error instanceof AcdTransportError || error instanceof ConnectionError
    || error instanceof TimeoutError || error instanceof AcdCancelledError || error instanceof SameAcdError) {
    return `${error.name} (${error.code}, ${error.category ?? '-'}): ${error.message}`;
  }
  return error instanceof AcdError ? error.message : String(error);
}

// Wrong uses the types must refuse.
// @ts-expect-error the time is a number of Unix milliseconds
Gate.demo(null).decide({ target: '/api/v1' }, new Date());
// @ts-expect-error records are typed by iter<T>()
export const wrong: Promise<IteratorResult<string>> = new AcdClient().tables.iter<number>('t').next();
// @ts-expect-error durations are milliseconds (numbers)
void new AcdClient().index({ timeoutMs: '5s' });

/** A webhook handler: verify the raw body, then act on the typed event. */
export function hook(body: string, headers: Record<string, string | string[] | undefined>): number {
  const signed = signWebhook({ type: 'run.succeeded', timestamp: 't', data: { run: { id: 'r', status: 'succeeded' } } },
    'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', { id: 'msg_1', timestamp: 1_700_000_000 });
  const check: WebhookEvent = webhooks.verify(signed.body, signed.headers, ['whsec_a', 'whsec_b'],
    { now: new Date(), toleranceMs: 60_000 });
  void check.webhookTimestamp;
  try {
    const event = webhooks.unwrap(body, headers, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    return event.type === 'run.succeeded' && event.run?.status === 'succeeded' ? 204 : 202;
  } catch (error) {
    if (error instanceof WebhookVerificationError) {
      const code: WebhookErrorCode = error.code;
      return code === 'timestamp_out_of_tolerance' ? 400 : 401;
    }
    throw error;
  }
}
// @ts-expect-error only the raw body verifies, not a parsed object
webhooks.verify({ type: 'run.queued' }, {}, 'whsec_a');
