// The engine AcdClient drives, in the shape of the driver protocol
// (docs/driver-protocol.md): start(callSpec) -> id; poll(now) -> {transmits,
// events, timeout}; respond(call, status, headers, body, now); fail(call,
// kind, now); cancel(call); limits(now). This one sits over the module's
// `Client` driver and translates its call starts and events to the
// protocol's shapes; no rule lives here.

/** A copy of a transmit's request (the driver releases its own on `handle`). */
function wire(id, request) {
  return { call: id, method: request.method, url: request.url, headers: request.headers, body: request.body };
}

/** A driver event in the protocol's shape (`call` added). */
function protocolEvent(call, event) {
  switch (event.type) {
    case 'response': {
      const { status, records, index, value } = event.response;
      return { call, type: 'response', status, body: records ?? index ?? value };
    }
    case 'runStatus':
      return { call, type: 'run_status', status: event.status, terminal: event.terminal, run: event.run };
    case 'waiting': {
      const seconds = Math.max(0, Math.ceil((event.until - Date.now()) / 100) / 10);
      const limit = event.limit
        ? ` for limit ${event.limit.name} (${event.limit.requests} per ${event.limit.windowSeconds} s)` : '';
      return {
        call, type: 'waiting', until: event.until, reason: event.reason.type, limit: event.limit,
        message: `waiting ${seconds.toFixed(1)} s${limit} (${event.reason.type})`,
      };
    }
    case 'deprecation':
      return {
        call, type: 'deprecation', operation: event.operationId, sunsetAt: event.sunsetAt,
        message: `operation ${event.operationId} is deprecated`
          + (event.sunsetAt ? `; it stops working on ${new Date(event.sunsetAt).toUTCString()}` : ''),
      };
    default:
      return { call, ...event };
  }
}

/** The engine over `driver`, an instance of a module's `Client`. */
export function driverEngine(driver) {
  return {
    start(spec) {
      const { type, options: _options, ...rest } = spec;
      switch (type) {
        case 'request':
          return driver.start({
            operation: rest.operation, path: rest.path, query: rest.query, params: rest.params,
            body: rest.body === undefined ? undefined : JSON.stringify(rest.body),
            credential: rest.credential, egress: rest.egress,
          });
        case 'table_pages':
          return driver.startTablePager(rest.table, {
            pageSize: rest.page_size, orderBy: rest.order_by, descending: rest.descending,
            uniqueOrder: rest.unique_order, credential: rest.credential,
          });
        case 'connection_pages':
          return driver.startConnectionPager(rest.connection, rest.entity, {
            pageSize: rest.page_size, filter: rest.filter, egress: rest.egress, credential: rest.credential,
          });
        default:
          return driver.startRunPoller(rest.run_id, { intervalMs: rest.interval_ms, deadlineMs: rest.deadline_ms });
      }
    },
    poll(now) {
      const transmits = driver.pollTransmits(now).map(({ id, request }) => wire(id, request));
      const events = driver.pollEvents().map(({ id, event }) => protocolEvent(id, event));
      return { transmits, events, timeout: driver.pollTimeout() ?? null };
    },
    respond(call, status, headers, body, now) { driver.handle(call, { status, headers, body }, now); },
    fail(call, kind, now) { driver.handle(call, { type: 'transport', failure: kind }, now); },
    cancel(call) { driver.cancel(call); },
    limits(now) { return driver.limits(now); },
    maxBodyBytes: driver.maxBodyBytes,
    free() { driver.free(); },
  };
}
