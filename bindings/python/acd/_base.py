"""What :class:`acd.HttpClient` and :class:`acd.AsyncHttpClient` share: the
call specs of each method, per-call options, the routing of each batch's
events to their calls, and making waits, retries and deprecation notices
visible (the ``acd`` logger, ``on_event=``, :class:`AcdDeprecationWarning`).
The loops that send and sleep stay in each client (one sync, one async)."""
from __future__ import annotations

import logging
import sys
import time
import warnings
from collections import deque
from typing import Any, Callable, Deque, Dict, List, Mapping, Optional, Sequence, Tuple

from ._client import Client
from ._config import RetryPolicy, client_config, to_ms
from ._errors import AcdDeprecationWarning, AcdError, ConfigError, from_core
from ._transport import Request
from ._types import Event, Limit

if sys.version_info >= (3, 11):
    from typing import TypedDict
else:  # pragma: no cover - Python 3.9 and 3.10
    from typing_extensions import TypedDict

__all__ = ["Base", "CallOptions", "NO_PROGRESS", "logger"]

logger = logging.getLogger("acd")
"""The package's logger: one line per wait and retry, in the core's sentence
and at the core's level (WARNING for a wait of 10 s or more, so Python's
last-resort handler prints it; INFO otherwise; DEBUG for a retry's own
wait), INFO per deprecation notice, DEBUG per event of a type this version
does not know. ``ACD_LOG=info`` or ``ACD_LOG=debug`` prints the rest."""

NO_PROGRESS = "no call can make progress: nothing to send and nothing to wait for"
_LEVELS = {"warning": logging.WARNING, "info": logging.INFO, "debug": logging.DEBUG}


def _log_from_env() -> None:
    """``ACD_LOG=info|debug`` (as ``OPENAI_LOG``): the ``acd`` logger says
    its lines at that level on stderr, when nothing configured it."""
    import os

    level = _LEVELS.get(os.environ.get("ACD_LOG", "").strip().lower())
    if level is None or level == logging.WARNING or logger.handlers:
        return
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("[acd] %(levelname)s %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(level)


_log_from_env()
"""The sentence raised when the driver has nothing to send and no deadline."""

KNOWN_EVENTS = frozenset({"response", "page", "run_status", "waiting", "retrying", "deprecation", "done",
                          "failed"})
_VISIBLE = frozenset({"waiting", "retrying", "deprecation"})
_DATA = frozenset({"response", "page", "run_status"})


class CallOptions(TypedDict, total=False):
    """Per-call options every method takes."""

    timeout: float
    """Seconds the whole call may take (waits and retries included) from its
    first send; then it fails with :class:`acd.APITimeoutError`."""
    headers: Mapping[str, str]
    """Extra headers for every request of the call (e.g. ``Prefer``)."""
    max_attempts: int
    """Attempts for this call, the first included (the retry policy's otherwise)."""
    idempotency_key: str
    """The ``Idempotency-Key`` of the call, instead of an automatic one."""


def call_options(options: CallOptions) -> Dict[str, Any]:
    """The CallSpec ``options`` member for ``options``."""
    unknown = set(options) - set(CallOptions.__annotations__)
    if unknown:
        raise TypeError(f"unknown call option(s) {sorted(unknown)}; "
                        "the options are timeout, headers, max_attempts and idempotency_key")
    core: Dict[str, Any] = {}
    if options.get("timeout") is not None:
        core["timeout_ms"] = to_ms(options["timeout"])
    if options.get("headers"):
        core["headers"] = [[name, value] for name, value in options["headers"].items()]
    for name in ("max_attempts", "idempotency_key"):
        if options.get(name) is not None:
            core[name] = options[name]  # type: ignore[literal-required,unused-ignore]
    return core


def _typed(kind: str, **members: Any) -> Dict[str, Any]:
    """A typed call spec of ``kind`` with the members set (``None`` left out):
    the core knows each kind's operation, parameter names and body."""
    return {"type": kind, **{name: value for name, value in members.items() if value is not None}}


def read_spec(table: str, page_size: Optional[int], offset: Optional[int], order_by: Optional[str],
              descending: bool, after: Optional[str]) -> Dict[str, Any]:
    """One page of ``table``."""
    return _typed("table_read", table=table, page_size=page_size, offset=offset, order_by=order_by,
                  descending=descending or None, after=after)


def connection_read_spec(connection: str, entity: str, page_size: Optional[int], offset: Optional[int],
                         filter: Any, egress: Optional[str] = None) -> Dict[str, Any]:
    """One page of ``entity`` in ``connection`` (``filter``: a JSON value or its text)."""
    return _typed("connection_read", connection=connection, entity=entity, page_size=page_size, offset=offset,
                  filter=filter, egress=egress)


def pages_spec(kind: str, **members: Any) -> Dict[str, Any]:
    """A pager's call spec (``table_pages`` or ``connection_pages``)."""
    return _typed(kind, **members)


def run_create_spec(agent_id: str, input: Any) -> Dict[str, Any]:
    """A new run of ``agent_id`` (the core writes its body)."""
    return _typed("run_create", agent_id=agent_id, input=input)


def run_get_spec(run_id: str) -> Dict[str, Any]:
    """Run ``run_id`` as it is now."""
    return _typed("run_get", run_id=run_id)


def index_spec() -> Dict[str, Any]:
    """The API index."""
    return _typed("index")


def request_spec(operation: str, path: Optional[Mapping[str, str]] = None,
                 query: Optional[Mapping[str, Any]] = None, body: Any = None) -> Dict[str, Any]:
    """A single request of any catalogue operation (``None`` query values are left out)."""
    return {"type": "request", "operation": operation, "path": dict(path or {}),
            "query": [(k, str(v)) for k, v in (query or {}).items() if v is not None], "body": body}


def wait_spec(run_id: str, interval: Optional[float], timeout: Optional[float]) -> Dict[str, Any]:
    """Polling a run until a terminal status (``timeout``: the poller's deadline)."""
    return _typed("run_wait", run_id=run_id, interval_ms=to_ms(interval), deadline_ms=to_ms(timeout))


def some_options(headers: Optional[Mapping[str, str]], max_attempts: Optional[int]) -> CallOptions:
    """The per-call options :meth:`acd.HttpClient.runs.wait` takes (its ``timeout`` is the poller's)."""
    options: CallOptions = {}
    if headers is not None:
        options["headers"] = headers
    if max_attempts is not None:
        options["max_attempts"] = max_attempts
    return options


def now_seconds() -> float:
    """The system clock in Unix seconds (the default ``clock``)."""
    return time.time()


def _warn_at_caller(message: str) -> None:
    """Issues ``message`` as an :class:`AcdDeprecationWarning` attributed to
    the first frame outside this package (the caller's line)."""
    frame = sys._getframe(1)
    while frame is not None and (frame.f_globals.get("__name__", "") + ".").startswith("acd."):
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:  # pragma: no cover - called from inside the package only
        warnings.warn(message, AcdDeprecationWarning, stacklevel=2)
        return
    registry = frame.f_globals.setdefault("__warningregistry__", {})
    warnings.warn_explicit(message, AcdDeprecationWarning, frame.f_code.co_filename, frame.f_lineno,
                           module=frame.f_globals.get("__name__"), registry=registry)


def decode(event: Dict[str, Any]) -> Dict[str, Any]:
    """``event`` itself when its type is known; else an ``unknown`` event
    carrying it (forward compatibility: never a failure)."""
    if event.get("type") in KNOWN_EVENTS:
        return event
    logger.debug("ignored an event of a type this version of acd does not know: %r", event.get("type"))
    return {"type": "unknown", "call": event.get("call"), "event": event}


def limit_view(view: Mapping[str, Any]) -> Limit:
    """One limit of the core's throttle view, its times in seconds."""
    reset = view.get("reset_at")
    return {"name": view["name"], "requests": view["requests"], "window": float(view["window_seconds"]),
            "remaining": view["remaining"], "reset_at": None if reset is None else reset / 1000}


class Base:
    """The state one easy-path client keeps: the driver, the open calls and
    their pending events, whether it is closed."""

    _closed_name = "acd.HttpClient"

    def __init__(self, api_key: Optional[str], base_url: Optional[str], retry: Optional[RetryPolicy],
                 seed: Optional[int], max_body_bytes: Optional[int], timeout: float,
                 clock: Optional[Callable[[], float]], on_event: Optional[Callable[[Event], None]],
                 token: Optional[str] = None) -> None:
        self.client = Client(client_config(api_key=api_key, base_url=base_url, retry=retry, seed=seed,
                                           max_body_bytes=max_body_bytes, token=token))
        self._timeout = timeout
        self._clock = clock if clock is not None else now_seconds
        self._on_event = on_event
        self._queues: Dict[int, Deque[Dict[str, Any]]] = {}
        self._closed = False

    def __repr__(self) -> str:
        return f"{self._closed_name}({'closed' if self._closed else 'open'})"

    def _now_ms(self) -> int:
        return round(self._clock() * 1000)

    def limits(self) -> List[Limit]:
        """The throttle's current view of each limit it has seen (requests
        per window, what is left, when the window resets), in seconds."""
        self._check_open()
        return [limit_view(model) for model in self.client.limits()]

    def _check_open(self) -> None:
        if self._closed:
            raise ConfigError(f"this {self._closed_name} is closed; make a new client (or call it inside "
                              "its `with` block)")

    def _start(self, spec: Dict[str, Any], options: CallOptions) -> int:
        self._check_open()
        spec["options"] = call_options(options)
        call = self.client.start(spec)
        self._queues[call] = deque()
        return call

    def _finish(self, call: int) -> None:
        if self._queues.pop(call, None) is not None:
            self.client.cancel(call)

    def _route(self, events: Sequence[Dict[str, Any]]) -> bool:
        """Shows and hands out each event; whether one reached an open call."""
        arrived = False
        for raw in events:
            event = decode(raw)
            kind = event["type"]
            if kind in _VISIBLE:
                message = event.get("message", kind)
                if kind == "deprecation":
                    # Shown once, as an AcdDeprecationWarning; the log has it at INFO.
                    logger.info("%s", message)
                    _warn_at_caller(str(event.get("message", "")))
                else:
                    # The core's level: a wait of 10 s or more is a WARNING (printed
                    # with no configuration); a retry's own wait is DEBUG (said once).
                    logger.log(_LEVELS.get(event.get("level", "info"), logging.INFO), "%s", message)
            if self._on_event is not None:
                self._on_event(event)  # type: ignore[arg-type]
            queue = self._queues.get(event.get("call", -1))
            if queue is not None and kind in _DATA | {"done", "failed"}:
                queue.append(event)
                arrived = True
        return arrived

    def _next(self, call: int) -> Tuple[bool, Optional[Dict[str, Any]]]:
        """``(True, None)`` when ``call`` is done, ``(False, event)`` for its
        next data event, ``(False, None)`` when none is queued yet; raises the
        typed exception of a ``failed`` event."""
        queue = self._queues.get(call)
        if queue is None:
            raise AcdError(f"call {call} is not open")
        while queue:
            event = queue.popleft()
            if event["type"] == "done":
                return True, None
            if event["type"] == "failed":
                error = event.get("error") or {}
                raise from_core(error, str(error.get("message", "the call failed")))
            return False, event
        return False, None

    def _request(self, transmit: Mapping[str, Any], now_ms: int) -> Request:
        timeout = self._timeout
        if transmit.get("timeout_at") is not None:
            timeout = max(0.001, min(timeout, (transmit["timeout_at"] - now_ms) / 1000))
        body = transmit.get("body")
        return Request(transmit["method"], transmit["url"], [(n, v) for n, v in transmit["headers"]],
                       None if body is None else body.encode("utf-8"), self.client.max_body_bytes, timeout)
