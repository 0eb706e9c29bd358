// The dashboard in a real browser: headless Chromium (Debian's, driven by
// playwright-core) opens the dashboard built into the shipped sandbox
// (`dist/bin/acd-sandbox --dashboard`, run from a directory holding nothing
// but the binary), whose configuration shortens the table-read window
// (5 reads per 5 s) so the test pages past the limit in seconds. It asserts
// that no request got a 429, that the countdown appeared, that the rows
// match the table, that Previous and Next move through the loaded pages,
// that string cells show as text, that a created run shows each of its
// states, and that errors are explained with their status; screenshots go
// to target/wasm/.
//
// Needs: the shipped sandbox (dist/bin/acd-sandbox from scripts/dist, or
// $ACD_DIST_SANDBOX_BIN), /usr/bin/chromium and
// .cache/node/node_modules/playwright-core (scripts/lib/install-chromium.sh).
// Talks to 127.0.0.1 only.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { launchChromium, missingShipped, out, startShippedDashboard } from './sandbox.mjs';

const KEY = 'acd_live_dashboard_test';
const rows = Array.from({ length: 23 }, (_, i) => ({ id: i + 1, item: `item ${i + 1}`, qty: (i * 7) % 10 }));
const skip = missingShipped();

let sandbox;
let browser;
let baseUrl;

before(async () => {
  if (skip) return;
  mkdirSync(out, { recursive: true });
  sandbox = await startShippedDashboard({
    credentials: [{ secret: KEY, kind: 'api_key', user: 'ada' }],
    tables: [{ id: 'orders', owner: 'ada', records: rows }],
    extra_limits: { user_table_reads: { requests: 5, window_ms: 5000 } },
  });
  baseUrl = sandbox.url;
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await sandbox?.stop();
});

/** The shown table's cells, row by row, as text. */
function cells(page) {
  return page.$$eval('#rows tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
}

/** Waits until the dashboard is idle (or done); returns its state. */
async function settled(page) {
  await page.waitForFunction(() => ['idle', 'done'].includes(document.body.dataset.state), null,
    { timeout: 60_000 });
  return page.evaluate(() => document.body.dataset.state);
}

test('the dashboard pages past the table limit without a 429 and explains errors', { skip }, async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const apiStatuses = [];
  page.on('response', (response) => {
    if (new URL(response.url()).pathname.startsWith('/api/')) apiStatuses.push(response.status());
  });
  const pageErrors = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));

  await page.goto(`${baseUrl}/demo/`);
  await settled(page);
  assert.match(await page.textContent('#api-name'), /v1/);
  assert.match(await page.textContent('#index-fields'), /100 requests per 60 s/);

  await page.fill('#api-key', KEY);
  await page.fill('#table-id', 'orders');
  await page.fill('#page-size', '2');
  await page.click('#load-table');
  let state = await settled(page);
  let countdownShot = false;
  for (let guard = 0; state !== 'done' && guard < 30; guard += 1) {
    await page.click('#next-page');
    await page.waitForFunction(() => document.body.dataset.state !== 'idle'
      || document.querySelector('#next-page').disabled === false, null, { timeout: 60_000 });
    if (!countdownShot && await page.isVisible('#countdown')) {
      assert.match(await page.textContent('#countdown'), /Waiting \d+\.\d s: the user table reads limit \(5 requests per \d+ s\) is used up/);
      await page.screenshot({ path: path.join(out, 'dashboard-countdown.png'), fullPage: true });
      countdownShot = true;
    }
    state = await settled(page);
  }
  const stats = await page.evaluate(() => window.dashboard.stats);
  assert.equal(state, 'done');
  assert.deepEqual(stats.rows, rows, 'the rows shown are the table, in order, each once');
  assert.equal(stats.pages, 12);
  assert.ok(stats.countdowns >= 1, 'the countdown appeared');
  assert.ok(!apiStatuses.includes(429) && !stats.statuses.includes(429), `statuses: ${apiStatuses}`);
  assert.ok(apiStatuses.filter((status) => status === 200).length >= 13);
  assert.match(await page.textContent('#limit-bars'), /user table reads: \d of 5 left/);
  await page.screenshot({ path: path.join(out, 'dashboard.png'), fullPage: true });

  // The last page (row 23); strings as text, numbers as JSON.
  assert.equal(await page.textContent('#page-info'), 'page 12 of 12 loaded (end of table)');
  assert.deepEqual(await cells(page), [['23', 'item 23', '4']]);
  assert.equal(await page.isDisabled('#next-page'), true);
  // Previous goes back through the loaded pages without a request; Next comes forward again.
  const requestsBefore = apiStatuses.length;
  await page.click('#prev-page');
  assert.equal(await page.textContent('#page-info'), 'page 11 of 12 loaded');
  assert.deepEqual(await cells(page), [['21', 'item 21', '0'], ['22', 'item 22', '7']]);
  for (let i = 0; i < 10; i += 1) await page.click('#prev-page');
  assert.equal(await page.textContent('#page-info'), 'page 1 of 12 loaded');
  assert.deepEqual(await cells(page), [['1', 'item 1', '0'], ['2', 'item 2', '7']]);
  assert.equal(await page.isDisabled('#prev-page'), true);
  await page.click('#next-page');
  assert.equal(await page.textContent('#page-info'), 'page 2 of 12 loaded');
  assert.deepEqual(await cells(page), [['3', 'item 3', '4'], ['4', 'item 4', '1']]);
  assert.equal(apiStatuses.length, requestsBefore, 'pages already loaded are not fetched again');

  // An API error: its status, the core's sentence.
  await page.fill('#table-id', 'missing');
  await page.click('#load-table');
  await settled(page);
  assert.equal(await page.getAttribute('#error', 'data-status'), '404');
  assert.equal(await page.getAttribute('#error', 'data-code'), 'API');
  assert.match(await page.textContent('#error-message'), /the API answered 404/);

  // A request refused before it is sent, with the gate's own sentence.
  await page.fill('#table-id', 'orders');
  await page.fill('#page-size', '0');
  const sentBefore = apiStatuses.length;
  await page.click('#load-table');
  await settled(page);
  assert.equal(await page.getAttribute('#error', 'data-code'), 'INVALID_PARAMS');
  assert.match(await page.textContent('#error-message'), /limit must be an integer from 1 to 5000/);
  assert.equal(apiStatuses.length, sentBefore, 'nothing was sent');
  await page.screenshot({ path: path.join(out, 'dashboard-error.png'), fullPage: true });
  assert.deepEqual(pageErrors, []);
});

test('the dashboard creates a run and shows each state it goes through', { skip }, async () => {
  const page = await browser.newPage();
  const posts = [];
  page.on('request', (request) => {
    if (request.method() === 'POST') posts.push(new URL(request.url()).pathname);
  });
  const pageErrors = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(`${baseUrl}/demo/`);
  await settled(page);
  await page.fill('#api-key', KEY);
  await page.fill('#run-agent', 'agent-7');
  await page.fill('#run-input', '{"question": "why"}');
  await page.click('#create-run');
  // The default lifecycle: queued 1 s, running 2 s, then succeeded.
  await page.waitForFunction(() => ['done', 'failed'].includes(document.querySelector('#run-form').dataset.state),
    null, { timeout: 30_000 });
  assert.equal(await page.getAttribute('#run-form', 'data-state'), 'done', await page.textContent('#error-message'));
  assert.deepEqual(await page.$$eval('#run-states li', (items) => items.map((item) => item.textContent)),
    ['queued', 'running', 'succeeded']);
  assert.match(await page.textContent('#run-id'), /^run_\d+$/);
  assert.deepEqual(posts, ['/api/v1/agents/agent-7/runs']);
  await page.screenshot({ path: path.join(out, 'dashboard-run.png'), fullPage: true });
  assert.deepEqual(pageErrors, []);
});
