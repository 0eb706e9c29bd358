// Object shapes the wasm module hands to JavaScript on the driver's hot
// path (events and transmits), built here so that each is one call from
// wasm instead of one crossing per member. No rule lives here: the module
// decides every value; these functions only put them in place.

/** Appends `{id, event}` (an entry of `Client.pollEvents()`) to `out`. */
export function pushCallEvent(out, id, event) { out.push({ id, event }); }

/** The `Client.pollEvents()` entry of a `response` event of records. */
function recordsEntry(id, status, text) { return { id, event: responseEvent(recordsResponse(status, text)) }; }

/** The `Client.pollEvents()` entry of a `done` event. */
function doneEntry(id) { return { id, event: doneEvent() }; }

/**
 * Appends the entry of a `response` event of records to `out`; `text` is
 * the JSON array of the records.
 */
export function pushRecordsEvent(out, id, status, text) { out.push(recordsEntry(id, status, text)); }

/**
 * `Client.pollEvents()` when call `id` has a `response` event of records
 * (`text`: their JSON array) and then its `done` event, and nothing else.
 */
export function recordsThenDone(id, status, text) { return [recordsEntry(id, status, text), doneEntry(id)]; }

/** Appends the entry of a `done` event to `out`. */
export function pushDoneEvent(out, id) { out.push(doneEntry(id)); }

/** `{id, request}`: one entry of `Client.pollTransmits()`. */
export function transmit(id, request) { return { id, request }; }

/** The list the module handed over last (`stash`), until `takeStash` takes it. */
let stashed;

/** Keeps `list` (of transmits or events) for the package's `Client` class. */
export function stash(list) { stashed = list; }

/** The list the module handed to `stash`, taken. */
export function takeStash() {
  const list = stashed;
  stashed = undefined;
  return list;
}


/** A `response` event. */
export function responseEvent(response) { return { type: 'response', response }; }

/** An interpreted page of records; `text` is the JSON array of the records. */
export function recordsResponse(status, text) { return { type: 'records', status, records: JSON.parse(text) }; }

/** A `page` event; `text` is the JSON array of the page's records. */
export function pageEvent(text, page, last) { return { type: 'page', records: JSON.parse(text), page, last }; }

/** A `done` event. */
export function doneEvent() { return { type: 'done' }; }

/**
 * The NULs the last `pairsText` or `specText` put between its fields. The
 * module checks its text holds exactly these: one more means a string held
 * a NUL itself, and it then reads the value member by member instead.
 */
export let separators = 0;

/** `separators`, for the module. */
export function lastSeparators() { return separators; }

/** The NULs `specText` has put so far (`optionText` and `membersText` count them). */
let fields = 0;

/**
 * Headers given as an array of `[name, value]` string pairs, as one string
 * `name\0value\0...` (one crossing instead of four per pair); `undefined`
 * for any other shape, which the module then reads (and checks) member by
 * member.
 */
export function pairsText(pairs) {
  if (!Array.isArray(pairs)) return undefined;
  let text = '';
  for (const pair of pairs) {
    if (!Array.isArray(pair) || pair.length !== 2) return undefined;
    const name = pair[0];
    const value = pair[1];
    if (typeof name !== 'string' || typeof value !== 'string') return undefined;
    text += `${name}\0${value}\0`;
  }
  separators = 2 * pairs.length;
  return text;
}

/**
 * The fields `\0{tag}{name}\0{value}` of `members`: a plain object or an
 * array of pairs, of string names and string or number values (none: '');
 * `undefined` for any other shape. Builds no intermediate arrays.
 */
function membersText(tag, members) {
  if (members === undefined || members === null) return '';
  let text = '';
  if (Array.isArray(members)) {
    for (const pair of members) {
      if (!Array.isArray(pair) || pair.length !== 2) return undefined;
      const name = pair[0];
      const value = pair[1];
      if (typeof name !== 'string' || !isValue(value)) return undefined;
      text += `\0${tag}${name}\0${value}`;
      fields += 2;
    }
    return text;
  }
  if (typeof members !== 'object') return undefined;
  const proto = Object.getPrototypeOf(members);
  if (proto !== Object.prototype && proto !== null) return undefined;
  for (const name in members) {
    if (!Object.hasOwn(members, name)) continue;
    const value = members[name];
    if (!isValue(value)) return undefined;
    text += `\0${tag}${name}\0${value}`;
    fields += 2;
  }
  return text;
}

/** The field `\0{tag}{value}` of an optional string (none: ''), else undefined. */
function optionText(tag, value) {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') return undefined;
  fields += 1;
  return `\0${tag}${value}`;
}


/**
 * A request spec in its common shape (strings; path, query and params as
 * plain objects or pairs of strings and numbers; no body) as one string:
 * the operation, then NUL-separated fields each led by a tag (`c`
 * credential, `e` egress, `k` idempotency key; `p`, `q`, `r`: a path,
 * query or params name, its value next). `undefined` for any other shape,
 * which the module then reads (and checks) member by member.
 */
export function specText(spec) {
  if (spec === null || typeof spec !== 'object' || typeof spec.operation !== 'string') return undefined;
  if (spec.body !== undefined && spec.body !== null) return undefined;
  fields = 0;
  const credential = optionText('c', spec.credential);
  const egress = optionText('e', spec.egress);
  const key = optionText('k', spec.idempotencyKey);
  const path = membersText('p', spec.path);
  const query = membersText('q', spec.query);
  const params = membersText('r', spec.params);
  if (credential === undefined || egress === undefined || key === undefined
    || path === undefined || query === undefined || params === undefined) return undefined;
  separators = fields;
  return spec.operation + credential + egress + key + path + query + params;
}

/** A string or a number, the values a spec's members may hold. */
function isValue(value) {
  return typeof value === 'number' || typeof value === 'string';
}
