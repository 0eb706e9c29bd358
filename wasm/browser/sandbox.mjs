// Shared by the browser tests: starts acd-sandbox on a free loopback port
// with a configuration and a static site (served under /demo/), and
// launches Debian's Chromium through playwright-core. Says what is missing
// instead of failing when the sandbox, Chromium or the package is absent.
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { startSandbox as startPackaged } from '../js/sandbox-node.js';

/** The repository root. */
export const root = fileURLToPath(new URL('../../', import.meta.url));
/** Where tests write screenshots and scratch files. */
export const out = path.join(root, 'target/wasm');
/** The sandbox binary. */
export const sandboxBin = process.env.ACD_SANDBOX_BIN || path.join(root, 'target/release/acd-sandbox');

/** The shipped sandbox (scripts/dist's, the dashboard built in): $ACD_DIST_SANDBOX_BIN, else dist/bin/acd-sandbox. */
export const shippedSandboxBin = process.env.ACD_DIST_SANDBOX_BIN || path.join(root, 'dist/bin/acd-sandbox');

/** `false`, or a sentence naming what the tests on the shipped sandbox lack. */
export function missingShipped() {
  const missing = [
    [existsSync(shippedSandboxBin), `the shipped sandbox ${shippedSandboxBin} (scripts/dist builds it)`],
    [existsSync('/usr/bin/chromium'), '/usr/bin/chromium'],
    [existsSync(path.join(root, '.cache/node/node_modules/playwright-core')), 'playwright-core'],
  ].filter(([present]) => !present).map(([, what]) => what);
  return missing.length ? `missing ${missing.join(', ')}` : false;
}

/** Starts the shipped sandbox with `--dashboard` (system clock) from a
 * directory holding nothing but a copy of the binary, with `config` (an
 * object, written elsewhere); resolves with `{ url, stop }`. */
export async function startShippedDashboard(config) {
  const dir = mkdtempSync(path.join(tmpdir(), 'acd-shipped-'));
  const binary = path.join(dir, 'acd-sandbox');
  copyFileSync(shippedSandboxBin, binary);
  const sandbox = await startPackaged({ config, args: ['--dashboard'], clock: 'system', binary, cwd: dir });
  return {
    ...sandbox,
    async stop() {
      await sandbox.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

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

/** Starts acd-sandbox through the package's own `startSandbox` (acd-client/testing)
 * with the configuration file `config` and a static site; resolves with
 * `{ url, stop }`. */
export function startSandbox(config, site) {
  return startPackaged({ args: ['--config', config, '--static', site], clock: 'system', binary: sandboxBin });
}

/** Starts acd-sandbox through `startSandbox` (acd-client/testing) with `config`
 * (an object) and extra `args` (`--clock manual` among them picks the
 * manual clock; else the system clock). */
export function startSandboxWith(config, args = []) {
  const at = args.indexOf('--clock');
  const clock = at >= 0 ? args[at + 1] : 'system';
  const rest = at >= 0 ? [...args.slice(0, at), ...args.slice(at + 2)] : args;
  return startPackaged({ config, args: rest, clock, binary: sandboxBin });
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
