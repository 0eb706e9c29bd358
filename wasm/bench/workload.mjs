// The workloads both bench scripts time (measure.mjs) or profile
// (profile.mjs): the native half (examples/native_bench.rs) runs them in
// Rust and prints their inputs, and `clientCall` makes the same driver
// cycle from JavaScript through the driver protocol, `gateCall` the same
// gate decision.
import { execFileSync, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

const NATIVE_BENCH = ['run', '--release', '--quiet', '--locked', '-p', 'acd-wasm', '--example', 'native_bench'];

/** Runs examples/native_bench.rs: its workload and nanoseconds per call. */
export const runNative = () => JSON.parse(execFileSync('cargo', NATIVE_BENCH, { cwd: root }).toString());

/**
 * Starts examples/native_bench.rs with `--serve`: `workload` is what it
 * prints first; `round("client" | "client-100" | "gate")` runs one round of that workload
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
 * One driver cycle through `Driver` (the driver protocol's class) with the
 * inputs `c` of native_bench's client workload over a page of `records`
 * (2 or 100): start (the call spec's JSON bytes), poll (one JSON.parse),
 * respond (status, header block, body bytes), poll (one JSON.parse: the
 * records as values). The returned function makes one cycle and returns
 * the number of records it read.
 */
export function clientCall(Driver, c, records = 2) {
  const encoder = new TextEncoder();
  const client = new Driver(encoder.encode(JSON.stringify(c.config)));
  const spec = encoder.encode(JSON.stringify({
    type: 'request', operation: 'listTableRecords', path: { id: c.table }, roles: [['limit', String(records)]],
  }));
  const body = encoder.encode(c.bodies[String(records)]);
  let now = c.now;
  return () => {
    now += c.step_ms;
    const id = client.start(spec);
    JSON.parse(client.poll(now));
    client.respond(id, 200, c.headers, body, now);
    let seen = 0;
    for (const event of JSON.parse(client.poll(now)).events) {
      if (event.type === 'response') seen += event.body.length;
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
