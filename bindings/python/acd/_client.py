"""``acd.Client``: the core's client driver, sans-IO, through the driver
protocol of ``docs/driver-protocol.md``: a call spec in, an outcome in, one
batch (transmits, events, next timeout) out per :meth:`Client.poll`.
:class:`acd.HttpClient` and :class:`acd.AsyncHttpClient` drive it over HTTP;
drive it yourself for another transport or a test clock::

    client = acd.Client({"api_key": "acd_live_demo_ada"})
    call = client.start({"type": "table_pages", "table": "orders", "page_size": 2})
    while True:
        batch = client.poll(now_ms())
        for t in batch["transmits"]:
            reply = send(t)                                   # your transport
            client.respond(t["call"], reply.status, reply.headers, reply.body, now_ms())
        ...                                                   # batch["events"]
"""
from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ._errors import AcdError, ConfigError, from_core
from ._ffi import acd_ffi as _ffi

__all__ = ["Client", "Batch"]

Batch = Dict[str, Any]

_FAILURES = {
    "connect": _ffi.TransportFailure.CONNECT,
    "timeout": _ffi.TransportFailure.TIMEOUT,
    "interrupted": _ffi.TransportFailure.INTERRUPTED,
}
_ROLES = {"limit", "offset", "order_by", "direction", "after", "filter", "entity_id"}


def _raise(error: _ffi.AcdError) -> AcdError:
    message = str(error)
    category = "config" if isinstance(error, _ffi.AcdError.Config) else "request"
    return from_core({"category": category}, message)


def _core_config(config: Mapping[str, Any]) -> str:
    """The core's configuration JSON for the protocol's config members."""
    core = {k: v for k, v in config.items() if k not in ("api_key", "env")}
    env = config.get("env") or {}
    key = config.get("api_key") or env.get("ACD_API_KEY")
    if "credentials" not in core and key:
        core["credentials"] = [{"id": "default", "kind": "api_key", "secret": key, "user": "default"}]
    base = core.get("base_url") or env.get("ACD_BASE_URL")
    if base:
        core["base_url"] = base[:-1] if base.endswith("/") else base
    return json.dumps(core)


def _message(event: Dict[str, Any]) -> str:
    limit = event.get("limit")
    seconds = event["wait_ms"] / 1000
    if limit:
        return (f"waiting {seconds:.1f} s for limit {limit['name']} "
                f"({limit['requests']} per {limit['window_seconds']} s)")
    reason = event.get("reason")
    what = reason if isinstance(reason, str) else "a retry"
    return f"waiting {seconds:.1f} s ({str(what).replace('_', ' ')})"


class Client:
    """The core's client driver for one configuration (the protocol's config
    JSON as a dict: the core's ``ClientConfig`` members, plus ``api_key``
    and ``env``).

    :raises ConfigError: when the core refuses the configuration.
    """

    def __init__(self, config: Optional[Mapping[str, Any]] = None) -> None:
        try:
            core = _ffi.ClientConfig.from_json(_core_config(config or {})).with_get_run()
            self._client = _ffi.Client(core)
        except _ffi.AcdError as error:
            raise _raise(error) from None
        self.max_body_bytes: int = self._client.max_body_bytes()
        """The largest response body accepted (the core's ``max_body_bytes``)."""
        self._calls: Dict[int, Dict[str, Any]] = {}
        self._pending: List[Dict[str, Any]] = []

    def __repr__(self) -> str:
        return "acd.Client()"

    def start(self, spec: Mapping[str, Any]) -> int:
        """Starts the call of ``spec`` (a CallSpec: ``request``,
        ``table_pages``, ``connection_pages`` or ``run_poll``); its id.
        Raises :class:`RequestError` or :class:`ConfigError` before any I/O."""
        kind = spec.get("type")
        options = spec.get("options") or {}
        try:
            if kind == "request":
                call = self._client.start(self._request_spec(spec, options))
            elif kind == "table_pages":
                members = {k: spec[k] for k in ("page_size", "order_by", "descending", "unique_order")
                           if spec.get(k) is not None}
                call = self._client.start_table_pager(spec["table"], json.dumps(members))
            elif kind == "connection_pages":
                members = {k: spec[k] for k in ("page_size", "filter") if spec.get(k) is not None}
                call = self._client.start_connection_pager(spec["connection"], spec["entity"], json.dumps(members))
            elif kind == "run_poll":
                members = {k: spec[k] for k in ("interval_ms", "deadline_ms") if spec.get(k) is not None}
                call = self._client.start_run_poller(spec["run_id"], json.dumps(members))
            else:
                raise from_core({"category": "request"}, f"call spec type {kind!r} is not one of request, "
                                "table_pages, connection_pages, run_poll")
        except _ffi.AcdError as error:
            raise _raise(error) from None
        self._calls[call] = {"headers": [tuple(h) for h in options.get("headers", [])],
                             "timeout_ms": options.get("timeout_ms"), "deadline": None}
        return call

    def _request_spec(self, spec: Mapping[str, Any], options: Mapping[str, Any]) -> _ffi.RequestSpec:
        query: Sequence[Tuple[str, str]] = spec.get("query") or []
        body = spec.get("body")
        return _ffi.RequestSpec(
            operation=spec["operation"],
            path=[_ffi.PathParam(name=k, value=str(v)) for k, v in (spec.get("path") or {}).items()],
            query=[_ffi.QueryParam(name=k, value=str(v)) for k, v in query],
            roles=[], credential=spec.get("credential"), egress=_ffi.EgressMode.DEFAULT,
            body=None if body is None else json.dumps(body).encode("utf-8"),
            idempotency_key=options.get("idempotency_key"))

    def cancel(self, call: int) -> None:
        """Drops ``call``: nothing more is sent or emitted for it."""
        self._calls.pop(call, None)
        self._client.cancel(call)

    def poll(self, now_ms: int) -> Batch:
        """One batch: every request that may go now (its send recorded at
        ``now_ms``), every event, and the next wake-up (Unix ms or ``None``)."""
        transmits = []
        for call, state in list(self._calls.items()):
            if state["deadline"] is not None and now_ms >= state["deadline"]:
                self.cancel(call)
                self._pending.append({"call": call, "type": "failed", "error": {
                    "type": "timeout", "category": "timeout",
                    "message": f"the call did not finish within {state['timeout_ms'] / 1000:g} s"}})
        while (sent := self._client.poll_transmit(now_ms)) is not None:
            call, request = sent.id, sent.request
            state = self._calls.get(call, {"headers": [], "timeout_ms": None, "deadline": None})
            if state["timeout_ms"] is not None and state["deadline"] is None:
                state["deadline"] = now_ms + state["timeout_ms"]
            body = request.body()
            transmits.append({"call": call, "method": request.method(), "url": request.url(),
                              "headers": [(h.name, h.value) for h in request.wire_headers()] + state["headers"],
                              "body": None if body is None else body.decode("utf-8"),
                              "timeout_at": state["deadline"]})
        events = self._pending + self._drain(now_ms)
        self._pending = []
        timeout = self._client.poll_timeout()
        deadlines = [s["deadline"] for s in self._calls.values() if s["deadline"] is not None]
        if deadlines and not self._client.is_idle():
            timeout = min([timeout, *deadlines] if timeout is not None else deadlines)
        return {"transmits": transmits, "events": events, "timeout": timeout}

    def _drain(self, now_ms: int) -> List[Dict[str, Any]]:
        events = []
        for entry in json.loads(self._client.poll_events_json()):
            event, call = entry["event"], entry["call"]
            event["call"] = call
            if event["type"] == "failed":
                event = {"call": call, "type": "failed",
                         "error": {**event, "type": event.get("kind"), "category": entry["category"],
                                   "message": entry["message"]}}
            elif event["type"] == "waiting":
                event["wait_ms"] = max(0, event["until"] - now_ms)
                event["message"] = _message(event)
            elif event["type"] == "deprecation":
                event["message"] = _deprecation_message(event)
            if event["type"] in ("done", "failed"):
                self._calls.pop(call, None)
            events.append(event)
        return events

    def respond(self, call: int, status: int, headers: Sequence[Tuple[str, str]], body: bytes,
                now_ms: int) -> None:
        """The response to the request sent for ``call``."""
        response = _ffi.HttpResponse(status=status, body=body,
                                     headers=[_ffi.ResponseHeader(name=n, value=v) for n, v in headers])
        self._handle(call, _ffi.Outcome.RESPONSE(response=response), now_ms)

    def fail(self, call: int, kind: str, now_ms: int) -> None:
        """No response for ``call``: ``kind`` is ``connect``, ``timeout`` or ``interrupted``."""
        self._handle(call, _ffi.Outcome.TRANSPORT(failure=_FAILURES[kind]), now_ms)

    def _handle(self, call: int, outcome: _ffi.Outcome, now_ms: int) -> None:
        if call not in self._calls:
            return
        try:
            self._client.handle(call, outcome, now_ms)
        except _ffi.AcdError as error:
            raise _raise(error) from None

    def is_idle(self) -> bool:
        """Whether every call has ended."""
        return self._client.is_idle()

    def limits(self) -> List[Dict[str, Any]]:
        """The throttle's view of each limit, as the core reports it."""
        limits: List[Dict[str, Any]] = json.loads(self._client.limits_json())
        return limits


def _deprecation_message(event: Dict[str, Any]) -> str:
    import datetime

    def date(seconds: Any) -> str:
        return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%d %B %Y %H:%M UTC")

    text = f"the API marks operation {event.get('operation_id')} deprecated"
    deprecated = event.get("deprecated")
    if isinstance(deprecated, dict) and isinstance(deprecated.get("unix_seconds"), int):
        text += f" since {date(deprecated['unix_seconds'])}"
    if isinstance(event.get("sunset_at"), int):
        text += f"; it stops working on {date(event['sunset_at'])}"
    link = event.get("deprecation_link") or event.get("sunset_link")
    return text + (f" (see {link})" if link else "")
