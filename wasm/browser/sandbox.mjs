// Shared by the browser tests: starts acd-sandbox on a free loopback port
// with a configuration and a static site (served under /demo/), and
// launches Debian's Chromium through playwright-core. Says what is missing
// instead of failing when the sandbox, Chromium or the package is absent.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** The repository root. */
export const root = fileURLToPath(new URL('../../', import.meta.url));
/** Where tests write screenshots and scratch files. */
export const out = path.join(root, 'target/wasm');
/** The sandbox binary. */
export const sandboxBin = process.env.ACD_SANDBOX_BIN || path.join(root, 'target/release/acd-sandbox');

/** `false`, or a sentence naming what is missing (for `test(..., { skip })`). */
export function missingPieces() {
  const missing = [
    [existsSync(sandboxBin), `the sandbox binary ${sandboxBin}`],
    [existsSync('/usr/bin/chromium'), '/usr/bin/chromium'],
    [existsSync(path.join(root, '.cache/node/node_modules/playwright-core')), 'playwright-core'],
    [existsSync(path.join(root, 'wasm/pkg/acd_wasm_bg.wasm')), 'the wasm package (scripts/lib/build-wasm.sh)'],
  ].filter(([present]) => !present).map(([, what]) => what);
  return missing.length ? `missing ${missing.join(', ')}` : false;
}

/** Starts acd-sandbox with `args` (a free loopback port is added);
 * resolves with `{ url, stop }` once it prints its address. */
export function spawnSandbox(args, onStop = () => {}) {
  const child = spawn(sandboxBin, ['--listen', '127.0.0.1:0', ...args],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = () => { child.kill('SIGTERM'); onStop(); };
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`acd-sandbox exited with ${code}`)));
    createInterface({ input: child.stdout }).once('line', (line) => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
      if (match) resolve({ url: match[1], stop });
      else { stop(); reject(new Error(`unexpected first line from acd-sandbox: ${line}`)); }
    });
  });
}

/** Starts acd-sandbox with the configuration file `config` and a static
 * site; resolves with `{ url, stop }`. */
export function startSandbox(config, site) {
  return spawnSandbox(['--config', config, '--static', site]);
}

/** Starts acd-sandbox (no request log) with `config` (an object, written
 * to a scratch file removed on stop) and extra `args`. */
export function startSandboxWith(config, args = []) {
  const dir = mkdtempSync(path.join(tmpdir(), 'acd-sandbox-'));
  const file = path.join(dir, 'sandbox.json');
  writeFileSync(file, JSON.stringify(config));
  return spawnSandbox(['--log', 'off', '--config', file, ...args],
    () => rmSync(dir, { recursive: true, force: true }));
}

/** Launches headless Chromium. */
export function launchChromium() {
  const require = createRequire(path.join(root, '.cache/node/'));
  const { chromium } = require('playwright-core');
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
