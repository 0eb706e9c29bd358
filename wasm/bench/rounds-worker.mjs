// A worker of measure.mjs: one workload through one module in an isolate
// of its own, as an application runs it. (The package's JavaScript and the
// wasm-bindgen glue are shared by every call through a module, and the
// package's JavaScript by both modules: calls of other workloads in the
// same isolate would make their call sites polymorphic, a cost an
// application making client calls does not pay.)
// workerData: {module: "acd" | "acd/client", call: "client" | "client-raw"
// | "gate", workload}. It checks the call takes the path the native side
// times, then, for each message (a number of iterations), runs one round
// and posts its nanoseconds per call.
import { parentPort, workerData } from 'node:worker_threads';
import { clientCall, gateCall } from './workload.mjs';

const { module, call, workload } = workerData;
const { Client, Gate } = await import(module);
const [run, expected] = {
  // Each call reads a page of 2 records (the native `client-read` round).
  client: () => [clientCall(Client, workload.client, { readRecords: true }), 2],
  // The page's records are not read (the native `client` round).
  'client-raw': () => [clientCall(Client, workload.client), 1],
  gate: () => [gateCall(Gate, workload.gate), 200],
}[call]();
const got = run();
if (got !== expected) throw new Error(`${module}: the ${call} workload returned ${got}, not ${expected}`);

parentPort.on('message', (iterations) => {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i += 1) run();
  parentPort.postMessage(Number(process.hrtime.bigint() - start) / iterations);
});
parentPort.postMessage('ready');
