// startSandbox() for Node (entry "acd-client/testing"): starts the shipped
// acd-sandbox binary (ACD_SANDBOX_BIN, else `acd-sandbox` on PATH) on a free
// loopback port (`--listen 127.0.0.1:0`), reads its address from the first
// line of its banner, and stops it on `stop()`. With the manual clock by
// default, which also turns the admin routes on.
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import path from 'node:path';

/** The first line acd-sandbox prints once it listens. */
const BANNER = 'acd-sandbox listening on ';

/** The acd-sandbox to start: ACD_SANDBOX_BIN, else the one on PATH. */
export function sandboxBinary() {
  if (process.env.ACD_SANDBOX_BIN) return process.env.ACD_SANDBOX_BIN;
  for (const dir of (process.env.PATH || '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, 'acd-sandbox');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch { /* not here */ }
  }
  throw new Error('startSandbox needs the acd-sandbox binary: put it on PATH or name it in ACD_SANDBOX_BIN');
}

/**
 * Starts acd-sandbox; resolves once it listens with
 * `{ url, apiKey, stop(), advance(ms), reset(), requests(path?) }`.
 * `options.config` is its configuration (an object, written to a scratch
 * file), `options.args` extra flags, `options.clock` 'manual' (default) or
 * 'system', `options.binary` the binary (default: `sandboxBinary()`),
 * `options.cwd` its working directory (default: this process's).
 */
export function startSandbox(options = {}) {
  const { config, args = [], clock = 'manual', binary = sandboxBinary(), cwd } = options;
  const dir = mkdtempSync(path.join(tmpdir(), 'acd-sandbox-'));
  const flags = ['--listen', '127.0.0.1:0', '--log', 'off', '--clock', clock];
  if (config !== undefined) {
    const file = path.join(dir, 'sandbox.json');
    writeFileSync(file, JSON.stringify(config));
    flags.push('--config', file);
  }
  flags.push(...args);
  const child = spawn(binary, flags, { stdio: ['ignore', 'pipe', 'pipe'], cwd });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => { if (stderr.length < 65_536) stderr += chunk; });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const clean = () => rmSync(dir, { recursive: true, force: true });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    clean();
  };
  return new Promise((resolve, reject) => {
    child.once('error', (error) => { clean(); reject(error); });
    let listening = false;
    child.once('exit', (code) => {
      if (listening) return;
      clean();
      reject(new Error(`acd-sandbox exited with ${code} before listening: ${stderr.trim()}`));
    });
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => {
      if (!line.startsWith(BANNER)) {
        stop().then(() => reject(new Error(`unexpected first line from acd-sandbox: ${line}`)));
        return;
      }
      listening = true;
      child.stdout.resume(); // the rest of the banner, drained
      const url = line.slice(BANNER.length).trim();
      const admin = async (method, route, body) => {
        const init = { method, headers: {} };
        if (method === 'POST') {
          init.headers['Content-Type'] = 'application/json';
          init.body = body === undefined ? '' : JSON.stringify(body);
        }
        const response = await fetch(url + route, init);
        const text = await response.text();
        if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text}`);
        return text ? JSON.parse(text) : {};
      };
      resolve({
        url,
        apiKey: 'acd_live_demo_ada',
        stop,
        advance: async (ms) => (await admin('POST', '/_sandbox/clock', { advance_ms: ms })).now_ms,
        reset: () => admin('POST', '/_sandbox/reset'),
        requests: async (pattern) => (await admin('GET',
          `/_sandbox/requests${pattern === undefined ? '' : `?path=${encodeURIComponent(pattern)}`}`)).requests,
      });
    });
  });
}
