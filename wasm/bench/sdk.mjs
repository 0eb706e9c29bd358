// JavaScript half of scripts/bench-sdk: the easy path (AcdClient over
// fetch) beside a plain fetch loop sending the same requests with the same
// JSON parsing, against the sandbox at BASE_URL (table "big", ROWS rows,
// limits raised). Workload A: every row in pages of 100 (tables.iter; the
// loop stops on a short page). Workload B: 500 single-row reads
// (tables.read with pageSize 1 and offset i). After WARMUP rounds, ROUNDS
// rounds alternate plain, acd, plain, acd, ...; prints one JSON line per
// workload: {"language", "workload", "plain_ms", "acd_ms", "waits"}.
// A measurement, not a test.
// Usage: node wasm/bench/sdk.mjs BASE_URL ROWS [ROUNDS] [WARMUP]
import { AcdClient } from 'acd';

const [base, rowsArg, roundsArg = '5', warmupArg = '2'] = process.argv.slice(2);
const ROWS = Number(rowsArg);
const ROUNDS = Number(roundsArg);
const WARMUP = Number(warmupArg);
const KEY = 'acd_live_demo_ada';
const TABLE = 'big';
const PAGE = 100;
const SINGLE = 500;
const HEADERS = { 'X-API-Key': KEY, Accept: 'application/json' };

/** One GET of `limit` rows from `offset`, parsed: the records. */
async function page(limit, offset) {
  const response = await fetch(`${base}/api/v1/tables/${TABLE}?limit=${limit}&offset=${offset}`, { headers: HEADERS });
  if (response.status !== 200) throw new Error(`status ${response.status}`);
  return JSON.parse(await response.text()).data;
}

let waits = 0;
const api = new AcdClient({ baseUrl: base, apiKey: KEY, onEvent: (event) => { if (event.type === 'waiting') waits += 1; } });
await api.index(); // as a user would: the client learns the advertised (raised) limit

const workloads = [
  ['A', ROWS, async () => {
    let rows = 0;
    for (let offset = 0; ; offset += PAGE) {
      const data = await page(PAGE, offset);
      rows += data.length;
      if (data.length < PAGE) return rows;
    }
  }, async () => {
    let rows = 0;
    for await (const row of api.tables.iter(TABLE, { pageSize: PAGE })) rows += row.id > 0 ? 1 : 0;
    return rows;
  }],
  ['B', SINGLE, async () => {
    let rows = 0;
    for (let offset = 0; offset < SINGLE; offset += 1) rows += (await page(1, offset)).length;
    return rows;
  }, async () => {
    let rows = 0;
    for (let offset = 0; offset < SINGLE; offset += 1) rows += (await api.tables.read(TABLE, { pageSize: 1, offset })).length;
    return rows;
  }],
];
try {
  for (const [name, expected, plain, sdk] of workloads) {
    const times = { plain: [], acd: [] };
    waits = 0;
    for (let round = 0; round < WARMUP + ROUNDS; round += 1) {
      for (const [side, run] of [['plain', plain], ['acd', sdk]]) {
        const start = performance.now();
        const got = await run();
        const ms = performance.now() - start;
        if (got !== expected) throw new Error(`js ${name} ${side}: read ${got} rows, expected ${expected}`);
        if (round >= WARMUP) times[side].push(ms);
      }
    }
    console.log(JSON.stringify({ language: 'js', workload: name, plain_ms: times.plain, acd_ms: times.acd, waits }));
  }
} finally {
  api.close();
}
