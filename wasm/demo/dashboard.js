// acd dashboard: shows the API index, pages through a table, shows the live
// rate-limit state, and explains errors. acd (./pkg, the wasm package) owns
// every rule: requests are built and validated by the client, each send is
// planned by its throttle (a page that would break the 5-per-minute table
// limit waits, with a visible countdown, and is then sent by itself), and
// responses and errors are interpreted by it. This file only moves bytes
// (fetch) and draws.
import init, { AcdError, Call, Client, Pager } from './pkg/index.js';

const $ = (id) => document.getElementById(id);
const origin = window.location.origin;
/** Counters the browser test reads (window.dashboard.stats). */
const stats = { requests: 0, statuses: [], countdowns: 0, pages: 0, rows: [] };
let client;
let clientKey;
let pager;
let busy = false;

function element(tag, text, attributes = {}) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = String(text);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

function setState(state) {
  document.body.dataset.state = state;
}

function newClient(apiKey) {
  const next = new Client({
    base_url: origin,
    stable_egress_url: `${origin}/egress`,
    credentials: [{ id: 'dashboard', kind: 'api_key', secret: apiKey, user: 'me' }],
  });
  client?.free();
  client = next;
  clientKey = apiKey;
}

/** The transport: one fetch, its outcome in the shape acd takes. */
async function send(request) {
  stats.requests += 1;
  const line = element('li', `${request.method} ${request.target} …`);
  $('request-log').prepend(line);
  try {
    const response = await fetch(request.url, {
      method: request.method, headers: request.headers, body: request.body ?? undefined,
    });
    const body = new Uint8Array(await response.arrayBuffer());
    stats.statuses.push(response.status);
    line.textContent = `${request.method} ${request.target} → ${response.status}`;
    if (response.status >= 400) line.className = response.status === 429 ? 'status-429' : 'status-4xx';
    showHeaders(response.headers);
    return { status: response.status, headers: response.headers, body };
  } catch {
    line.textContent = `${request.method} ${request.target} → network error`;
    return { transport: 'connect' };
  }
}

function showHeaders(headers) {
  const names = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After'];
  const shown = names.filter((name) => headers.has(name)).map((name) => `${name}: ${headers.get(name)}`);
  $('last-headers').textContent = shown.length ? `Last response: ${shown.join(' · ')}` : '';
}

/** The limit the client is waiting for at `now` (the one ready last). */
function blockingLimit(now) {
  return client.limits(now).reduce((worst, limit) => (!worst || limit.readyAt > worst.readyAt ? limit : worst), undefined);
}

/** Shows a countdown until `until` (Unix ms), then resolves. */
function countdown(until) {
  stats.countdowns += 1;
  const box = $('countdown');
  const limit = blockingLimit(Date.now());
  const why = limit
    ? `the ${limit.name.replaceAll('_', ' ')} limit (${limit.limit} requests per window) is used up`
    : 'the rate limit';
  box.hidden = false;
  setState('waiting');
  return new Promise((resolve) => {
    const tick = () => {
      const left = until - Date.now();
      if (left <= 0) {
        box.hidden = true;
        setState('busy');
        resolve();
        return;
      }
      box.textContent = `Waiting ${(left / 1000).toFixed(1)} s: ${why}. The next page is sent by itself, no 429 needed.`;
      renderLimits();
      setTimeout(tick, Math.min(left, 100));
    };
    tick();
  });
}

/** Drives a Call or Pager until it reports something other than a retry. */
async function drive(machine) {
  for (;;) {
    const step = machine.poll(client, Date.now());
    if (step.kind === 'wait') {
      await countdown(step.until);
    } else if (step.kind === 'send') {
      const outcome = await send(step.request);
      step.request.free();
      const event = machine.handle(client, outcome, Date.now());
      renderLimits();
      if (event?.kind !== 'retrying') return event;
    } else {
      return undefined;
    }
  }
}

function renderLimits() {
  const now = Date.now();
  const bars = $('limit-bars');
  bars.replaceChildren();
  for (const limit of client.limits(now)) {
    const share = limit.limit ? limit.remaining / limit.limit : 0;
    const resets = limit.resetAt !== undefined ? `, resets in ${Math.ceil((limit.resetAt - now) / 1000)} s` : '';
    const row = element('div', undefined, { class: 'limit', 'data-limit': limit.name });
    row.append(element('div', `${limit.name.replaceAll('_', ' ')}: ${limit.remaining} of ${limit.limit} left${resets}`));
    const bar = element('div', undefined, { class: `bar${share === 0 ? ' empty' : share < 0.4 ? ' low' : ''}` });
    bar.append(element('span', undefined, { style: `width: ${Math.round(share * 100)}%` }));
    row.append(bar);
    bars.append(row);
  }
}

function showError(error) {
  const panel = $('error');
  panel.hidden = false;
  const isAcd = error instanceof AcdError;
  $('error-status').textContent = isAcd && error.status !== undefined ? String(error.status) : '';
  panel.dataset.status = isAcd && error.status !== undefined ? String(error.status) : '';
  panel.dataset.code = isAcd ? error.code : 'UNEXPECTED';
  $('error-message').textContent = error.message;
  const fields = $('error-fields');
  fields.replaceChildren();
  const add = (name, value) => {
    if (value === undefined) return;
    fields.append(element('dt', name), element('dd', typeof value === 'string' ? value : JSON.stringify(value)));
  };
  add('kind', error.name);
  if (isAcd) {
    add('code', error.code);
    add('detail', error.detail);
    add('parameters', error.problems?.map((p) => `${p.parameter}: ${p.problem}`).join('; '));
    if (error.extra && Object.keys(error.extra).length) add('more', error.extra);
    if (!['API', 'PROTOCOL', 'TRANSPORT', 'GAVE_UP'].includes(error.code)) add('sent', 'no: refused before any request');
  }
}

function clearError() {
  $('error').hidden = true;
}

function renderIndex(index) {
  $('api-name').textContent = `${index.name} · ${index.version}`;
  const fields = $('index-fields');
  fields.replaceChildren();
  const limits = index.rate_limits;
  for (const [name, value] of [
    ['name', index.name], ['version', index.version], ['base URL', index.base_url],
    ['rate limit', `${limits.requests} requests per ${limits.window_seconds} s${limits.scope ? ` per ${limits.scope}` : ''}`],
    ['docs', index.documentation_url],
  ]) fields.append(element('dt', name), element('dd', value));
  $('index-resources').replaceChildren(
    ...Object.entries(index.resources).map(([name, url]) => element('li', `${name}: ${url}`)),
  );
}

function renderPage(records, last) {
  stats.pages += 1;
  stats.rows.push(...records);
  const columns = [...new Set(records.flatMap((record) => Object.keys(record)))];
  const head = $('rows').tHead;
  head.replaceChildren(element('tr'));
  for (const column of columns) head.rows[0].append(element('th', column));
  const body = $('rows').tBodies[0];
  body.replaceChildren(...records.map((record) => {
    const row = element('tr');
    for (const column of columns) row.append(element('td', JSON.stringify(record[column] ?? null)));
    return row;
  }));
  $('page-info').textContent = `page ${stats.pages}${last ? ' (end of table)' : ''}`;
  $('rows').dataset.page = String(stats.pages);
}

async function nextPage() {
  if (busy || !pager || pager.isFinished) return;
  busy = true;
  $('next-page').disabled = true;
  setState('busy');
  clearError();
  try {
    const event = await drive(pager);
    if (event?.kind === 'page') renderPage(event.records, event.last);
    else if (event?.kind === 'failed') showError(event.error);
  } catch (error) {
    showError(error);
  } finally {
    busy = false;
    $('next-page').disabled = !pager || pager.isFinished;
    setState(pager?.isFinished ? 'done' : 'idle');
  }
}

async function loadTable(event) {
  event?.preventDefault();
  if (busy) return;
  clearError();
  stats.pages = 0;
  stats.rows = [];
  $('rows').tHead.replaceChildren();
  $('rows').tBodies[0].replaceChildren();
  $('page-info').textContent = '';
  try {
    if ($('api-key').value !== clientKey) newClient($('api-key').value);
    pager?.free();
    pager = Pager.table($('table-id').value, { pageSize: Number($('page-size').value) });
    $('table-title').textContent = $('table-id').value;
  } catch (error) {
    showError(error);
    return;
  }
  await nextPage();
}

async function loadIndex() {
  const call = new Call(client.build({ operation: 'getApiIndex' }));
  const event = await drive(call);
  call.free();
  if (event?.ok) renderIndex(event.response.index);
  else if (event) showError(event.error);
}

async function main() {
  await init();
  $('base-url').value = origin;
  newClient($('api-key').value);
  window.dashboard = { stats, nextPage, loadTable };
  $('table-form').addEventListener('submit', loadTable);
  $('next-page').addEventListener('click', nextPage);
  setInterval(() => { if (client) renderLimits(); }, 500);
  await loadIndex();
  setState('idle');
}

main().catch((error) => {
  showError(error);
  setState('failed');
});
