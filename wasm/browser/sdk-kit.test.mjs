// The SDK conformance kit (tests/vectors/sdk-scenarios.json) in a real
// browser: headless Chromium opens a page served by acd-sandbox that imports
// the package's browser entry (acd/js/client.js, its wasm fetched by the
// page) and the kit's replayer (wasm/test/sdk-kit.mjs), and replays the
// browser subset below through AcdClient on a virtual clock and a scripted
// fetch, exactly as the Node suite does. The page reports each scenario's
// problems; the test asserts there are none (known_failures.js included,
// as in Node).
//
// Needs what wasm/browser/sandbox.mjs names (the sandbox binary, Chromium,
// playwright-core, the wasm package). Talks to 127.0.0.1 only.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { launchChromium, missingPieces, out, root, startSandbox } from './sandbox.mjs';

/** The scenarios replayed in the browser: concurrency, time and the answers a page sees. */
const SUBSET = [
  'seven concurrent reads across a window',
  'two concurrent pagers share one window',
  'a call timeout shorter than the throttle wait fails at once',
  'a response slower than the call timeout',
  'a long Retry-After holds only its own limit',
  'a real 429 with Retry-After 2 gives retry_at',
  'a 200 announcing a reset of 999999999 s holds its limit 60 s at most',
  'a redirect is never followed',
  'a run created and waited for',
];

const skip = missingPieces();
const kit = JSON.parse(readFileSync(path.join(root, 'tests/vectors/sdk-scenarios.json'), 'utf8'));
let sandbox;
let browser;

before(async () => {
  if (skip) return;
  const site = path.join(out, 'kit-site');
  rmSync(site, { recursive: true, force: true });
  mkdirSync(site, { recursive: true });
  cpSync(path.join(root, 'wasm/js'), path.join(site, 'acd/js'), { recursive: true });
  cpSync(path.join(root, 'wasm/pkg'), path.join(site, 'acd/pkg'), { recursive: true, dereference: true });
  cpSync(path.join(root, 'wasm/test/sdk-kit.mjs'), path.join(site, 'sdk-kit.mjs'));
  cpSync(path.join(root, 'tests/vectors/sdk-scenarios.json'), path.join(site, 'sdk-scenarios.json'));
  writeFileSync(path.join(site, 'index.html'), `<!doctype html><meta charset="utf-8"><title>kit</title>
<script type="module">
import init, { AcdClient, fetchTransport } from './acd/js/client.js';
import { VirtualClock } from './acd/js/testing.js';
import { problems, replay } from './sdk-kit.mjs';
window.replayKit = async (names) => {
  await init();
  const kit = await (await fetch('./sdk-scenarios.json')).json();
  const report = {};
  for (const scenario of kit.scenarios.filter((s) => names.includes(s.name))) {
    try {
      report[scenario.name] = problems(kit, scenario, await replay({ AcdClient, fetchTransport, VirtualClock }, kit, scenario));
    } catch (error) {
      report[scenario.name] = ['replay threw: ' + (error && error.stack || error)];
    }
  }
  return report;
};
document.body.dataset.ready = 'yes';
</script>`);
  const config = path.join(out, 'kit-sandbox.json');
  writeFileSync(config, '{}');
  sandbox = await startSandbox(config, site);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  sandbox?.stop();
});

test('the kit\'s browser subset replays through AcdClient in Chromium', { skip }, async () => {
  const names = kit.scenarios.map((s) => s.name);
  for (const name of SUBSET) assert.ok(names.includes(name), `the kit has no scenario "${name}"`);
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(`${sandbox.url}/demo/index.html`);
  await page.waitForFunction(() => document.body?.dataset.ready === 'yes', null, { timeout: 30_000 });
  const report = await page.evaluate((subset) => window.replayKit(subset), SUBSET);
  assert.deepEqual(errors, []);
  assert.deepEqual(Object.keys(report).sort(), [...SUBSET].sort());
  const known = new Set((kit.known_failures.js ?? []).map((entry) => entry.scenario));
  for (const name of SUBSET) {
    if (known.has(name)) {
      assert.ok(report[name].length > 0, `${name}: passes in Chromium, but is listed in known_failures.js`);
    } else {
      assert.deepEqual(report[name], [], name);
    }
  }
  await page.close();
});
