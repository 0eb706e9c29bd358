// The client workload both bench scripts time (measure.mjs) or profile
// (profile.mjs): the native half (examples/native_bench.rs) runs it in Rust
// and prints its inputs, and `clientCall` makes the same call from
// JavaScript: start, pollTransmits, handle, pollEvents (plan + interpret),
// with the records left as handed over (or, `readRecords`, every one read).
import { execFileSync, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

const NATIVE_BENCH = ['run', '--release', '--quiet', '--locked', '-p', 'acd-wasm', '--example', 'native_bench'];

/** Runs examples/native_bench.rs: its workload and nanoseconds per call. */
export const runNative = () => JSON.parse(execFileSync('cargo', NATIVE_BENCH, { cwd: root }).toString());

/**
 * Starts examples/native_bench.rs with `--serve`: `workload` is what it
 * prints first; `round("client" | "client-read" | "gate")` runs one round of that workload
 * natively and resolves to its nanoseconds per call; `close()` ends it.
 */
export async function serveNative() {
  const child = spawn('cargo', [...NATIVE_BENCH, '--', '--serve'], {
    cwd: root, stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const nextLine = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error('native_bench ended early');
    return value;
  };
  const workload = JSON.parse(await nextLine());
  return {
    workload,
    round: async (name) => {
      child.stdin.write(`${name}\n`);
      return Number(await nextLine());
    },
    close: () => child.stdin.end(),
  };
}

/**
 * One whole client call through `Driver` (a module's Client class) with the
 * inputs `c` of native_bench's client workload; the returned function makes
 * one call per invocation. It returns the number of records responses seen
 * (the native side leaves the records raw, as `RawValue`s); with
 * `readRecords`, it reads every record and returns how many it read, as
 * native_bench's `client-read` round parses each into a `serde_json::Value`
 * (the package parses a page's records with one `JSON.parse` either way).
 */
export function clientCall(Driver, c, { readRecords = false } = {}) {
  const spec = { operation: 'listTableRecords', path: { id: c.table }, params: { limit: c.limit } };
  const response = {
    status: c.response.status, headers: c.response.headers, body: new TextEncoder().encode(c.response.body),
  };
  const client = new Driver({ ...c.config, credentials: [c.credential], seed: 1 });
  let now = c.now;
  return () => {
    now += c.step_ms;
    client.start(spec);
    const [transmit] = client.pollTransmits(now);
    client.handle(transmit.id, response, now); // (which releases transmit.request)
    let seen = 0;
    for (const { event } of client.pollEvents()) {
      if (event.type === 'response' && event.response.type === 'records') {
        seen += readRecords ? event.response.records.length : 1;
      }
    }
    return seen;
  };
}

/**
 * One gate decision and its response through `Gate` (the module's class)
 * with the inputs `g` of native_bench's gate workload; the returned
 * function makes one and returns the status.
 */
export function gateCall(Gate, g) {
  const gate = Gate.demo(g.config);
  const request = { target: g.target, headers: [['X-API-Key', g.api_key]], clientIp: '203.0.113.7' };
  return () => {
    const decision = gate.decide(request, g.now);
    const response = decision.type === 'resolve' ? decision.respondFound(g.payload) : decision;
    const { status } = response;
    if (decision !== response) decision.free();
    response.free();
    return status;
  };
}
