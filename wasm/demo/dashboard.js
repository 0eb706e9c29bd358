// acd dashboard: shows the API index, pages through a table (Next fetches
// the next page, Previous goes back through the pages already loaded),
// creates a run and shows each status it goes through, shows the live
// rate-limit state, and explains errors. It uses the package's easy path,
// AcdClient: every rule (validation, throttling, retries, paging) is the
// core's. A page that would break the 5-per-minute table limit waits, with a
// visible countdown driven by the client's `waiting` event, and is then sent
// by itself. This file only logs the requests it sees and draws.
import init, { AcdClient, AcdError, fetchTransport } from './acd/js/client.js';

const $ = (id) => document.getElementById(id);
const origin = window.location.origin;
/** Counters the browser test reads (window.dashboard.stats). */
const stats = { requests: 0, statuses: [], countdowns: 0, pages: 0, rows: [], runStates: [] };
/** The pages loaded so far (each an array of records) and the one shown. */
let loaded = [];
let shown = -1;
let api;
let apiKey;
let pages;
let finished = true;
let busy = false;
let countdownTimer = null;

function element(tag, text, attributes = {}) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = String(text);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

function setState(state) {
  document.body.dataset.state = state;
}

/** fetch, with each request and its status shown in the log. */
function loggingTransport() {
  const inner = fetchTransport();
  return {
    async send(request, signal) {
      stats.requests += 1;
      const target = new URL(request.url).pathname + new URL(request.url).search;
      const line = element('li', `${request.method} ${target} …`);
      $('request-log').prepend(line);
      const outcome = await inner.send(request, signal);
      if (outcome.type === 'transport') {
        line.textContent = `${request.method} ${target} → ${outcome.failure} failure`;
        return outcome;
      }
      stats.statuses.push(outcome.status);
      line.textContent = `${request.method} ${target} → ${outcome.status}`;
      if (outcome.status >= 400) line.className = outcome.status === 429 ? 'status-429' : 'status-4xx';
      showHeaders(outcome.headers);
      return outcome;
    },
  };
}

function newClient(key) {
  api?.close();
  api = new AcdClient({
    baseUrl: origin,
    apiKey: key,
    config: { stableEgressUrl: `${origin}/egress` },
    transport: loggingTransport(),
    onEvent: (event) => { if (event.type === 'waiting') countdown(event); },
  });
  apiKey = key;
}

function showHeaders(headers) {
  const names = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after'];
  const shown = headers.filter(([name]) => names.includes(name.toLowerCase()))
    .map(([name, value]) => `${name}: ${value}`);
  $('last-headers').textContent = shown.length ? `Last response: ${shown.join(' · ')}` : '';
}

/** Shows a countdown until the waiting event's instant. */
function countdown({ until, limit }) {
  stats.countdowns += 1;
  const box = $('countdown');
  const why = limit
    ? `the ${limit.name.replaceAll('_', ' ')} limit (${limit.requests} requests per ${limit.windowSeconds} s) is used up`
    : 'the client waits before retrying';
  // The pager fetches ahead, so a wait may start while nobody is waiting
  // for the page: the countdown shows either way, the page state only
  // changes while a click waits for it.
  box.hidden = false;
  if (busy) setState('waiting');
  clearTimeout(countdownTimer);
  const tick = () => {
    const left = until - Date.now();
    if (left <= 0) {
      box.hidden = true;
      if (busy) setState('busy');
      return;
    }
    box.textContent = `Waiting ${(left / 1000).toFixed(1)} s: ${why}. The next page is sent by itself, no 429 needed.`;
    renderLimits();
    countdownTimer = setTimeout(tick, Math.min(left, 100));
  };
  tick();
}

function renderLimits() {
  const now = Date.now();
  const bars = $('limit-bars');
  bars.replaceChildren();
  for (const limit of api.limits()) {
    const share = limit.requests ? limit.remaining / limit.requests : 0;
    const resets = limit.resetAt != null ? `, resets in ${Math.ceil((limit.resetAt - now) / 1000)} s` : '';
    const row = element('div', undefined, { class: 'limit', 'data-limit': limit.name });
    row.append(element('div', `${limit.name.replaceAll('_', ' ')}: ${limit.remaining} of ${limit.requests} left${resets}`));
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

/** A cell's text: strings as they are, anything else as JSON. */
function cellText(value) {
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}

/** Draws the loaded page `at` (0-based). */
function renderPage(at) {
  shown = at;
  const records = loaded[at];
  const columns = [...new Set(records.flatMap((record) => Object.keys(record)))];
  const head = $('rows').tHead;
  head.replaceChildren(element('tr'));
  for (const column of columns) head.rows[0].append(element('th', column));
  const body = $('rows').tBodies[0];
  body.replaceChildren(...records.map((record) => {
    const row = element('tr');
    for (const column of columns) row.append(element('td', cellText(record[column])));
    return row;
  }));
  const end = finished && at === loaded.length - 1 ? ' (end of table)' : '';
  $('page-info').textContent = `page ${at + 1} of ${loaded.length} loaded${end}`;
  $('rows').dataset.page = String(at + 1);
  updatePaging();
}

/** Enables Previous when a page before is loaded, Next when one after is loaded or can be fetched. */
function updatePaging() {
  $('prev-page').disabled = busy || shown <= 0;
  $('next-page').disabled = busy || (shown >= loaded.length - 1 && finished);
}

function previousPage() {
  if (busy || shown <= 0) return;
  renderPage(shown - 1);
  setState(finished && shown === loaded.length - 1 ? 'done' : 'idle');
}

async function nextPage() {
  if (busy || !pages) return;
  if (shown < loaded.length - 1) {
    renderPage(shown + 1);
    setState(finished && shown === loaded.length - 1 ? 'done' : 'idle');
    return;
  }
  if (finished) return;
  busy = true;
  updatePaging();
  setState('busy');
  clearError();
  try {
    const next = await pages.next();
    if (next.done) finished = true;
    else {
      stats.pages += 1;
      stats.rows.push(...next.value.records);
      finished = next.value.last;
      loaded.push(next.value.records);
    }
  } catch (error) {
    finished = true;
    showError(error);
  } finally {
    busy = false;
    if (loaded.length) renderPage(loaded.length - 1);
    renderLimits();
    updatePaging();
    setState(finished ? 'done' : 'idle');
  }
}

/** Creates a run of the agent named in the form and lists each status it goes through. */
async function createRun(event) {
  event?.preventDefault();
  if ($('api-key').value !== apiKey) newClient($('api-key').value);
  clearError();
  const states = $('run-states');
  states.replaceChildren();
  stats.runStates = [];
  const show = (status) => {
    if (stats.runStates.at(-1) === status) return;
    stats.runStates.push(status);
    states.append(element('li', status, { 'data-status': status }));
  };
  $('run-form').dataset.state = 'busy';
  $('create-run').disabled = true;
  try {
    const text = $('run-input').value.trim();
    const run = await api.runs.create($('run-agent').value, text ? { input: JSON.parse(text) } : {});
    $('run-id').textContent = run.id;
    show(run.status);
    const done = await api.runs.wait(run.id, { intervalMs: 250, onStatus: (status) => show(status) });
    show(done.status);
    $('run-form').dataset.state = 'done';
  } catch (error) {
    showError(error);
    $('run-form').dataset.state = 'failed';
  } finally {
    $('create-run').disabled = false;
    renderLimits();
  }
}

async function loadTable(event) {
  event?.preventDefault();
  if (busy) return;
  clearError();
  stats.pages = 0;
  stats.rows = [];
  loaded = [];
  shown = -1;
  $('rows').tHead.replaceChildren();
  $('rows').tBodies[0].replaceChildren();
  $('page-info').textContent = '';
  if ($('api-key').value !== apiKey) newClient($('api-key').value);
  await pages?.return();
  pages = api.tables.pages($('table-id').value, { pageSize: Number($('page-size').value) });
  finished = false;
  $('table-title').textContent = $('table-id').value;
  await nextPage();
}

async function loadIndex() {
  try {
    renderIndex(await api.index());
  } catch (error) {
    showError(error);
  }
}

async function main() {
  await init();
  $('base-url').value = origin;
  newClient($('api-key').value);
  window.dashboard = { stats, nextPage, previousPage, loadTable, createRun };
  $('table-form').addEventListener('submit', loadTable);
  $('next-page').addEventListener('click', nextPage);
  $('prev-page').addEventListener('click', previousPage);
  $('run-form').addEventListener('submit', createRun);
  setInterval(() => { if (api) renderLimits(); }, 500);
  await loadIndex();
  setState('idle');
}

main().catch((error) => {
  showError(error);
  setState('failed');
});
