// The dashboard in a real browser: headless Chromium (Debian's, driven by
// playwright-core) opens wasm/demo served by a running acd-sandbox, whose
// configuration shortens the table-read window (5 reads per 5 s) so the test
// pages past the limit in seconds. It asserts that no request got a 429,
// that the countdown appeared, that the rows match the table, and that
// errors are explained with their status; screenshots go to target/wasm/.
//
// Needs: the sandbox binary (target/release/acd-sandbox, or $ACD_SANDBOX_BIN),
// /usr/bin/chromium and .cache/node/node_modules/playwright-core
// (scripts/test-wasm installs and builds them). Talks to 127.0.0.1 only.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { launchChromium, missingPieces, out, root, startSandbox } from './sandbox.mjs';

const KEY = 'acd_live_dashboard_test';
const rows = Array.from({ length: 23 }, (_, i) => ({ id: i + 1, item: `item ${i + 1}`, qty: (i * 7) % 10 }));
const skip = missingPieces();

let sandbox;
let browser;
let baseUrl;

before(async () => {
  if (skip) return;
  // The page and the package (laid out as installed: acd/js, acd/pkg), as
  // the sandbox serves them under /demo/.
  const site = path.join(out, 'site');
  rmSync(site, { recursive: true, force: true });
  mkdirSync(site, { recursive: true });
  cpSync(path.join(root, 'wasm/demo'), site, { recursive: true });
  cpSync(path.join(root, 'wasm/js'), path.join(site, 'acd/js'), { recursive: true });
  cpSync(path.join(root, 'wasm/pkg'), path.join(site, 'acd/pkg'), { recursive: true, dereference: true });
  const config = path.join(out, 'dashboard-sandbox.json');
  writeFileSync(config, JSON.stringify({
    credentials: [{ secret: KEY, type: 'api_key', user: 'ada' }],
    tables: [{ id: 'orders', owner: 'ada', records: rows }],
    limits: { user_table_reads: { requests: 5, window_seconds: 5 } },
  }));
  sandbox = await startSandbox(config, site);
  baseUrl = sandbox.url;
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  sandbox?.stop();
});

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
