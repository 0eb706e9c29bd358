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

/** The part a frame belongs to. */
function part({ functionName, url }) {
  if (functionName === '(garbage collector)') return 'garbage collector';
  if (url.endsWith('/bench/workload.mjs')) return 'caller loop (workload.mjs)';
  if (/\/pkg\/acd_(wasm|client)\.js$/.test(url)) return 'wasm-bindgen glue (pkg/*.js)';
  if (/\/js\/[a-z-]+\.js$/.test(url)) return 'package JavaScript (js/*.js, JSON.parse)';
  if (functionName.startsWith('wasm-to-js') || functionName.startsWith('js-to-wasm')) return 'engine (crossings, TextDecoder, ...)';
  if (url.includes('.wasm') || functionName.startsWith('wasm-function') || /^[0-9a-f]+$/.test(url)) return 'wasm';
  return 'engine (crossings, TextDecoder, ...)';
}
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const shares = new Map();
let total = 0;
profile.samples.forEach((id, index) => {
  const delta = profile.timeDeltas[index] ?? 0;
  const frame = byId.get(id).callFrame;
  if (frame.functionName === '(idle)' || frame.functionName === '(program)') return;
  const name = part(frame);
  shares.set(name, (shares.get(name) ?? 0) + delta);
  total += delta;
});
// timeDeltas are microseconds; the profiler itself slows the run a little.
console.log(`where a client call's time goes via "${moduleName}" (${calls} calls, `
  + `${(total / Number(calls)).toFixed(2)} us per call under the profiler):`);
for (const [name, time] of [...shares].sort((a, b) => b[1] - a[1])) {
  const share = `${(100 * time / total).toFixed(1)}%`.padStart(6);
  console.log(`  ${share}  ${(time / Number(calls)).toFixed(2)} us  ${name}`);
}
