// A worker of measure.mjs: one module's calls in an isolate of their own,
// as an application loads one module (the package's JavaScript is shared
// by both modules, so calls through both in one isolate would make its
// call sites polymorphic, a cost no single-module application pays).
// workerData: {module: "acd" | "acd/client", workload}; it checks its
// calls take the path the native side times, then, for each message
// {call, iterations}, runs one round of that call and posts its
// nanoseconds per call.
import { parentPort, workerData } from 'node:worker_threads';
import { clientCall, gateCall } from './workload.mjs';

const { module, workload } = workerData;
const { Client, Gate } = await import(module);
const calls = {
  // Each call reads a page of 2 records (the native `client-read` round).
  client: [clientCall(Client, workload.client, { readRecords: true }), 2],
  // The page's records are not read (the native `client` round).
  'client-raw': [clientCall(Client, workload.client), 1],
};
if (Gate !== undefined) calls.gate = [gateCall(Gate, workload.gate), 200];
for (const [name, [call, expected]] of Object.entries(calls)) {
  const got = call();
  if (got !== expected) throw new Error(`${module}: the ${name} workload returned ${got}, not ${expected}`);
}

parentPort.on('message', ({ call, iterations }) => {
  const [run] = calls[call];
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i += 1) run();
  parentPort.postMessage(Number(process.hrtime.bigint() - start) / iterations);
});
parentPort.postMessage('ready');
