// Measurements for the report (not a test; nothing here asserts a duration):
//  - the size of each .wasm the package ships;
//  - the time to instantiate the client module in Node (compile +
//    instantiate, median of fresh processes);
//  - one driver cycle (start, poll, respond, poll: the driver protocol's
//    crossings, the records in the caller's hands as values) from
//    JavaScript through `Driver` vs the same cycle in native Rust
//    (examples/native_bench.rs, run by this script), over pages of 2 and
//    100 records, and one gate decision, as ratios.
//    Both sides run the same workload in the same script run, in paired
//    rounds: each JavaScript round runs between two native rounds, its
//    ratio is against their mean, and the figure printed is the median of
//    the rounds' ratios, so a change in machine load weighs on both sides
//    alike. Each JavaScript workload runs in a worker (an isolate) of its
//    own, as an application runs it, and each native one in a process of
//    its own.
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
    import { initSync } from ${JSON.stringify(new URL('../pkg/acd_client.js', import.meta.url).href)};
    const bytes = readFileSync(${JSON.stringify(clientWasmFile)});
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
  client: await serveNative(),
  'client-100': await serveNative(),
  gate: await serveNative(),
};
const { workload } = native.client;
const { iterations, rounds } = workload;

/**
 * A worker (bench/rounds-worker.mjs) running workload `call` in an
 * isolate of its own; `round()` resolves to one round's
 * nanoseconds per call.
 */
async function jsWorker(call) {
  const worker = new Worker(new URL('./rounds-worker.mjs', import.meta.url), {
    workerData: { call, workload },
  });
  const next = () => new Promise((resolve, reject) => {
    const onError = (error) => { worker.off('message', onMessage); reject(error); };
    const onMessage = (message) => { worker.off('error', onError); resolve(message); };
    worker.once('message', onMessage);
    worker.once('error', onError);
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
  client: { worker: await jsWorker('client'), nativeName: 'client' },
  'client-100': { worker: await jsWorker('client-100'), nativeName: 'client-100' },
  gate: { worker: await jsWorker('gate'), nativeName: 'gate' },
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
  await pairedRound('client');
  await pairedRound('client-100');
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
const lines = [
  `wasm sizes: acd_client_bg.wasm ${kib(clientWasmFile)} (acd-client), acd_wasm_bg.wasm ${kib(wasmFile)} (acd-client/gate, acd-client/testing)`,
  `instantiate acd_client_bg.wasm in Node (compile + instantiate, median of 7 fresh processes): ${instantiateMs().toFixed(1)} ms`,
  `${figure('driver cycle, page of 2 records (start, poll, respond, poll; records parsed)', 'client')} (goal <= 2x)`,
  `${figure('driver cycle, page of 100 records', 'client-100')} (goal <= 2x)`,
  figure('gate decide + respond', 'gate'),
];
console.log(lines.join('\n'));
