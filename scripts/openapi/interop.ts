// The interop check of scripts/test-openapi: a client generated from the
// served OpenAPI document (openapi-typescript types + openapi-fetch) calls
// every operation of the API, successes and errors (400, 401, 403, 404,
// 429), and checks that the typed bodies hold what the spec says.
//
// Run against the sandbox directly and through Prism's validating proxy:
//   node interop.js BASE_URL DOCUMENT_JSON_FILE
// Exit status 0 when every check holds; otherwise one line per failure.
import createClient from "openapi-fetch";
import { readFileSync } from "node:fs";
import type { components, paths } from "./schema.js";

type ApiError = components["schemas"]["Error"];
type ValidationError = components["schemas"]["ValidationError"];
type RateLimitError = components["schemas"]["RateLimitError"];
type ApiIndex = components["schemas"]["ApiIndex"];

const [baseArg, documentArg] = process.argv.slice(2);
if (!baseArg || !documentArg) {
  console.error("usage: node interop.js BASE_URL DOCUMENT_JSON_FILE");
  process.exit(2);
}
const baseUrl: string = baseArg;
const documentFile: string = documentArg;

// Demo credentials of the sandbox (published on purpose, not secrets).
const ADA_KEY = "acd_live_demo_ada";
const ADA_TOKEN_NO_SCOPE = "acd_oat_demo_ada_noscope";
const UNKNOWN_KEY = "acd_live_no_such_key";

const client = createClient<paths>({ baseUrl });
const failures: string[] = [];
// "METHOD /path/template" -> statuses received.
const seen = new Map<string, Set<number>>();

function check(condition: boolean, what: string): void {
  if (!condition) failures.push(what);
}

function record(method: string, template: string, response: Response): void {
  const key = `${method.toUpperCase()} ${template}`;
  const statuses = seen.get(key) ?? new Set<number>();
  statuses.add(response.status);
  seen.set(key, statuses);
  // Prism's validating proxy names what it found wrong in this header.
  const violations = response.headers.get("sl-violations");
  check(violations === null, `${key}: prism violations ${String(violations)}`);
}

function isErrorBody(body: ApiError | undefined, status: number, what: string): void {
  check(typeof body?.detail === "string" && body.detail.length > 0, `${what}: detail is a sentence`);
  check(body?.status === status, `${what}: status member ${String(body?.status)} is ${status}`);
}

function rateLimitHeaders(response: Response, what: string): void {
  for (const name of ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]) {
    check(/^[0-9]+$/.test(response.headers.get(name) ?? ""), `${what}: ${name} is an integer`);
  }
}

// A filter nested 33 deep: an object, as the document's contentSchema asks,
// but deeper than the gate's bound of 32.
function deepFilter(depth: number): string {
  let text = "1";
  for (let i = 0; i < depth; i++) text = `{"a":${text}}`;
  return text;
}

async function typedCalls(): Promise<void> {
  // The index: public, typed as ApiIndex.
  {
    const { data, response } = await client.GET("/api/v1");
    record("get", "/api/v1", response);
    check(response.status === 200, `index: status ${response.status}`);
    const index: ApiIndex | undefined = data;
    check(index?.version === "v1", "index: version v1");
    check(typeof index?.rate_limits.requests === "number", "index: rate_limits.requests");
    rateLimitHeaders(response, "index");
  }
  // A table page, every query parameter typed.
  {
    const { data, response } = await client.GET("/api/v1/tables/{id}", {
      params: {
        path: { id: "orders" },
        query: { limit: 2, offset: 0, order_by: "total", direction: "desc" },
      },
      headers: { "X-API-Key": ADA_KEY },
    });
    record("get", "/api/v1/tables/{id}", response);
    check(response.status === 200, `table: status ${response.status}`);
    check(data?.data.length === 2, `table: 2 records, got ${String(data?.data.length)}`);
    rateLimitHeaders(response, "table");
  }
  // Connection records with a JSON filter (a string parameter) and the
  // stable-egress header.
  {
    const { data, response } = await client.GET("/api/v1/connections/{connection_id}/records", {
      params: {
        path: { connection_id: "crm" },
        query: { entity_id: "contacts", filter: JSON.stringify({ city: "Paris" }), limit: 10 },
        header: { "X-Stable-Egress": "true" },
      },
      headers: { "X-API-Key": ADA_KEY },
    });
    record("get", "/api/v1/connections/{connection_id}/records", response);
    check(response.status === 200, `connection: status ${response.status}`);
    check(Array.isArray(data) && data.length > 0, "connection: a non-empty top-level array");
    const cities = (data ?? []).map((row) => (row as { city?: unknown }).city);
    check(cities.every((city) => city === "Paris"), `connection: filter applied, got ${JSON.stringify(cities)}`);
  }
  // The same through the stable-egress URL.
  {
    const { data, response } = await client.GET("/egress/v1/connections/{connection_id}/records", {
      params: { path: { connection_id: "crm" }, query: { entity_id: "contacts" } },
      headers: { "X-API-Key": ADA_KEY },
    });
    record("get", "/egress/v1/connections/{connection_id}/records", response);
    check(response.status === 200, `egress: status ${response.status}`);
    check(Array.isArray(data), "egress: a top-level array");
  }
  // 400 listing the parameter: a filter nested deeper than the gate allows.
  {
    const { error, response } = await client.GET("/api/v1/connections/{connection_id}/records", {
      params: { path: { connection_id: "crm" }, query: { entity_id: "contacts", filter: deepFilter(33) } },
      headers: { "X-API-Key": ADA_KEY },
    });
    record("get", "/api/v1/connections/{connection_id}/records", response);
    check(response.status === 400, `400 filter: status ${response.status}`);
    const body: ValidationError | undefined = error;
    isErrorBody(body, 400, "400 filter");
    check(body?.errors?.[0]?.parameter === "filter", `400 filter: errors[0].parameter, got ${JSON.stringify(body?.errors)}`);
    rateLimitHeaders(response, "400 filter");
  }
  // 400: a credential in two headers.
  {
    const { error, response } = await client.GET("/api/v1/tables/{id}", {
      params: { path: { id: "orders" } },
      headers: { "X-API-Key": ADA_KEY, Authorization: `Bearer ${ADA_KEY}` },
    });
    record("get", "/api/v1/tables/{id}", response);
    check(response.status === 400, `400 two credentials: status ${response.status}`);
    isErrorBody(error, 400, "400 two credentials");
  }
  // 401: an unknown key, with its challenge.
  {
    const { error, response } = await client.GET("/api/v1/tables/{id}", {
      params: { path: { id: "orders" } },
      headers: { "X-API-Key": UNKNOWN_KEY },
    });
    record("get", "/api/v1/tables/{id}", response);
    check(response.status === 401, `401: status ${response.status}`);
    isErrorBody(error, 401, "401");
    check((response.headers.get("WWW-Authenticate") ?? "").startsWith("Bearer"), "401: WWW-Authenticate");
    check(!JSON.stringify(error).includes(UNKNOWN_KEY), "401: the body does not echo the key");
  }
  // 403: an OAuth token without the tables:read scope.
  {
    const { error, response } = await client.GET("/api/v1/tables/{id}", {
      params: { path: { id: "orders" } },
      headers: { Authorization: `Bearer ${ADA_TOKEN_NO_SCOPE}` },
    });
    record("get", "/api/v1/tables/{id}", response);
    check(response.status === 403, `403: status ${response.status}`);
    isErrorBody(error, 403, "403");
    check((response.headers.get("WWW-Authenticate") ?? "").includes("insufficient_scope"), "403: insufficient_scope");
  }
  // 404: a table that does not exist.
  {
    const { error, response } = await client.GET("/api/v1/tables/{id}", {
      params: { path: { id: "no-such-table" } },
      headers: { "X-API-Key": ADA_KEY },
    });
    record("get", "/api/v1/tables/{id}", response);
    check(response.status === 404, `404: status ${response.status}`);
    isErrorBody(error, 404, "404");
  }
}

// 429: table reads until a limit refuses (the sandbox of this check runs
// with a small per-user table-read limit).
async function rateLimited(): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { error, response } = await client.GET("/api/v1/tables/{id}", {
      params: { path: { id: "orders" }, query: { limit: 1 } },
      headers: { "X-API-Key": ADA_KEY },
    });
    record("get", "/api/v1/tables/{id}", response);
    if (response.status === 200) continue;
    check(response.status === 429, `429: status ${response.status}`);
    const body: RateLimitError | undefined = error;
    isErrorBody(body, 429, "429");
    check(typeof body?.limit === "string" && body.limit.length > 0, `429: limit names the limit, got ${String(body?.limit)}`);
    check(/^[0-9]+$/.test(response.headers.get("Retry-After") ?? ""), "429: Retry-After in seconds");
    check(response.headers.get("RateLimit-Remaining") === "0", "429: RateLimit-Remaining 0");
    check(/^[0-9]+$/.test(response.headers.get("x-ratelimit-reset") ?? ""), "429: x-ratelimit-reset");
    return;
  }
  failures.push("429: 200 table reads and no 429");
}

type Operation = {
  operationId: string;
  security?: unknown[];
  parameters?: { name: string; in: string; required?: boolean; example?: unknown }[];
  responses: Record<string, unknown>;
  requestBody?: { content?: Record<string, { example?: unknown }> };
};
const METHODS = ["get", "put", "post", "delete", "patch"] as const;

// Every operation of the document, driven by the document itself (so that
// operations added later are called too): examples for its parameters, the
// API key when it needs a credential.
async function everyOperation(document: { paths: Record<string, Record<string, Operation>> }): Promise<void> {
  for (const [template, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const path: Record<string, string> = {};
      const query: Record<string, string> = {};
      for (const parameter of operation.parameters ?? []) {
        if (parameter.example === undefined) continue;
        const value = String(parameter.example);
        if (parameter.in === "path") path[parameter.name] = value;
        if (parameter.in === "query" && parameter.required) query[parameter.name] = value;
      }
      const headers: Record<string, string> =
        (operation.security ?? document["security" as keyof typeof document] ?? []).length === 0
          ? {}
          : { "X-API-Key": ADA_KEY };
      const body = Object.values(operation.requestBody?.content ?? {})[0]?.example;
      // The generated client's generic form (`request`), with the method and
      // path only known at run time.
      const request = client.request as unknown as (
        method: string,
        url: string,
        init: Record<string, unknown>,
      ) => Promise<{ response: Response }>;
      const { response } = await request(method, template, {
        params: { path, query },
        headers,
        ...(body === undefined ? {} : { body }),
      });
      record(method, template, response);
      const documented = Object.keys(operation.responses);
      check(documented.includes(String(response.status)), `${operation.operationId}: status ${response.status} is documented`);
      check(response.status >= 200 && response.status < 300, `${operation.operationId} with its examples: status ${response.status}`);
    }
  }
}

async function main(): Promise<void> {
  const document = JSON.parse(readFileSync(documentFile, "utf8"));
  await typedCalls();
  await everyOperation(document);
  await rateLimited();
  // Every operation answered at least once with a success.
  for (const [template, item] of Object.entries(document.paths as Record<string, Record<string, Operation>>)) {
    for (const method of METHODS) {
      if (!item[method]) continue;
      const statuses = [...(seen.get(`${method.toUpperCase()} ${template}`) ?? [])];
      check(statuses.some((status) => status >= 200 && status < 300), `${method.toUpperCase()} ${template}: never a success (${statuses.join(", ")})`);
    }
  }
  const all = new Set([...seen.values()].flatMap((statuses) => [...statuses]));
  for (const status of [400, 401, 403, 404, 429]) check(all.has(status), `no ${status} was exercised`);
  const calls = [...seen.entries()].map(([key, statuses]) => `${key} -> ${[...statuses].sort().join(",")}`);
  console.log(calls.join("\n"));
  if (failures.length > 0) {
    console.error(`interop: ${failures.length} failure(s) against ${baseUrl}:\n  ${failures.join("\n  ")}`);
    process.exit(1);
  }
  console.log(`interop: every check held against ${baseUrl}`);
}

main().catch((error: unknown) => {
  console.error(`interop: ${String(error)}`);
  process.exit(1);
});
