"""Deterministic tests of your own code against the API's rules, without a
server and without sleeping.

* :class:`VirtualClock`: a clock in Unix ms whose ``sleep`` advances it; pass
  ``clock=clock, sleep=clock.sleep`` (or ``sleep=clock.async_sleep``) to
  :class:`acd.HttpClient` / :class:`acd.AsyncHttpClient`.
* :class:`GateTransport`: a transport that answers with the core's gate (the
  server's own rules: credentials, stacked rate limits, validation) and the
  simulation's record server, reading the same virtual clock.
* :func:`simulate`: the core's simulation (many clients against a gate, with
  injected faults) in virtual time, and its report.

::

    clock = acd.testing.VirtualClock()
    gate = acd.testing.GateTransport(clock, tables={"orders": rows},
                                     limits={"user_table_reads": {"requests": 5, "window_ms": 60_000}})
    with acd.HttpClient(api_key="acd_live_demo_ada", http_client=gate,
                        clock=clock, sleep=clock.sleep) as api:
        assert len(list(api.tables.iter("orders", page_size=10))) == len(rows)
    assert 429 not in gate.statuses
"""
from __future__ import annotations

import json
import math
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union
from urllib.parse import urlsplit

from ._errors import ConfigError
from ._ffi import acd_ffi as _ffi
from ._transport import Request, Response, TransportFailure

__all__ = ["VirtualClock", "GateTransport", "AsyncGateTransport", "DEMO_API_KEY", "simulate"]

DEMO_API_KEY = "acd_live_demo_ada"
"""An API key the demo gate knows (user ``ada``)."""

Fault = Callable[[Request], Optional[Union[Response, TransportFailure]]]


class VirtualClock:
    """A clock that only moves when told (or when slept on).

    :param start_ms: the starting instant, Unix ms.
    """

    def __init__(self, start_ms: int = 1_700_000_000_000) -> None:
        self.now_ms = start_ms
        self.start_ms = start_ms
        self.sleeps: List[float] = []
        """Every sleep asked for, in seconds, in order."""

    def __repr__(self) -> str:
        return f"VirtualClock(now_ms={self.now_ms})"

    def __call__(self) -> int:
        """The current instant in Unix ms (so the clock itself is a ``clock=``)."""
        return self.now_ms

    def advance(self, ms: int) -> None:
        """Moves the clock ``ms`` milliseconds forward."""
        if ms < 0:
            raise ValueError(f"a virtual clock cannot go back; got {ms} ms")
        self.now_ms += ms

    def sleep(self, seconds: float) -> None:
        """Records the sleep and advances the clock (rounded up to whole ms)."""
        self.sleeps.append(seconds)
        self.advance(max(0, math.ceil(seconds * 1000 - 1e-6)))

    async def async_sleep(self, seconds: float) -> None:
        """:meth:`sleep` for asyncio clients."""
        self.sleep(seconds)

    @property
    def elapsed_ms(self) -> int:
        """Virtual milliseconds since the start."""
        return self.now_ms - self.start_ms


def _with_quotas(config: Dict[str, Any], quotas: Mapping[str, Mapping[str, int]]) -> Dict[str, Any]:
    """``config`` (the gate's JSON) with each named limit's quota replaced,
    wherever the limit is defined (``limits`` or an operation's extra limits)."""
    unknown = set(quotas)
    for name, quota in config.get("limits", {}).items():
        if name in quotas:
            quota.update(quotas[name])
            unknown.discard(name)
    for operation in config.get("catalogue", []):
        for extra in operation.get("extra_limits", []):
            if extra.get("name") in quotas:
                extra["quota"].update(quotas[extra["name"]])
                unknown.discard(extra["name"])
    if unknown:
        raise ConfigError(f"no limit named {sorted(unknown)} in the gate configuration")
    return config


def _gate(config: Mapping[str, Any], quotas: Mapping[str, Mapping[str, int]]) -> _ffi.Gate:
    try:
        full = json.loads(_ffi.GateConfig.from_json(json.dumps(config)).to_json())
        return _ffi.Gate.demo(_ffi.GateConfig.from_json(json.dumps(_with_quotas(full, quotas))))
    except _ffi.AcdError as error:
        raise ConfigError(str(error)) from None


class GateTransport:
    """A transport answered by an in-process gate (the demo credentials:
    :data:`DEMO_API_KEY` and the others of ``acd.Gate.demo``).

    :param clock: the time source the gate reads (a :class:`VirtualClock`).
    :param tables: table id → records.
    :param connections: connection id → entity id → records.
    :param limits: quotas by limit name, e.g. ``{"user_table_reads":
        {"requests": 5, "window_ms": 3000}}`` (``credential``, ``client_ip``,
        or an operation's extra limit).
    :param gate_config: the gate configuration JSON object (the core's
        ``GateConfig``; members left out take its defaults).
    :param fault: called before the gate with each request; a response or a
        :class:`acd.TransportFailure` it returns is used instead.
    :param client_ip: the address the gate sees.
    """

    def __init__(
        self,
        clock: Callable[[], int],
        *,
        tables: Optional[Mapping[str, Sequence[Mapping[str, Any]]]] = None,
        connections: Optional[Mapping[str, Mapping[str, Sequence[Mapping[str, Any]]]]] = None,
        limits: Optional[Mapping[str, Mapping[str, int]]] = None,
        gate_config: Optional[Mapping[str, Any]] = None,
        fault: Optional[Fault] = None,
        client_ip: str = "192.0.2.10",
    ) -> None:
        self._gate = _gate(dict(gate_config or {}), limits or {})
        dataset = {"tables": {k: list(v) for k, v in (tables or {}).items()},
                   "connections": {c: {e: list(r) for e, r in es.items()} for c, es in (connections or {}).items()},
                   "runs": {}}
        try:
            self._dataset = _ffi.Dataset.from_json(json.dumps(dataset).encode("utf-8"))
        except _ffi.AcdError as error:
            raise ConfigError(str(error)) from None
        self._clock = clock
        self._start_ms = clock()
        self._fault = fault
        self._client_ip = client_ip
        self.requests: List[Request] = []
        """Every request received, in order."""
        self.statuses: List[int] = []
        """The status of every response, in order (faults included)."""

    def __repr__(self) -> str:
        return f"GateTransport({len(self.requests)} requests)"

    def send(self, request: Request) -> Response:
        """Answers ``request`` as the gate decides at the clock's instant."""
        self.requests.append(request)
        if self._fault is not None:
            injected = self._fault(request)
            if isinstance(injected, TransportFailure):
                raise injected
            if injected is not None:
                self.statuses.append(injected.status)
                return injected
        url = urlsplit(request.url)
        target = url.path + ("?" + url.query if url.query else "")
        headers = [_ffi.Header(name=n, value=v.encode("utf-8")) for n, v in request.headers]
        gate_request = _ffi.GateRequest(request.method, target.encode("utf-8"), headers, self._client_ip)
        now = self._clock()
        decision = self._gate.decide(gate_request, now)
        if isinstance(decision, _ffi.Decision.RESPOND):
            answer = decision.response
        else:
            assert isinstance(decision, _ffi.Decision.RESOLVE)
            answer = self._dataset.respond(decision.admitted, self._start_ms, now)
        self.statuses.append(answer.status)
        return Response(answer.status, [(h.name, h.value) for h in answer.headers], answer.body)


class AsyncGateTransport:
    """A :class:`GateTransport` for :class:`acd.AsyncHttpClient`."""

    def __init__(self, gate: GateTransport) -> None:
        self.gate = gate

    async def send(self, request: Request) -> Response:
        """Answers ``request`` through the wrapped gate."""
        return self.gate.send(request)


def simulate(config: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """Runs the core's simulation (N clients against a gate, injected faults,
    all in virtual time) and returns its report as a dict: ``requests_sent``,
    ``responses_429``, ``retries``, ``elapsed_ms``, ``completed``,
    ``violations``, per-client figures and the trace.

    :param config: the core's ``SimConfig`` as a dict (every member optional).
    :raises ConfigError: when the core refuses the configuration.
    """
    try:
        report: Dict[str, Any] = json.loads(_ffi.simulate_json(json.dumps(config or {})))
    except _ffi.AcdError as error:
        raise ConfigError(str(error)) from None
    return report
