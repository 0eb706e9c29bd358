// Measurements for the report (not a test; nothing here asserts a duration):
//  - the .wasm size;
//  - the time to instantiate the module in Node (compile + instantiate,
//    median of fresh processes);
//  - the cost of one client call through the driver (start, pollTransmits,
//    handle, pollEvents: plan + interpret) from JavaScript through the
//    package vs the same call in native Rust (examples/native_bench.rs, run
//    by this script), and of one gate decision, as ratios. Both sides run
//    the same workload in the same script run.
// Usage: node wasm/bench/measure.mjs   (after scripts/lib/build-wasm.sh)
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client, Gate } from 'acd';

const root = fileURLToPath(new URL('../../', import.meta.url));
const wasmFile = fileURLToPath(new URL('../pkg/acd_wasm_bg.wasm', import.meta.url));
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function instantiateMs() {
  const child = `
    import { readFileSync } from 'node:fs';
    import { initSync } from ${JSON.stringify(new URL('../pkg/acd_wasm.js', import.meta.url).href)};
    const bytes = readFileSync(${JSON.stringify(wasmFile)});
    const start = performance.now();
    initSync({ module: new WebAssembly.Module(bytes) });
    console.log(performance.now() - start);`;
  const runs = Array.from({ length: 7 }, () =>
    Number(execFileSync(process.execPath, ['--input-type=module', '-e', child]).toString()));
  return median(runs);
}

function jsNsPerCall(native, call) {
  const rounds = [];
  for (let round = 0; round < native.rounds; round += 1) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < native.iterations; i += 1) call();
    rounds.push(Number(process.hrtime.bigint() - start) / native.iterations);
  }
  return median(rounds);
}

const native = JSON.parse(execFileSync('cargo',
  ['run', '--release', '--quiet', '--locked', '-p', 'acd-wasm', '--example', 'native_bench'],
  { cwd: root }).toString());

const g = native.gate;
const gate = Gate.demo(g.config);
const request = { target: g.target, headers: [['X-API-Key', g.api_key]], clientIp: '203.0.113.7' };
const decideAndRespond = () => {
  const decision = gate.decide(request, g.now);
  const response = decision.type === 'resolve' ? decision.respondFound(g.payload) : decision;
  const { status } = response;
  if (decision !== response) decision.free();
  response.free();
  return status;
};
if (decideAndRespond() !== 200) throw new Error('the gate workload did not take the 200 path');
const gateJs = jsNsPerCall(native, decideAndRespond);

const c = native.client;
const client = new Client({ ...c.config, credentials: [c.credential], seed: 1 });
const spec = { operation: 'listTableRecords', path: { id: c.table }, params: { limit: c.limit } };
const response = {
  status: c.response.status, headers: c.response.headers, body: new TextEncoder().encode(c.response.body),
};
let now = c.now;
const oneCall = () => {
  now += c.step_ms;
  client.start(spec);
  const [transmit] = client.pollTransmits(now);
  client.handle(transmit.id, response, now);
  transmit.request.free();
  let records = 0;
  for (const { event } of client.pollEvents()) {
    if (event.type === 'response') records += event.response.records.length;
  }
  return records;
};
if (oneCall() !== 2) throw new Error('the client workload did not read a page of 2 records');
const clientJs = jsNsPerCall(native, oneCall);

const bytes = statSync(wasmFile).size;
const lines = [
  `wasm size: ${bytes} bytes (${(bytes / 1024).toFixed(1)} KiB) after wasm-opt -Oz`,
  `instantiate in Node (compile + instantiate, median of 7 fresh processes): ${instantiateMs().toFixed(1)} ms`,
  `client call through the driver (plan + send + interpret + events): JS->wasm ${(clientJs / 1000).toFixed(2)} us, native Rust ${(c.ns_per_call / 1000).toFixed(2)} us, ratio ${(clientJs / c.ns_per_call).toFixed(2)}x (goal <= 2x)`,
  `gate decide + respond: JS->wasm ${(gateJs / 1000).toFixed(2)} us, native Rust ${(g.ns_per_call / 1000).toFixed(2)} us, ratio ${(gateJs / g.ns_per_call).toFixed(2)}x`,
];
console.log(lines.join('\n'));
