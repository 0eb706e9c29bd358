// A typed example of the acd-wasm package: checked by `tsc --noEmit --strict`
// against the generated .d.ts (scripts/test-wasm), never run. It imports the
// package by name, so the check also covers package.json `exports`/`types`.
import init, {
  Admitted, AcdApiError, AcdError, AcdErrorCode, Gate, GateConfig, GateRequestInit, GateResponse,
  nowMs,
} from 'acd';
import { AcdStateError } from 'acd/errors';

export async function serveOne(request: GateRequestInit): Promise<GateResponse> {
  await init(); // browsers: fetches acd_wasm_bg.wasm next to the module; Node: already done
  const config: GateConfig = {
    base_url: 'http://127.0.0.1:8080',
    limits: { credential: { requests: 100, window_ms: 60_000 } },
  };
  const gate = new Gate(config, [
    { secret: 'acd_live_demo_ada', id: 'key-ada', kind: 'api_key', user: 'ada', scopes: [] },
  ]);
  const decision: GateResponse | Admitted = gate.decide(request, nowMs());
  if (decision.kind === 'respond') {
    const status: number = decision.status;
    const headers: Array<[string, string]> = decision.headers;
    const body: Uint8Array = decision.body;
    void status; void headers; void body;
    return decision;
  }
  const params: Record<string, number | string> = decision.params;
  const limit = params['limit'];
  const page = typeof limit === 'number' ? limit : 100;
  const user: string | undefined = decision.user;
  const pairs: Array<[string, string]> = decision.pathParams;
  const table = pairs[0]?.[1] ?? '';
  if (table === 'missing') {
    return decision.respondNotFound();
  }
  if (page > 1000) {
    return decision.respondInvalid([{ parameter: 'limit', problem: 'is too large for this table' }]);
  }
  return decision.respondFound(JSON.stringify([{ owner: user ?? null, page }]));
}

export function explain(error: unknown): string {
  if (error instanceof AcdApiError) {
    return `${error.status}: ${error.detail}`;
  }
  if (error instanceof AcdStateError || error instanceof AcdError) {
    const code: AcdErrorCode = error.code;
    return `${error.name} (${code}): ${error.message}`;
  }
  return String(error);
}

// Wrong uses the types must refuse.
// @ts-expect-error the time is a number of Unix milliseconds
Gate.demo().decide({ target: '/api/v1' }, new Date());
// @ts-expect-error a target is a string or bytes
Gate.demo().decide({ target: 42 }, 0);
// @ts-expect-error credential kinds are api_key or oauth2
new Gate(null, [{ secret: 's', id: 'i', kind: 'password', user: 'u' }]);
