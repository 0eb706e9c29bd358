// A page on another origin talks to the shipped sandbox: headless Chromium
// opens a page served by a plain Node server on its own port (so every API
// call is cross-origin, with a CORS preflight for the POST), which imports
// the package's client module and, against `dist/bin/acd-sandbox --dashboard`
// run from a directory holding nothing but the binary, creates a run (a POST
// with Content-Type and Idempotency-Key) and reads a table page by page
// (the pager follows the exposed Link header).
//
// Needs: the shipped sandbox (dist/bin/acd-sandbox from scripts/dist, or
// $ACD_DIST_SANDBOX_BIN), the wasm package (wasm/pkg), /usr/bin/chromium and
// playwright-core. Talks to 127.0.0.1 only.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { launchChromium, missingShipped, root, startShippedDashboard } from './sandbox.mjs';

const KEY = 'acd_live_cross_origin_test';
const rows = Array.from({ length: 5 }, (_, i) => ({ id: i + 1, sku: `sku-${i + 1}` }));
const skip = missingShipped()
  || (existsSync(path.join(root, 'wasm/pkg/acd_client_bg.wasm')) ? false : 'missing the wasm package (scripts/lib/build-wasm.sh)');

let sandbox;
let site;
let siteUrl;
let browser;

const TYPES = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html' };

/** The page: imports the client from its own origin, calls the sandbox's. */
function pageHtml(apiUrl) {
  return `<!doctype html><meta charset="utf-8">
<script type="module">
  import init, { AcdClient } from './acd/js/client.js';
  window.result = (async () => {
    await init();
    const api = new AcdClient({ baseUrl: ${JSON.stringify(apiUrl)}, apiKey: ${JSON.stringify(KEY)} });
    const run = await api.runs.create('agent-9', { input: { question: 'hi' }, idempotencyKey: 'cross-origin-1' });
    const records = [];
    for await (const row of api.tables.iter('orders', { pageSize: 2 })) records.push(row);
    return { run: { agent: run.agent_id, status: run.status }, records };
  })().catch((error) => ({ error: String(error) }));
</script>`;
}

before(async () => {
  if (skip) return;
  sandbox = await startShippedDashboard({
    credentials: [{ secret: KEY, kind: 'api_key', user: 'ada' }],
    tables: [{ id: 'orders', owner: 'ada', records: rows }],
  });
  // The page's own origin: another port on the same host.
  site = createServer((request, response) => {
    const url = new URL(request.url, 'http://localhost');
    let file;
    if (url.pathname === '/') file = null;
    else if (url.pathname.startsWith('/acd/js/')) file = path.join(root, 'wasm/js', path.basename(url.pathname));
    else if (url.pathname.startsWith('/acd/pkg/')) file = path.join(root, 'wasm/pkg', path.basename(url.pathname));
    else { response.writeHead(404).end(); return; }
    if (file === null) {
      response.writeHead(200, { 'Content-Type': 'text/html' }).end(pageHtml(sandbox.url));
      return;
    }
    if (!existsSync(file)) { response.writeHead(404).end(); return; }
    response.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream' })
      .end(readFileSync(file));
  });
  await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${site.address().port}`;
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => (site ? site.close(resolve) : resolve()));
  await sandbox?.stop();
});

test('a page on another origin creates a run (POST, Idempotency-Key) and reads a table', { skip }, async () => {
  assert.notEqual(new URL(siteUrl).origin, new URL(sandbox.url).origin, 'the page is on another origin');
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const posts = [];
  page.on('request', (request) => {
    if (request.method() === 'POST') posts.push(request);
  });
  const failed = [];
  page.on('requestfailed', (request) => failed.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText}`));
  await page.goto(`${siteUrl}/`);
  await page.waitForFunction(() => window.result !== undefined, null, { timeout: 30_000 });
  const result = await page.evaluate(() => window.result);
  assert.deepEqual(result, {
    run: { agent: 'agent-9', status: 'queued' },
    records: rows,
  }, `failed requests: ${failed.join('; ')}`);
  assert.equal(posts.length, 1);
  for (const post of posts) {
    assert.equal(new URL(post.url()).origin, new URL(sandbox.url).origin);
    const headers = await post.allHeaders();
    assert.match(headers['content-type'], /^application\/json/);
    assert.equal(headers['idempotency-key'], 'cross-origin-1');
    assert.equal(headers.origin, siteUrl);
  }
  assert.deepEqual(failed, []);
  assert.deepEqual(errors, []);
});
