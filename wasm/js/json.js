// JSON member names between camelCase and the core's snake_case, and a value's kind for sentences.

/** Members whose values are wire documents or caller data, kept verbatim. */
const VERBATIM = new Set(['index', 'tables', 'connections', 'records', 'body', 'input', 'env', 'runs']);
/** Members whose string values name a variant (`apiKey` for `api_key`). */
const VARIANTS = new Set(['kind', 'type', 'api_key_header', 'egress']);

const snake = (name) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** `value` with camelCase member names in snake_case (see VERBATIM and VARIANTS). */
export function snakeKeys(value) {
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (value === null || typeof value !== 'object') return value;
  const out = {};
  for (const [key, member] of Object.entries(value)) {
    const name = snake(key);
    if (VERBATIM.has(name)) out[name] = member;
    else if (VARIANTS.has(name) && typeof member === 'string') out[name] = snake(member);
    else out[name] = snakeKeys(member);
  }
  return out;
}

/** An object or its JSON text as snake_case JSON text (throws on bad JSON text). */
export function snakeJson(value) {
  return JSON.stringify(snakeKeys(typeof value === 'string' ? JSON.parse(value) : value));
}

/** `value` with snake_case member names in camelCase. */
export function camelKeys(value) {
  if (Array.isArray(value)) return value.map(camelKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, member]) =>
    [key.replace(/_([a-z0-9])/g, (_, letter) => letter.toUpperCase()), camelKeys(member)]));
}

/** What kind of value `value` is, for sentences that must not show it. */
export function describe(value) {
  if (value === null || value === undefined) return String(value);
  if (value instanceof Uint8Array) return 'a Uint8Array';
  const type = Array.isArray(value) ? 'array' : typeof value;
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}
