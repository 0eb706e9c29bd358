// What users feel: reading 5,000 rows in pages of 100 from a sandbox on
// loopback (its limits raised), through AcdClient ("acd-client": the client
// module, fetch, the driver protocol) and through a plain fetch loop doing
// the same 50 requests and the same JSON parsing, side by side in one run:
// rounds alternate between the two, and the medians and their ratio are
// printed. A measurement, not a test: nothing here asserts a duration.
// Usage: node wasm/bench/read.mjs   (after scripts/lib/build-wasm.sh and
// cargo build --release -p acd-sandbox, or with ACD_SANDBOX_BIN)
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { AcdClient } from 'acd-client';

const ROWS = 5_000;
const PAGE = 100;
const ROUNDS = 15;
const KEY = 'acd_live_demo_ada';
const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = process.env.ACD_SANDBOX_BIN || path.join(root, 'target/release/acd-sandbox');
if (!existsSync(bin)) {
  console.log(`read bench skipped: missing the sandbox binary ${bin}`);
  process.exit(0);
}

const dir = mkdtempSync(path.join(tmpdir(), 'acd-read-bench-'));
const file = path.join(dir, 'sandbox.json');
const records = Array.from({ length: ROWS }, (_, i) => ({ id: i + 1, sku: `sku-${i + 1}`, qty: i % 7, note: 'x'.repeat(40) }));
writeFileSync(file, JSON.stringify({
  tables: [{ id: 'orders', owner: 'ada', records }],
  limits: { credential: { requests: 1_000_000, window_ms: 60_000 } },
  extra_limits: { user_table_reads: { requests: 1_000_000, window_ms: 60_000 } },
}));
const child = spawn(bin, ['--listen', '127.0.0.1:0', '--log', 'off', '--config', file], { stdio: ['ignore', 'pipe', 'inherit'] });
const base = await new Promise((resolve, reject) => {
  child.once('exit', (code) => reject(new Error(`acd-sandbox exited with ${code}`)));
  createInterface({ input: child.stdout }).once('line', (line) => {
    const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
    if (match) resolve(match[1]); else reject(new Error(`unexpected first line: ${line}`));
  });
});

/** The plain loop: the same requests and the same JSON parsing, over fetch. */
async function plain() {
  let rows = 0;
  for (let offset = 0; ; offset += PAGE) {
    const response = await fetch(`${base}/api/v1/tables/orders?limit=${PAGE}&offset=${offset}`, {
      headers: { 'X-API-Key': KEY, Accept: 'application/json' },
    });
    const { data } = JSON.parse(await response.text());
    rows += data.length;
    if (data.length < PAGE) return rows;
  }
}

// The client's model of the table-read limit (5 per 60 s) is the spec's;
// the sandbox's is raised, so the client sends without waiting ahead.
const api = new AcdClient({ baseUrl: base, apiKey: KEY, config: { proactiveThrottle: false } });
async function sdk() {
  let rows = 0;
  for await (const row of api.tables.iter('orders', { pageSize: PAGE })) rows += row.id > 0 ? 1 : 0;
  return rows;
}

const timed = async (read) => {
  const start = performance.now();
  const rows = await read();
  if (rows !== ROWS) throw new Error(`read ${rows} rows, not ${ROWS}`);
  return performance.now() - start;
};
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
try {
  for (let i = 0; i < 3; i += 1) { await timed(plain); await timed(sdk); } // warm-up
  const times = { plain: [], sdk: [], ratio: [] };
  for (let round = 0; round < ROUNDS; round += 1) {
    const a = await timed(plain);
    const b = await timed(sdk);
    const c = await timed(plain);
    times.plain.push((a + c) / 2);
    times.sdk.push(b);
    times.ratio.push(b / ((a + c) / 2));
  }
  console.log(`read ${ROWS} rows in pages of ${PAGE} from the sandbox on loopback: AcdClient ${median(times.sdk).toFixed(1)} ms, `
    + `plain fetch loop ${median(times.plain).toFixed(1)} ms, ratio ${median(times.ratio).toFixed(2)}x `
    + `(medians of ${ROUNDS} paired rounds; ratios min ${Math.min(...times.ratio).toFixed(2)}x, `
    + `max ${Math.max(...times.ratio).toFixed(2)}x; goal <= 1.1x)`);
} finally {
  api.close();
  child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
