// Where the time of a client call from JavaScript goes: runs the workload of
// measure.mjs (workload.mjs) in a loop under V8's sampling profiler and
// prints the share of the samples spent in each part: wasm (the module's
// code, the core's work), the wasm-bindgen glue (pkg/*.js: string and byte
// copies, object wrapping), the package's JavaScript (js/*.js: shapes,
// the driver wrapper; JSON.parse of the records is counted here), the
// caller's loop, the garbage collector and the rest of the engine
// (crossings, TextDecoder). A diagnostic for the report, not a test.
// Usage: node wasm/bench/profile.mjs [acd | acd/client] [calls]
//        (after scripts/lib/build-wasm.sh)
import { Session } from 'node:inspector';
import { Client } from 'acd';
import { Client as SizeFirstClient } from 'acd/client';
import { clientCall, runNative } from './workload.mjs';

const [moduleName = 'acd', calls = '200000'] = process.argv.slice(2);
const Driver = { acd: Client, 'acd/client': SizeFirstClient }[moduleName];
if (Driver === undefined) throw new Error(`unknown module ${moduleName}: acd or acd/client`);

const session = new Session();
session.connect();
const post = (method, params) => new Promise((resolve, reject) => {
  session.post(method, params, (error, result) => (error ? reject(error) : resolve(result)));
});

const oneCall = clientCall(Driver, runNative().client);
for (let i = 0; i < 20_000; i += 1) oneCall(); // warm up: every tier compiled
await post('Profiler.enable');
await post('Profiler.setSamplingInterval', { interval: 100 });
await post('Profiler.start');
for (let i = 0; i < Number(calls); i += 1) oneCall();
const { profile } = await post('Profiler.stop');
session.disconnect();

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const shares = new Map(); let total = 0;
profile.samples.forEach((id, index) => {
  const delta = profile.timeDeltas[index] ?? 0;
  const f = byId.get(id).callFrame;
  if (f.functionName === '(idle)' || f.functionName === '(program)') return;
  const key = `${f.functionName || '(anon)'} ${f.url.split('/').slice(-1)[0]}:${f.lineNumber}`;
  shares.set(key, (shares.get(key) ?? 0) + delta); total += delta;
});
for (const [name, time] of [...shares].sort((a, b) => b[1] - a[1]).slice(0, 40)) {
  console.log(`${(1000 * time / Number(calls)).toFixed(0).padStart(6)} ns  ${name.slice(0, 120)}`);
}
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n);
for (const target of (process.env.CALLERS ?? '').split(',').filter(Boolean)) {
  const callers = new Map();
  profile.samples.forEach((id, index) => {
    const node = byId.get(id);
    if (!node.callFrame.functionName.includes(target)) return;
    const p = parent.get(id);
    const key = p ? p.callFrame.functionName.slice(0, 110) : '?';
    callers.set(key, (callers.get(key) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  console.log(`callers of ${target}:`);
  for (const [k, t] of [...callers].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`${(1000 * t / Number(calls)).toFixed(0).padStart(6)} ns  ${k}`);
}
