// The SDK conformance kit (tests/vectors/sdk-scenarios.json) replayed
// through AcdClient: a VirtualClock is the clock and the timers, and the
// transport is the package's own fetchTransport over a scripted `fetch` that
// plays the scenario's server (answers, delays, refused and reset
// connections as undici reports them, answers that never come). No Node
// import here, so the same module runs in a browser page.

/** Waits `ms` on `clock`, rejecting with the signal's reason on abort (as fetch does). */
function pause(clock, ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) { reject(signal.reason); return; }
    const handle = Number.isFinite(ms) ? clock.setTimeout(resolve, ms) : null;
    signal?.addEventListener('abort', () => {
      if (handle !== null) clock.clearTimeout(handle);
      reject(signal.reason);
    }, { once: true });
  });
}

/** The TypeError undici's fetch rejects with, its cause carrying `code`. */
function fetchFailed(code, message) {
  const cause = Object.assign(new Error(message), { code });
  return new TypeError('fetch failed', { cause });
}

/** The scenario's server as a `fetch`: records every request, answers by route in arrival order. */
export function scriptedFetch(scenario, baseUrl, clock) {
  const routes = new Map(Object.entries(scenario.server).map(([route, answers]) => [route, [...answers]]));
  const sent = [];
  const decoder = new TextDecoder();
  const fetch = async (url, init = {}) => {
    const relative = url.startsWith(baseUrl) ? url.slice(baseUrl.length) : url;
    const headers = new Headers(init.headers);
    const text = init.body === undefined ? '' : (typeof init.body === 'string' ? init.body : decoder.decode(init.body));
    sent.push({ at: clock.now(), method: init.method, url: relative, headers, body: text ? JSON.parse(text) : null });
    const answer = routes.get(`${init.method} ${relative}`)?.shift() ?? { status: 599, headers: [], body: null };
    const delay = answer.delay_ms ?? 0;
    switch (answer.fail) {
      case 'refuse':
        throw fetchFailed('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:8080');
      case 'connect_timeout':
        await pause(clock, delay, init.signal);
        throw fetchFailed('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error');
      case 'timeout':
        await pause(clock, Infinity, init.signal);
        break;
      case 'reset':
        await pause(clock, delay, init.signal);
        throw fetchFailed('ECONNRESET', 'read ECONNRESET');
      default:
        await pause(clock, delay, init.signal);
    }
    const body = answer.body === null || answer.body === undefined ? null : JSON.stringify(answer.body);
    return new Response(body, { status: answer.status, headers: answer.headers });
  };
  return { fetch, sent };
}

/** The options of AcdClient's methods for a kit call. */
function callOptions(call) {
  const options = {};
  if (call.options?.timeout_ms !== undefined) options.timeoutMs = call.options.timeout_ms;
  if (call.options?.max_attempts !== undefined) options.maxAttempts = call.options.max_attempts;
  return options;
}

/** Calls the kit method of `call` on `api`. */
async function invoke(api, call) {
  const { args } = call;
  const options = callOptions(call);
  switch (call.method) {
    case 'tables.read': return api.tables.read(args.table, { ...options, pageSize: args.page_size });
    case 'tables.pages': {
      const pages = [];
      for await (const page of api.tables.pages(args.table, { ...options, pageSize: args.page_size })) pages.push(page.records);
      return pages;
    }
    case 'connections.read': return api.connections.read(args.connection, args.entity, { ...options, pageSize: args.page_size });
    case 'runs.create': return api.runs.create(args.agent_id, { ...options, input: args.input });
    case 'runs.wait': return api.runs.wait(args.run_id, options);
    case 'index': return api.index(options);
    default: throw new Error(`unknown kit method ${call.method}`);
  }
}

/** Replays `scenario` through `AcdClient`; resolves to the requests sent and each call's outcome. */
export async function replay({ AcdClient, fetchTransport, VirtualClock }, kit, scenario) {
  const settings = { ...kit.client, ...(scenario.client ?? {}) };
  const clock = new VirtualClock(scenario.start_ms);
  const server = scriptedFetch(scenario, settings.base_url, clock);
  const transport = fetchTransport({ fetch: server.fetch, timers: clock, timeoutMs: settings.exchange_timeout_ms });
  const api = new AcdClient({
    baseUrl: settings.base_url, apiKey: settings.api_key, clock, timers: clock, transport,
    config: { seed: settings.seed, retry: { backoff: { base_ms: settings.backoff_base_ms, cap_ms: settings.backoff_cap_ms } } },
  });
  const outcomes = {};
  try {
    for (const step of scenario.steps) {
      if (step.at !== undefined && step.at > clock.now()) clock.advanceTo(step.at);
      const calls = step.calls.map(async (call) => {
        const outcome = (outcomes[call.id] = {});
        try { outcome.value = await invoke(api, call); } catch (error) { outcome.error = error; }
        outcome.endsAt = clock.now();
      });
      await clock.run(Promise.all(calls));
    }
  } finally {
    api.close();
  }
  return { sent: server.sent, outcomes };
}

const within = (expected, actual) => (typeof expected === 'object' && expected !== null
  ? actual >= expected.min && actual <= expected.max : actual === expected);

/** Deep equality of JSON values. */
function same(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => same(a[key], b[key]));
}

/** Every difference between what a replay saw and what the scenario expects. */
export function problems(kit, scenario, { sent, outcomes }, language = 'js') {
  const found = [];
  const seen = sent.map((r) => `${r.at} ${r.method} ${r.url}`);
  if (scenario.expect_requests.length !== sent.length) {
    found.push(`${scenario.expect_requests.length} requests expected, ${sent.length} sent: ${seen.join(', ')}`);
  }
  const used = sent.map(() => false);
  for (const want of scenario.expect_requests) {
    const index = sent.findIndex((r, i) => !used[i] && r.method === want.method && r.url === want.url && within(want.at, r.at));
    if (index < 0) { found.push(`no request matches ${JSON.stringify(want.at)} ${want.method} ${want.url}; sent ${seen.join(', ')}`); continue; }
    used[index] = true;
    const request = sent[index];
    for (const [name, value] of Object.entries({ ...kit.every_request_headers, ...(want.headers ?? {}) })) {
      if (request.headers.get(name) !== value) found.push(`${want.url}: header ${name} is ${request.headers.get(name)}`);
    }
    for (const name of want.absent_headers ?? []) if (request.headers.has(name)) found.push(`${want.url}: header ${name} should be absent`);
    if ('body' in want && !same(request.body, want.body)) found.push(`${want.url}: body ${JSON.stringify(request.body)}`);
  }
  for (const [id, want] of Object.entries(scenario.expect)) {
    const got = outcomes[id];
    if ('value' in want && (got.error !== undefined || !same(got.value, want.value))) {
      found.push(`${id}: got ${JSON.stringify(got.value)} / ${got.error?.constructor?.name}: ${got.error?.message}`);
    }
    if (want.error) found.push(...errorProblems(id, want.error, got.error, language));
    if ('ends_at' in want && !within(want.ends_at, got.endsAt)) found.push(`${id}: ended at ${got.endsAt}, expected ${JSON.stringify(want.ends_at)}`);
  }
  const multiset = scenario.expect_ends_at?.multiset;
  if (multiset) {
    const ends = Object.values(outcomes).map((o) => o.endsAt).sort();
    if (!same(ends, [...multiset].sort())) found.push(`calls ended at ${ends}, expected ${multiset}`);
  }
  return found;
}

function errorProblems(id, want, error, language) {
  if (error === undefined) return [`${id}: no error`];
  const found = [];
  const name = error.constructor?.name;
  if (name !== want.class[language]) found.push(`${id}: ${name} (${error.message}), expected ${want.class[language]}`);
  if (error.category !== want.category) found.push(`${id}: category ${error.category}, expected ${want.category}`);
  if ((error.status ?? null) !== want.status) found.push(`${id}: status ${error.status}, expected ${want.status}`);
  if ('retry_at' in want && (error.retryAt ?? null) !== want.retry_at) found.push(`${id}: retryAt ${error.retryAt}, expected ${want.retry_at}`);
  for (const part of want.message_contains ?? []) if (!String(error.message).includes(part)) found.push(`${id}: message ${JSON.stringify(error.message)} lacks ${JSON.stringify(part)}`);
  return found;
}

/** The issue item a known failure of `name` names in `language`'s list, or undefined. */
export function knownFailure(kit, language, name) {
  return (kit.known_failures[language] ?? []).find((entry) => entry.scenario === name)?.issue;
}
