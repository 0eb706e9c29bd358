// A worker of measure.mjs: one workload through one module in an isolate
// of its own, as an application runs it. (The package's JavaScript and the
// wasm-bindgen glue are shared by every call through a module, and the
// package's JavaScript by both modules: calls of other workloads in the
// same isolate would make their call sites polymorphic, a cost an
// application making client calls does not pay.)
// workerData: {call: "client" | "client-100" | "gate", workload}. It
// checks the call takes the path the native side times, then, for each
// message (a number of iterations), runs one round and posts its
// nanoseconds per call. The full module (acd-client/gate) is the one with both
// the Driver and the gate.
import { parentPort, workerData } from 'node:worker_threads';
import { Driver, Gate } from 'acd-client/gate';
import { clientCall, gateCall } from './workload.mjs';

const { call, workload } = workerData;
const [run, expected] = {
  client: () => [clientCall(Driver, workload.client, 2), 2],
  'client-100': () => [clientCall(Driver, workload.client, 100), 100],
  gate: () => [gateCall(Gate, workload.gate), 200],
}[call]();
const got = run();
if (got !== expected) throw new Error(`the ${call} workload returned ${got}, not ${expected}`);

parentPort.on('message', (iterations) => {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i += 1) run();
  parentPort.postMessage(Number(process.hrtime.bigint() - start) / iterations);
});
parentPort.postMessage('ready');
