"""Deterministic tests of your own code against the API's rules, without a
server and without sleeping.

* :class:`VirtualClock`: a clock in Unix seconds whose ``sleep`` advances it; pass
  ``clock=clock, sleep=clock.sleep`` (or ``sleep=clock.async_sleep``) to
  :class:`acd.HttpClient` / :class:`acd.AsyncHttpClient`.
* :class:`GateTransport`: a transport answered by the core's test server (a
  dataset behind the server's own gate: credentials, stacked rate limits,
  validation), reading the same virtual clock.
* :func:`simulate`: the core's simulation (many clients against a gate, with
  injected faults) in virtual time, and its report.
* :class:`SandboxClock`: the manual clock of a real ``acd-sandbox`` (started
  with ``--clock manual``), read and moved over HTTP: pass ``clock=clock,
  sleep=clock.sleep`` and a client's waits move the sandbox's time instead
  of passing real time.
* :func:`sign_webhook` (:func:`acd.webhooks.sign`): a payload signed as the
  API signs a webhook delivery, to post to your own handler in its tests.

::

    clock = acd.testing.VirtualClock()
    gate = acd.testing.GateTransport(clock, tables={"orders": rows},
                                     limits={"user_table_reads": {"requests": 5, "window_ms": 60_000}})
    with acd.HttpClient(api_key=acd.testing.DEMO_API_KEY, http_client=gate,
                        clock=clock, sleep=clock.sleep) as api:
        assert len(list(api.tables.iter("orders", page_size=10))) == len(rows)
    assert 429 not in gate.statuses
"""
from __future__ import annotations

import json
import math
import urllib.error
import urllib.request
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

from ._errors import AcdError, ConfigError
from ._ffi import acd_ffi as _ffi
from ._transport import Request, Response, TransportFailure
from .webhooks import SignedWebhook, sign as sign_webhook

__all__ = ["VirtualClock", "SandboxClock", "GateTransport", "AsyncGateTransport", "DEMO_API_KEY", "simulate",
           "sign_webhook", "SignedWebhook"]

DEMO_API_KEY = "acd_live_demo_ada"
"""An API key the demo gate knows (user ``ada``)."""

Fault = Callable[[Request], Optional[Union[Response, TransportFailure]]]


class VirtualClock:
    """A clock that only moves when told (or when slept on); it keeps whole
    milliseconds, and speaks seconds.

    :param start: the starting instant, Unix seconds.
    """

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now_ms = round(start * 1000)
        self._start_ms = self._now_ms
        self.sleeps: List[float] = []
        """Every sleep asked for, in seconds, in order."""
        self._read: Optional[float] = None

    def __repr__(self) -> str:
        return f"VirtualClock(now={self.now})"

    def __call__(self) -> float:
        """The current instant in Unix seconds (so the clock itself is a ``clock=``)."""
        return self._now_ms / 1000

    @property
    def now(self) -> float:
        """The current instant, Unix seconds."""
        return self._now_ms / 1000

    def advance(self, seconds: float) -> None:
        """Moves the clock ``seconds`` forward (rounded up to whole ms)."""
        if seconds < 0:
            raise ValueError(f"a virtual clock cannot go back; got {seconds} s")
        self._now_ms += max(0, math.ceil(seconds * 1000 - 1e-6))

    def sleep(self, seconds: float) -> None:
        """Records the sleep and advances the clock."""
        self.sleeps.append(seconds)
        self.advance(max(0.0, seconds))

    async def async_sleep(self, seconds: float) -> None:
        """:meth:`sleep` for asyncio clients."""
        self.sleep(seconds)

    @property
    def elapsed(self) -> float:
        """Virtual seconds since the start."""
        return (self._now_ms - self._start_ms) / 1000


class SandboxClock:
    """The manual clock of an ``acd-sandbox`` started with ``--clock manual``,
    read (``GET /_sandbox/clock``) and moved (``POST /_sandbox/clock``) over
    HTTP, so that a client's waits move the sandbox's time::

        clock = acd.testing.SandboxClock("http://127.0.0.1:8080")
        with acd.HttpClient(api_key="acd_live_demo_ada", base_url=clock.base_url,
                            clock=clock, sleep=clock.sleep) as api:
            rows = list(api.tables.iter("orders", page_size=1))  # past the 5-per-60 s limit at once

    :param base_url: the sandbox's URL, e.g. ``http://127.0.0.1:8080``.
    :param admin_token: the sandbox's ``--admin-token``, when it is not on
        loopback (e.g. in a container).
    :param timeout: seconds for each request to the sandbox.
    """

    def __init__(self, base_url: str, *, admin_token: Optional[str] = None, timeout: float = 10.0) -> None:
        self.base_url = base_url.rstrip("/")
        self._admin_token = admin_token
        self._timeout = timeout
        self.sleeps: List[float] = []
        """Every sleep asked for, in seconds, in order."""
        self._read: Optional[float] = None

    def __repr__(self) -> str:
        return f"SandboxClock({self.base_url!r})"

    def _call(self, body: Optional[Dict[str, int]] = None) -> float:
        headers = {"Content-Type": "application/json"}
        if self._admin_token is not None:
            headers["Authorization"] = f"Bearer {self._admin_token}"
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self.base_url + "/_sandbox/clock", data=data, headers=headers,
                                         method="GET" if body is None else "POST")
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                answer = json.load(response)
        except urllib.error.HTTPError as error:
            detail = error.read().decode("utf-8", "replace")
            hint = " (start the sandbox with --clock manual)" if error.code in (404, 409) else ""
            raise AcdError(f"the sandbox at {self.base_url} refused its clock: {error.code} {detail}{hint}",
                           status=error.code) from None
        except (urllib.error.URLError, OSError) as error:
            raise AcdError(f"the sandbox at {self.base_url} cannot be reached for its clock: {error}") from None
        if answer.get("clock") != "manual" and body is None:
            raise AcdError(f"the sandbox at {self.base_url} runs on the system clock; "
                           "start it with --clock manual")
        return int(answer["now_ms"]) / 1000

    def __call__(self) -> float:
        """The sandbox's current instant in Unix seconds (so the clock itself is a ``clock=``)."""
        self._read = self._call()
        return self._read

    def advance(self, seconds: float) -> float:
        """Moves the sandbox's clock ``seconds`` forward (rounded up to whole
        ms); returns the new instant (Unix seconds)."""
        if seconds < 0:
            raise ValueError(f"the sandbox clock is moved forward only here; got {seconds} s")
        self._read = self._call({"advance_ms": max(0, math.ceil(seconds * 1000 - 1e-6))})
        return self._read

    def set(self, now: float) -> float:
        """Sets the sandbox's clock to ``now`` (Unix seconds)."""
        self._read = self._call({"now_ms": round(now * 1000)})
        return self._read

    def sleep(self, seconds: float) -> None:
        """Records the sleep and moves the sandbox's clock to the instant it
        ends: ``seconds`` after the clock was last read (the client reads it
        just before it sleeps). Sleeps to an instant the clock has already
        reached move nothing, so concurrent sleeps to the same instant move
        it once. A client sleeps only for the waits its core planned (its
        transports' own time-outs are not sleeps)."""
        self.sleeps.append(seconds)
        base = self._read if self._read is not None else self._call()
        target = base + max(0.0, seconds)
        now = self._call()
        if target > now:
            self._call({"advance_ms": max(0, math.ceil((target - now) * 1000 - 1e-6))})

    async def async_sleep(self, seconds: float) -> None:
        """:meth:`sleep` for asyncio clients. It first lets the answers
        already on their way over loopback arrive (a session wakes at the
        next outcome or at its wake-up, whichever is first; in the sandbox's
        time the answers come first), then moves the clock."""
        import asyncio

        for _ in range(5):
            await asyncio.sleep(0.002)
        self.sleep(seconds)


class GateTransport:
    """A transport answered by the core's test server (``TestServer``): the
    dataset served through a real gate (the demo credentials, such as
    :data:`DEMO_API_KEY`), at the clock's instants.

    :param clock: the time source the server reads, Unix seconds (a
        :class:`VirtualClock`, which is also moved by the server's latency).
    :param tables: table id → records (or a count of sample records).
    :param connections: connection id → entity id → records.
    :param runs: run id → ``{"queued_ms", "finishes_after_ms", "final_state"}``.
    :param new_runs: the same script for runs created with ``runs.create``.
    :param limits: quotas by limit name, e.g. ``{"user_table_reads":
        {"requests": 5, "window_ms": 3000}}`` (``credential``, ``client_ip``,
        or an operation's extra limit).
    :param gate_config: the core's gate configuration (members left out take
        its defaults).
    :param fault: called first with each request; a response or a
        :class:`acd.TransportFailure` it returns is used instead.
    :param server: any other member of the test server's configuration
        (``latency_ms``, ``faults``, ``credentials``, ``client_ip``, ...).
    """

    def __init__(
        self,
        clock: Callable[[], float],
        *,
        tables: Optional[Mapping[str, Any]] = None,
        connections: Optional[Mapping[str, Mapping[str, Sequence[Mapping[str, Any]]]]] = None,
        runs: Optional[Mapping[str, Mapping[str, Any]]] = None,
        new_runs: Optional[Mapping[str, Any]] = None,
        limits: Optional[Mapping[str, Mapping[str, int]]] = None,
        gate_config: Optional[Mapping[str, Any]] = None,
        fault: Optional[Fault] = None,
        **server: Any,
    ) -> None:
        members = {"tables": tables, "connections": connections, "runs": runs, "new_runs": new_runs,
                   "limits": limits, "gate": gate_config, **server}
        config = {name: value for name, value in members.items() if value is not None}
        try:
            self._server = _ffi.TestServer(json.dumps(config).encode("utf-8"))
        except _ffi.AcdError as error:
            raise ConfigError(str(error)) from None
        self._clock = clock
        self._fault = fault
        self.requests: List[Request] = []
        """Every request received, in order."""
        self.statuses: List[int] = []
        """The status of every response, in order (faults included)."""

    def __repr__(self) -> str:
        return f"GateTransport({len(self.requests)} requests)"

    def send(self, request: Request) -> Response:
        """Answers ``request`` as the test server decides at the clock's instant."""
        self.requests.append(request)
        if self._fault is not None:
            injected = self._fault(request)
            if isinstance(injected, TransportFailure):
                raise injected
            if injected is not None:
                self.statuses.append(injected.status)
                return injected
        now = round(self._clock() * 1000)
        block = "\n".join(f"{name}: {value}" for name, value in request.headers)
        answer = json.loads(self._server.exchange(request.method, request.url, block, request.body, now))
        advance = getattr(self._clock, "advance", None)
        if advance is not None and answer["deliver_at"] > now:
            advance((answer["deliver_at"] - now) / 1000)
        if "failure" in answer:
            raise TransportFailure(answer["failure"])
        self.statuses.append(answer["status"])
        return Response(answer["status"], [(n, v) for n, v in answer["headers"]], answer["body"].encode("utf-8"))


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
