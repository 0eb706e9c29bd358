"""The sans-IO engine behind :class:`acd.Client`: the core's driver, reached
through one coarse call per step. Calls are started, the driver says what to
send and when, outcomes are handed back, and events come out in order
(``response``, ``page``, ``run_status``, ``waiting``, ``deprecation``, then
exactly one ``done`` or ``failed`` per call).

Every decision is the core's (request building, throttle, retry planning,
paging, polling). Events cross the boundary as one JSON array per drain and
are parsed once here, records included.
"""
from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple, Union

from ._ffi import acd_ffi as _ffi
from ._transport import Request, Response, TransportFailure

__all__ = ["Engine", "Event"]

Event = Dict[str, Any]

_FAILURES = {
    "connect": _ffi.TransportFailure.CONNECT,
    "timeout": _ffi.TransportFailure.TIMEOUT,
    "interrupted": _ffi.TransportFailure.INTERRUPTED,
}


def _options(**members: Any) -> str:
    return json.dumps({name: value for name, value in members.items() if value is not None})


class Engine:
    """The core's driver for one client configuration (core JSON)."""

    def __init__(self, config_json: bytes) -> None:
        config = _ffi.ClientConfig.from_json(config_json.decode("utf-8")).with_get_run()
        self._client = _ffi.Client(config)
        self.max_body_bytes: int = self._client.max_body_bytes()
        """The largest response body accepted (the core's ``max_body_bytes``)."""

    def start(self, spec: _ffi.RequestSpec) -> int:
        """Starts one request (validated and built now; raises if refused)."""
        return self._client.start(spec)

    def start_table_pager(self, table: str, page_size: Optional[int], order_by: Optional[str], descending: bool,
                          unique_order: bool) -> int:
        """Starts paging through ``table``."""
        return self._client.start_table_pager(table, _options(page_size=page_size, order_by=order_by,
                                                              descending=descending, unique_order=unique_order))

    def start_connection_pager(self, connection: str, entity: str, page_size: Optional[int],
                               filter: Optional[str]) -> int:
        """Starts paging through the records of ``entity`` in ``connection``."""
        return self._client.start_connection_pager(connection, entity, _options(page_size=page_size, filter=filter))

    def start_run_poller(self, run_id: str, options_json: Optional[str]) -> int:
        """Starts polling run ``run_id`` until a terminal state."""
        return self._client.start_run_poller(run_id, options_json or "{}")

    def cancel(self, call: int) -> None:
        """Drops ``call``; nothing more is emitted for it."""
        self._client.cancel(call)

    def poll_transmit(self, now: int) -> Optional[Tuple[int, Request]]:
        """The next request to send now, if any (its send is recorded at ``now``)."""
        transmit = self._client.poll_transmit(now)
        if transmit is None:
            return None
        request = transmit.request
        return transmit.id, Request(request.method(), request.url(),
                                    [(h.name, h.value) for h in request.wire_headers()], request.body(),
                                    self.max_body_bytes)

    def handle(self, call: int, outcome: Union[Response, TransportFailure], now: int) -> None:
        """How the attempt sent for ``call`` ended."""
        core: _ffi.Outcome
        if isinstance(outcome, TransportFailure):
            core = _ffi.Outcome.TRANSPORT(failure=_FAILURES[outcome.kind])
        else:
            core = _ffi.Outcome.RESPONSE(response=_ffi.HttpResponse(
                status=outcome.status, body=outcome.body,
                headers=[_ffi.ResponseHeader(name=n, value=v) for n, v in outcome.headers]))
        self._client.handle(call, core, now)

    def poll_events(self) -> List[Tuple[int, Event]]:
        """Drains the events, in order (one call across the boundary)."""
        drained: List[Dict[str, Any]] = json.loads(self._client.poll_events_json())
        for entry in drained:
            if "message" in entry:
                entry["event"]["message"] = entry["message"]
                entry["event"]["category"] = entry["category"]
        return [(entry["call"], entry["event"]) for entry in drained]

    def poll_timeout(self) -> Optional[int]:
        """The earliest instant at which :meth:`poll_transmit` may have
        something new (``None``: nothing is waiting)."""
        return self._client.poll_timeout()

    def is_idle(self) -> bool:
        """Whether no call is live."""
        return self._client.is_idle()
