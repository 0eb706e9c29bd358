// A typed example of the acd package, checked by `tsc --noEmit --strict`
// against the shipped .d.ts (scripts/test-wasm), never run. It imports the
// package by name, so the check also covers package.json `exports`/`types`,
// and it touches every exported name: the easy path, the driver, the gate,
// the low-level parts, the errors and the testing helpers.
import init, {
  AcdApiError, AcdArgumentError, AcdClient, AcdConfigError, AcdError, AcdProtocolError,
  AcdRequestError, AcdStateError, AcdTransportError, Admitted, Client, ClientRequest, Gate,
  GateResponse, RetryPlanner, Throttle, agentRunOperation, classifyFetchError, clientErrorFromJSON, fetchTransport,
  nowMs, parseDeprecation, parseRateLimitHeaders, randomEntropy, standardCatalogue, systemClock,
  systemTimers, version,
} from 'acd';
import type {
  AcdEvent, AcdErrorCode, ClientConfig, GateConfig, GateRequestInit, LimitState, Outcome, Page,
  Transmit, Transport, WaitingEvent,
} from 'acd';
import { AcdError as SameAcdError } from 'acd/errors';
import initClientModule, {
  AcdClient as BrowserClient, Client as BrowserDriver, fetchTransport as browserFetch,
} from 'acd/client';
import { SandboxClock, VirtualClock, gateTransport } from 'acd/testing';

interface Order { id: number; sku: string }

/** The browser's client module ("acd/client"): the same easy path, smaller. */
export async function browserOnly(): Promise<number> {
  await initClientModule();
  const api = new BrowserClient({ baseUrl: 'https://api.example.com', apiKey: 'k', transport: browserFetch() });
  let rows = 0;
  for await (const order of api.tables.iter<Order>('orders')) rows += order.id;
  const driver: BrowserDriver = new BrowserDriver({ baseUrl: 'https://api.example.com' });
  return rows + driver.pollTransmits(Date.now()).length;
}

/** The easy path: index, a table, a connection, a run. */
export async function easy(signal: AbortSignal): Promise<number> {
  await init(); // browsers: fetches the .wasm next to the module; Node: already done
  const api = new AcdClient({
    baseUrl: 'https://api.example.com', apiKey: 'acd_live_demo_ada', user: 'ada',
    onEvent: (event) => { if (event.type === 'waiting') void event.limit?.windowSeconds; },
  });
  const index = await api.index({ signal });
  let total = index.version.length;
  for await (const order of api.tables.iter<Order>('orders', { pageSize: 100, signal })) {
    total += order.id;
  }
  for await (const page of api.tables.pages<Order>('orders', { orderBy: 'id', uniqueOrder: true })) {
    const typed: Page<Order> = page;
    total += typed.records.length + (typed.last ? 1 : 0);
  }
  for await (const contact of api.connections.iter<{ email: string }>('crm', 'contacts', { filter: '{}' })) {
    total += contact.email.length;
  }
  const run = await api.runs.wait<{ status: string }>('run-1', {
    intervalMs: 1_000, onStatus: (status) => { total += status.length; },
  });
  total += run.status.length;
  const limits: LimitState[] = api.limits();
  total += limits.length;
  api.close();
  return total;
}

/** The driver loop by hand, over any transport (~15 lines). */
export async function drive(transport: Transport): Promise<AcdEvent[]> {
  const config: ClientConfig = { baseUrl: 'https://api.example.com', credentials: [
    { id: 'main', kind: 'apiKey', secret: 'acd_live_demo_ada', user: 'ada' }] };
  const client = new Client(config, randomEntropy());
  const id: number = client.start({ operation: 'listTableRecords', path: { id: 'orders' } });
  const seen: AcdEvent[] = [];
  for (;;) {
    const transmits: Transmit[] = client.pollTransmits(systemClock.now());
    for (const transmit of transmits) {
      const request: ClientRequest = transmit.request;
      const outcome: Outcome = await transport.send({ method: request.method, url: request.url, headers: request.headers });
      client.handle(transmit.id, outcome, nowMs());
    }
    for (const { id: call, event } of client.pollEvents()) {
      seen.push(event);
      if (call === id && (event.type === 'done' || event.type === 'failed')) return seen;
      if (event.type === 'page') void event.records.length;
    }
    const wake = client.pollTimeout();
    if (wake !== undefined) await new Promise((resolve) => systemTimers.setTimeout(() => resolve(undefined), wake - Date.now()));
  }
}

/** The gate (server role). */
export function serveOne(request: GateRequestInit): GateResponse {
  const config: GateConfig = { baseUrl: 'http://127.0.0.1:8080', limits: { credential: { requests: 100, windowMs: 60_000 } } };
  const gate = new Gate(config, [{ secret: 'acd_live_demo_ada', id: 'key-ada', kind: 'apiKey', user: 'ada', scopes: [] }]);
  const decision: GateResponse | Admitted = gate.decide(request, nowMs());
  if (decision instanceof GateResponse) return decision;
  const pairs: Array<[string, string]> = decision.pathParams;
  if (pairs[0]?.[1] === 'missing') return decision.respondNotFound();
  return decision.respondFound(JSON.stringify([{ owner: decision.user ?? null }]));
}

/** The testing helpers: the easy path against an in-process gate in virtual time. */
export async function virtual(): Promise<Order[]> {
  const clock = new VirtualClock(1_700_000_000_000);
  const transport = gateTransport(Gate.demo(null), { clock, answer: (admitted) => admitted.respondFound('[]') });
  const api = new AcdClient({ apiKey: 'acd_live_demo_ada', clock, timers: clock, transport });
  const rows: Order[] = [];
  await clock.run((async () => { for await (const row of api.tables.iter<Order>('orders')) rows.push(row); })());
  const statuses: number[] = transport.statuses;
  void statuses;
  return rows;
}

/** The client against a real acd-sandbox on its manual clock. */
export async function againstSandbox(baseUrl: string): Promise<number> {
  const clock: SandboxClock = await SandboxClock.connect(baseUrl, { adminToken: undefined });
  const api = new AcdClient({ baseUrl, apiKey: 'acd_live_demo_ada', clock, timers: clock, transport: fetchTransport() });
  let rows = 0;
  for await (const row of api.tables.iter<Order>('orders')) { void row; rows += 1; }
  await clock.advance(1); await clock.set(clock.now()); await clock.sync();
  void clock.url; void clock.sleeps; void clock.lastError; void clock.pendingTimers;
  return rows;
}

/** The low-level parts and the errors. */
export function lowLevel(error: unknown): string {
  const throttle = new Throttle();
  const planner = new RetryPlanner(null, null, 0, 500);
  void throttle; void planner; void standardCatalogue(); void agentRunOperation();
  void parseRateLimitHeaders([['RateLimit-Remaining', '4']], nowMs());
  void parseDeprecation('getApiIndex', []);
  void clientErrorFromJSON('{"kind":"transport","failure":"timeout"}');
  void fetchTransport({ timeoutMs: 10_000 }); void classifyFetchError(error); void version();
  const waiting: WaitingEvent = { type: 'waiting', until: 0, reason: { type: 'quota' } };
  void waiting;
  if (error instanceof AcdApiError) return `${error.status}: ${error.detail}`;
  if (error instanceof AcdConfigError || error instanceof AcdArgumentError || error instanceof AcdStateError
    || error instanceof AcdProtocolError || error instanceof AcdRequestError || error instanceof AcdTransportError
    || error instanceof SameAcdError) {
    const code: AcdErrorCode = error.code;
    return `${error.name} (${code}): ${error.message}`;
  }
  return error instanceof AcdError ? error.message : String(error);
}

// Wrong uses the types must refuse.
// @ts-expect-error the time is a number of Unix milliseconds
Gate.demo(null).decide({ target: '/api/v1' }, new Date());
// @ts-expect-error credential kinds are apiKey or oauth2
new Client({ credentials: [{ id: 'i', kind: 'password', secret: 's', user: 'u' }] });
// @ts-expect-error records are typed by iter<T>()
export const wrong: Promise<IteratorResult<string>> = new AcdClient().tables.iter<number>('t').next();
