// Measurements for the report (not a test; nothing here asserts a duration):
//  - the size of each .wasm the package ships;
//  - the time to instantiate the module in Node (compile + instantiate,
//    median of fresh processes);
//  - the cost of one client call through the driver (start, pollTransmits,
//    handle, pollEvents: plan + interpret) from JavaScript through the
//    package vs the same call in native Rust (examples/native_bench.rs, run
//    by this script), and of one gate decision, as ratios. The records are
//    left as each side hands them over (native: raw JSON per record; JS:
//    the array one JSON.parse of the page made); a second figure also
//    parses every record natively (a serde_json::Value each) and reads the
//    array in JS. Both sides run
//    the same workload in the same script run, in paired rounds: each
//    JavaScript round runs between two native rounds, its ratio is against
//    their mean, and the figure printed is the median of the rounds'
//    ratios, so a change in machine load weighs on both sides alike. The
//    client call is measured through both modules: "acd" (speed-first) and
//    "acd/client" (size-first).
// Usage: node wasm/bench/measure.mjs   (after scripts/lib/build-wasm.sh)
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client, Gate } from 'acd';
import { Client as SizeFirstClient } from 'acd/client';
import { clientCall, serveNative } from './workload.mjs';

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

const native = await serveNative();
const { iterations, rounds } = native.workload;
/** One JavaScript round: `iterations` calls, nanoseconds per call. */
function jsRound(call) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i += 1) call();
  return Number(process.hrtime.bigint() - start) / iterations;
}

const g = native.workload.gate;
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

const c = native.workload.client;
const clientCalls = {};
for (const [name, Driver] of [['acd', Client], ['acd/client', SizeFirstClient]]) {
  // Outside the timed rounds: each call reads a page of 2 records.
  if (clientCall(Driver, c, { readRecords: true })() !== 2) {
    throw new Error(`the client workload did not read a page of 2 records (${name})`);
  }
  clientCalls[name] = clientCall(Driver, c);
  if (clientCalls[name]() !== 1) throw new Error(`the client workload did not end in one page (${name})`);
}
const readingCall = clientCall(Client, c, { readRecords: true });

// Per round: the JavaScript figures, the native ones they are set against
// (the mean of the native rounds just before and after), and their ratios.
const series = (...names) => Object.fromEntries(names.map((name) => [name, { js: [], native: [], ratio: [] }]));
const figures = series('acd', 'acd/client', 'acd, records read', 'gate');
const record = (name, js, native) => {
  figures[name].js.push(js);
  figures[name].native.push(native);
  figures[name].ratio.push(js / native);
};
for (let round = 0; round < rounds; round += 1) {
  const before = await native.round('client');
  const js = Object.fromEntries(Object.entries(clientCalls).map(([name, call]) => [name, jsRound(call)]));
  const nativeClient = (before + await native.round('client')) / 2;
  for (const [name, ns] of Object.entries(js)) record(name, ns, nativeClient);
  const readBefore = await native.round('client-read');
  const readJs = jsRound(readingCall);
  record('acd, records read', readJs, (readBefore + await native.round('client-read')) / 2);
  const gateBefore = await native.round('gate');
  const gateJs = jsRound(decideAndRespond);
  record('gate', gateJs, (gateBefore + await native.round('gate')) / 2);
}
native.close();

const kib = (file) => `${(statSync(file).size / 1024).toFixed(1)} KiB`;
const us = (values) => `${(median(values) / 1000).toFixed(2)} us`;
const figure = (what, name) => {
  const { js, native: nativeNs, ratio } = figures[name];
  return `${what}: JS->wasm ${us(js)}, native Rust ${us(nativeNs)}, ratio ${median(ratio).toFixed(2)}x `
    + `(medians of ${rounds} paired rounds; ratios min ${Math.min(...ratio).toFixed(2)}x, max ${Math.max(...ratio).toFixed(2)}x)`;
};
const call = (name) => figure(`client call through the driver (plan + send + interpret + events) via "${name}"`, name);
const lines = [
  `wasm sizes: acd_client_bg.wasm ${kib(clientWasmFile)} (acd/client), acd_wasm_bg.wasm ${kib(wasmFile)} (acd)`,
  `instantiate acd_wasm_bg.wasm in Node (compile + instantiate, median of 7 fresh processes): ${instantiateMs().toFixed(1)} ms`,
  `${call('acd')} (goal <= 2x)`,
  call('acd/client'),
  figure('the same via "acd", then every record read (JS: the `records` array; native: a serde_json::Value each)',
    'acd, records read'),
  figure('gate decide + respond', 'gate'),
];
console.log(lines.join('\n'));
