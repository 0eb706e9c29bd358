"""``acd.Client``: the core's client driver, sans-IO, through the driver
protocol of ``docs/driver-protocol.md``: one crossing per step (a call spec
in, an outcome in, one batch of transmits, events and the next timeout out
per :meth:`Client.poll`, parsed once with :func:`json.loads`).
:class:`acd.HttpClient` and :class:`acd.AsyncHttpClient` drive it over HTTP;
drive it yourself for another transport or a test clock::

    client = acd.Client({"api_key": "acd_live_demo_ada"})
    call = client.start({"type": "table_pages", "table": "orders", "page_size": 2})
    while True:
        batch = client.poll(now_ms())
        for t in batch["transmits"]:
            reply = send(t)                                   # your transport
            client.respond(t["call"], reply.status, reply.headers, reply.body, now_ms())
        ...                                                   # batch["events"], batch["timeout"]
"""
from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Sequence, Set, Tuple

from ._errors import AcdError, from_core
from ._ffi import acd_ffi as _ffi

__all__ = ["Client", "Batch"]

Batch = Dict[str, Any]
"""One poll's batch: ``transmits``, ``events`` and ``timeout`` (Unix ms or ``None``)."""


def _raised(error: _ffi.DriverError) -> AcdError:
    """The typed exception for a refusal of the core (its error object)."""
    text = error.json if isinstance(error, _ffi.DriverError.Call) else "{}"
    core: Dict[str, Any] = json.loads(text)
    return from_core(core, str(core.get("message", "")))


class Client:
    """The core's client driver for one configuration: the protocol's config
    JSON as a dict (the core's ``ClientConfig`` members, plus ``api_key`` and
    ``env``; every member optional).

    :raises ConfigError: when the core refuses the configuration.
    """

    def __init__(self, config: Optional[Mapping[str, Any]] = None) -> None:
        config = config or {}
        try:
            self._driver = _ffi.Driver(json.dumps(config).encode("utf-8"))
        except _ffi.DriverError as error:
            raise _raised(error) from None
        bound = config.get("max_body_bytes")
        self.max_body_bytes: int = bound if isinstance(bound, int) else _ffi.default_max_body_bytes()
        """The largest response body accepted: a transport stops reading past it."""
        self._live: Set[int] = set()

    def __repr__(self) -> str:
        return f"acd.Client({len(self._live)} live calls)"

    def start(self, spec: Mapping[str, Any]) -> int:
        """Starts the call of ``spec`` (a call spec: ``request``,
        ``table_pages``, ``connection_pages`` or ``run_poll``); returns its id.
        Raises :class:`RequestError` or :class:`ConfigError` before any I/O."""
        try:
            call = self._driver.start(json.dumps(spec).encode("utf-8"))
        except _ffi.DriverError as error:
            raise _raised(error) from None
        self._live.add(call)
        return call

    def poll(self, now_ms: int) -> Batch:
        """One batch: every request that may go now (its send recorded at
        ``now_ms``), every event, and the next wake-up (Unix ms or ``None``)."""
        try:
            batch: Batch = json.loads(self._driver.poll(now_ms))
        except _ffi.DriverError as error:
            raise _raised(error) from None
        for event in batch["events"]:
            if event.get("type") in ("done", "failed"):
                self._live.discard(event.get("call", -1))
        return batch

    def respond(self, call: int, status: int, headers: Sequence[Tuple[str, str]], body: bytes,
                now_ms: int) -> None:
        """The response to the request sent for ``call``."""
        block = "\r\n".join(f"{name}: {value}" for name, value in headers)
        try:
            self._driver.respond(call, status, block, body, now_ms)
        except _ffi.DriverError as error:
            raise _raised(error) from None

    def fail(self, call: int, kind: str, now_ms: int) -> None:
        """No response for ``call``: ``kind`` is ``connect``, ``timeout`` or ``interrupted``."""
        try:
            self._driver.fail(call, kind, now_ms)
        except _ffi.DriverError as error:
            raise _raised(error) from None

    def cancel(self, call: int) -> None:
        """Drops ``call``: nothing more is sent or reported for it."""
        self._live.discard(call)
        self._driver.cancel(call)

    def is_idle(self) -> bool:
        """Whether every call started here has ended or been cancelled."""
        return not self._live

    def limits(self) -> List[Dict[str, Any]]:
        """The throttle's view of each limit, as the core reports it (times in Unix ms)."""
        limits: List[Dict[str, Any]] = json.loads(self._driver.limits())
        return limits
