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
//    (speed-first) and "acd/client" (size-first). Each JavaScript workload
//    runs in a worker (an isolate) of its own, as an application runs it,
//    and each native one in a process of its own: the package's JavaScript
//    and the glue are shared by every workload, and other workloads in the
//    same isolate would make their call sites polymorphic (measured: the
//    client call 10-20% slower beside the gate's), a cost an application
//    making client calls does not pay.
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

// The native side: one process per workload, as each JavaScript workload
// runs in an isolate of its own.
const native = {
  'client-read': await serveNative(),
  client: await serveNative(),
  gate: await serveNative(),
};
const { workload } = native.client;
const { iterations, rounds } = workload;

/**
 * A worker (bench/rounds-worker.mjs) running workload `call` through
 * `module` in an isolate of its own; `round()` resolves to one round's
 * nanoseconds per call.
 */
async function jsWorker(module, call) {
  const worker = new Worker(new URL('./rounds-worker.mjs', import.meta.url), {
    workerData: { module, call, workload },
  });
  const next = () => new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await next(); // 'ready': the call took the expected path
  return {
    round: () => {
      const done = next();
      worker.postMessage(iterations);
      return done;
    },
    close: () => worker.terminate(),
  };
}
// Figure name: its JavaScript worker and the native workload it is set against.
const figures = {
  acd: { worker: await jsWorker('acd/gate', 'client'), nativeName: 'client-read' },
  'acd, native records raw': { worker: await jsWorker('acd/gate', 'client-raw'), nativeName: 'client' },
  gate: { worker: await jsWorker('acd/gate', 'gate'), nativeName: 'gate' },
};
for (const figure of Object.values(figures)) Object.assign(figure, { js: [], native: [], ratio: [] });

/**
 * One paired round of `names` (figures set against the same native
 * workload): a JavaScript round of each between two native rounds; each
 * ratio is against the mean of the two.
 */
async function pairedRound(...names) {
  const server = native[figures[names[0]].nativeName];
  const before = await server.round(figures[names[0]].nativeName);
  const js = [];
  for (const name of names) js.push([name, await figures[name].worker.round()]);
  const after = await server.round(figures[names[0]].nativeName);
  for (const [name, ns] of js) {
    const figure = figures[name];
    figure.js.push(ns);
    figure.native.push((before + after) / 2);
    figure.ratio.push(ns / ((before + after) / 2));
  }
}
for (let round = 0; round < rounds; round += 1) {
  await pairedRound('acd');
  await pairedRound('acd, native records raw');
  await pairedRound('gate');
}
for (const server of Object.values(native)) server.close();
await Promise.all(Object.values(figures).map(({ worker }) => worker.close()));

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
  figure('the same via "acd", the native records left raw (RawValue each; JS still parses them)',
    'acd, native records raw'),
  figure('gate decide + respond', 'gate'),
];
console.log(lines.join('\n'));
