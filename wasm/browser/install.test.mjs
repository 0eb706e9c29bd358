// The npm package as a user gets it: `npm pack` in wasm/ gives
// acd-client-<version>.tgz; a throwaway project installs it with
// `npm install ./acd-client-<version>.tgz` (offline: it has no dependencies), then
//  * Node imports "acd-client" by name and reads a sandbox table through the easy
//    path (AcdClient over fetch);
//  * installed under its former name (`npm install acd@file:./acd-client-<version>.tgz`),
//    code that imports "acd" keeps working;
//  * a page served next to that project imports the installed package as
//    ESM (import map "acd-client" -> node_modules/acd-client/js/index.js) in Chromium and
//    does the same from the browser.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launchChromium, missingPieces, out, root, startSandbox } from './sandbox.mjs';

const KEY = 'acd_live_install_test';
const rows = Array.from({ length: 7 }, (_, i) => ({ id: i + 1, sku: `sku-${i + 1}` }));
const skip = missingPieces();
const manifest = JSON.parse(readFileSync(path.join(root, 'wasm/package.json'), 'utf8'));
const cargoVersion = /^version = "([^"]+)"/m.exec(readFileSync(path.join(root, 'Cargo.toml'), 'utf8'))[1];

let project;
let sandbox;
let browser;

before(async () => {
  if (skip) return;
  project = mkdtempSync(path.join(tmpdir(), 'acd-install-'));
  // The build already ran (scripts/test-wasm), so the prepack build is skipped.
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', project],
    { cwd: path.join(root, 'wasm'), encoding: 'utf8' }));
  const tarball = packed[0].filename;
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'throwaway', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', `./${tarball}`],
    { cwd: project, stdio: 'inherit' });
  // The same tarball under the name "acd" (npm's alias syntax), for code written before the rename.
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', `acd@file:./${tarball}`],
    { cwd: project, stdio: 'inherit' });
  const config = path.join(project, 'sandbox.json');
  writeFileSync(config, JSON.stringify({
    credentials: [{ secret: KEY, kind: 'api_key', user: 'ada' }],
    tables: [{ id: 'orders', owner: 'ada', records: rows }],
  }));
  sandbox = await startSandbox(config, project);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  sandbox?.stop();
  if (project) rmSync(project, { recursive: true, force: true });
});

test('the package version is the workspace version; the tarball is acd-client-<version>.tgz', { skip }, () => {
  assert.equal(manifest.name, 'acd-client');
  assert.equal(manifest.version, cargoVersion);
  const installed = JSON.parse(readFileSync(path.join(project, 'node_modules/acd-client/package.json'), 'utf8'));
  assert.equal(installed.version, cargoVersion);
  const files = execFileSync('tar', ['-tzf', path.join(project, `acd-client-${cargoVersion}.tgz`)], { encoding: 'utf8' })
    .split('\n').filter(Boolean).sort();
  for (const expected of ['package/js/index.js', 'package/js/index.d.ts', 'package/js/node.js',
    'package/js/testing.js', 'package/pkg/acd_wasm_bg.wasm', 'package/pkg/acd_wasm.js', 'package/js/errors.js',
    'package/js/client.js', 'package/js/gate.js', 'package/js/gate-node.js', 'package/js/testing-node.js',
    'package/pkg/acd_client_bg.wasm', 'package/pkg/acd_client.js', 'package/pkg/acd_client.d.ts']) {
    assert.ok(files.includes(expected), `${expected} in ${files.join(', ')}`);
  }
  assert.ok(!files.some((file) => file.includes('/test/') || file.includes('/demo/')), 'no tests or demo');
  // The README a user reads in node_modules says how the tarball installs.
  const readme = readFileSync(path.join(project, 'node_modules/acd-client/README.md'), 'utf8');
  assert.ok(readme.includes('npm install ./acd-client-<version>.tgz'), 'the README has the install line');
});

test('Node: a throwaway project imports "acd-client" and reads a sandbox table through the easy path', { skip }, () => {
  const script = `
    import { AcdClient, AcdApiError, version } from 'acd-client';
    import { VirtualClock } from 'acd-client/testing';
    const api = new AcdClient({ baseUrl: process.env.BASE, apiKey: process.env.KEY, user: 'ada' });
    const index = await api.index();
    const rows = [];
    for await (const row of api.tables.iter('orders', { pageSize: 3 })) rows.push(row);
    let missing;
    try { for await (const row of api.tables.iter('missing')) rows.push(row); } catch (e) { missing = e instanceof AcdApiError ? e.status : String(e); }
    console.log(JSON.stringify({ version: version(), indexVersion: index.version, rows, missing,
      clock: typeof VirtualClock }));`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: project, encoding: 'utf8', env: { ...process.env, BASE: sandbox.url, KEY },
  });
  const result = JSON.parse(output.trim().split('\n').pop());
  assert.equal(result.version, cargoVersion);
  assert.equal(result.indexVersion, 'v1');
  assert.deepEqual(result.rows, rows);
  assert.equal(result.missing, 404);
  assert.equal(result.clock, 'function');
});

test('Node: installed as acd@file:./acd-client-<version>.tgz, code importing "acd" keeps working', { skip }, () => {
  const script = `
    import { AcdClient, version } from 'acd';
    import { VirtualClock } from 'acd/testing';
    const api = new AcdClient({ baseUrl: process.env.BASE, apiKey: process.env.KEY, user: 'ada' });
    console.log(JSON.stringify({ version: version(), index: (await api.index()).version, clock: typeof VirtualClock }));`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: project, encoding: 'utf8', env: { ...process.env, BASE: sandbox.url, KEY },
  });
  assert.deepEqual(JSON.parse(output.trim().split('\n').pop()), { version: cargoVersion, index: 'v1', clock: 'function' });
});

// The table reads stay with the other tests (5 per 60 s per user); the
// dashboard test reads a table through acd-client/client in Chromium.
test('Node: "acd-client/client" (the client module alone) reads the index and has no gate', { skip }, () => {
  const script = `
    import * as acd from 'acd-client/client';
    const api = new acd.AcdClient({ baseUrl: process.env.BASE, apiKey: process.env.KEY, user: 'ada' });
    const index = await api.index();
    console.log(JSON.stringify({ indexVersion: index.version, gate: typeof acd.Gate,
      throttle: typeof acd.Throttle, error: typeof acd.AcdApiError, version: acd.version() }));`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: project, encoding: 'utf8', env: { ...process.env, BASE: sandbox.url, KEY },
  });
  const result = JSON.parse(output.trim().split('\n').pop());
  assert.deepEqual(result,
    { indexVersion: 'v1', gate: 'undefined', throttle: 'undefined', error: 'function', version: cargoVersion });
});

test('a page imports the installed package as ESM and reads the table in Chromium', { skip }, async () => {
  writeFileSync(path.join(project, 'index.html'), `<!doctype html><meta charset="utf-8">
<script type="importmap">{"imports": {"acd-client": "./node_modules/acd-client/js/index.js"}}</script>
<script type="module">
  import init, { AcdClient } from 'acd-client';
  window.result = (async () => {
    await init();
    const api = new AcdClient({ baseUrl: location.origin, apiKey: ${JSON.stringify(KEY)}, user: 'ada' });
    const rows = [];
    for await (const row of api.tables.iter('orders', { pageSize: 4 })) rows.push(row);
    return { rows, index: (await api.index()).version };
  })().catch((error) => ({ error: String(error) }));
</script>`);
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${sandbox.url}/demo/index.html`);
  await page.waitForFunction(() => window.result !== undefined);
  const result = await page.evaluate(() => window.result);
  assert.deepEqual(result, { rows, index: 'v1' });
  assert.deepEqual(errors, []);
  mkdirSync(out, { recursive: true });
});
