// Measurements for the report (not a test; nothing here asserts a duration):
//  - the size of each .wasm the package ships;
//  - the time to instantiate the module in Node (compile + instantiate,
//    median of fresh processes);
//  - the cost of one client call through the driver (start, pollTransmits,
//    handle, pollEvents: plan + interpret) from JavaScript through the
//    package vs the same call in native Rust (examples/native_bench.rs, run
//    by this script), and of one gate decision, as ratios.
//    The headline (the goal line) compares the same work: a call that ends
//    with the page's records in the caller's hands as values, which from
//    JavaScript is the `records` array (the package parses the page with
//    one JSON.parse on every call) and natively a serde_json::Value per
//    record. A second figure leaves the native records raw (`RawValue`s,
//    as the Rust driver hands them over, not yet usable as values) while
//    JavaScript still parses them: the native side does less there.
//    Both sides run the same workload in the same script run, in paired
//    rounds: each JavaScript round runs between two native rounds, its
//    ratio is against their mean, and the figure printed is the median of
//    the rounds' ratios, so a change in machine load weighs on both sides
//    alike. The client call is measured through both modules: "acd"
//    (speed-first) and "acd/client" (size-first), each in a worker (an
//    isolate) of its own, as an application loads one module: the
//    package's JavaScript is shared by both, and calls through both in one
//    isolate would make its call sites polymorphic.
// Usage: node wasm/bench/measure.mjs   (after scripts/lib/build-wasm.sh)
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { serveNative } from './workload.mjs';

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

/**
 * A worker (bench/rounds-worker.mjs) running the calls through `module`
 * in an isolate of its own; `round(call)` resolves to one round's
 * nanoseconds per call.
 */
async function jsWorker(module) {
  const worker = new Worker(new URL('./rounds-worker.mjs', import.meta.url), {
    workerData: { module, workload: native.workload },
  });
  const next = () => new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await next(); // 'ready': its calls took the expected paths
  return {
    round: (call) => {
      const done = next();
      worker.postMessage({ call, iterations });
      return done;
    },
    close: () => worker.terminate(),
  };
}
const speedFirst = await jsWorker('acd');
const sizeFirst = await jsWorker('acd/client');

// Per round: the JavaScript figures, the native ones they are set against
// (the mean of the native rounds just before and after), and their ratios.
const series = (...names) => Object.fromEntries(names.map((name) => [name, { js: [], native: [], ratio: [] }]));
const figures = series('acd', 'acd/client', 'acd, native records raw', 'gate');
const record = (name, js, nativeNs) => {
  figures[name].js.push(js);
  figures[name].native.push(nativeNs);
  figures[name].ratio.push(js / nativeNs);
};
/**
 * One JavaScript round of each of `calls` (figure name: [worker, call])
 * between two native rounds of `nativeName`.
 */
async function pairedRound(nativeName, calls) {
  const before = await native.round(nativeName);
  const js = [];
  for (const [name, [worker, call]] of Object.entries(calls)) js.push([name, await worker.round(call)]);
  const after = await native.round(nativeName);
  for (const [name, ns] of js) record(name, ns, (before + after) / 2);
}
for (let round = 0; round < rounds; round += 1) {
  await pairedRound('client-read', { acd: [speedFirst, 'client'], 'acd/client': [sizeFirst, 'client'] });
  await pairedRound('client', { 'acd, native records raw': [speedFirst, 'client-raw'] });
  await pairedRound('gate', { gate: [speedFirst, 'gate'] });
}
native.close();
await Promise.all([speedFirst.close(), sizeFirst.close()]);

const kib = (file) => `${(statSync(file).size / 1024).toFixed(1)} KiB`;
const us = (values) => `${(median(values) / 1000).toFixed(2)} us`;
const figure = (what, name) => {
  const { js, native: nativeNs, ratio } = figures[name];
  return `${what}: JS->wasm ${us(js)}, native Rust ${us(nativeNs)}, ratio ${median(ratio).toFixed(2)}x `
    + `(medians of ${rounds} paired rounds; ratios min ${Math.min(...ratio).toFixed(2)}x, max ${Math.max(...ratio).toFixed(2)}x)`;
};
const call = (name) => figure('client call through the driver (plan + send + interpret + events, the records '
  + `in the caller's hands: JS the \`records\` array, native a serde_json::Value each) via "${name}"`, name);
const lines = [
  `wasm sizes: acd_client_bg.wasm ${kib(clientWasmFile)} (acd/client), acd_wasm_bg.wasm ${kib(wasmFile)} (acd)`,
  `instantiate acd_wasm_bg.wasm in Node (compile + instantiate, median of 7 fresh processes): ${instantiateMs().toFixed(1)} ms`,
  `${call('acd')} (goal <= 2x)`,
  call('acd/client'),
  figure('the same via "acd", the native records left raw (RawValue each; JS still parses them)',
    'acd, native records raw'),
  figure('gate decide + respond', 'gate'),
];
console.log(lines.join('\n'));
