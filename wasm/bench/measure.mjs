// Measurements for the report (not a test; nothing here asserts a duration):
//  - the size of each .wasm the package ships;
//  - the time to instantiate the module in Node (compile + instantiate,
//    median of fresh processes);
//  - the cost of one client call through the driver (start, pollTransmits,
//    handle, pollEvents: plan + interpret) from JavaScript through the
//    package vs the same call in native Rust (examples/native_bench.rs, run
//    by this script), and of one gate decision, as ratios. Both sides run
//    the same workload in the same script run. The client call is measured
//    through both modules: "acd" (speed-first) and "acd/client" (size-first).
// Usage: node wasm/bench/measure.mjs   (after scripts/lib/build-wasm.sh)
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client, Gate } from 'acd';
import { Client as SizeFirstClient } from 'acd/client';
import { clientCall, runNative } from './workload.mjs';

const wasmFile = fileURLToPath(new URL('../pkg/acd_wasm_bg.wasm', import.meta.url));
const clientWasmFile = fileURLToPath(new URL('../pkg/acd_client_bg.wasm', import.meta.url));
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

// Native Rust runs before and after the JavaScript rounds, and its figure is
// the mean of the two medians, so a change in machine load during the run
// weighs on both sides alike.
const native = runNative();

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
const clientJs = {};
for (const [name, Driver] of [['acd', Client], ['acd/client', SizeFirstClient]]) {
  const oneCall = clientCall(Driver, c);
  if (oneCall() !== 2) throw new Error(`the client workload did not read a page of 2 records (${name})`);
  clientJs[name] = jsNsPerCall(native, oneCall);
}

const after = runNative();
c.ns_per_call = (c.ns_per_call + after.client.ns_per_call) / 2;
g.ns_per_call = (g.ns_per_call + after.gate.ns_per_call) / 2;

const kib = (file) => `${(statSync(file).size / 1024).toFixed(1)} KiB`;
const call = (name, figure) =>
  `client call through the driver (plan + send + interpret + events) via "${name}": JS->wasm ${(figure / 1000).toFixed(2)} us, native Rust ${(c.ns_per_call / 1000).toFixed(2)} us, ratio ${(figure / c.ns_per_call).toFixed(2)}x`;
const lines = [
  `wasm sizes: acd_client_bg.wasm ${kib(clientWasmFile)} (acd/client), acd_wasm_bg.wasm ${kib(wasmFile)} (acd)`,
  `instantiate acd_wasm_bg.wasm in Node (compile + instantiate, median of 7 fresh processes): ${instantiateMs().toFixed(1)} ms`,
  `${call('acd', clientJs.acd)} (goal <= 2x)`,
  call('acd/client', clientJs['acd/client']),
  `gate decide + respond: JS->wasm ${(gateJs / 1000).toFixed(2)} us, native Rust ${(g.ns_per_call / 1000).toFixed(2)} us, ratio ${(gateJs / g.ns_per_call).toFixed(2)}x`,
];
console.log(lines.join('\n'));
