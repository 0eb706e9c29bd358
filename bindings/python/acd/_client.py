"""``acd.Client``: the sans-IO client. It builds requests, says when to send
them and interprets what came back; the caller moves the bytes and keeps the
time. :class:`acd.HttpClient` and :class:`acd.AsyncHttpClient` drive it over
HTTP; drive it yourself for another transport or a test clock::

    client = acd.Client(api_key="acd_live_demo_ada", base_url="http://127.0.0.1:8080")
    call = client.start_table_pager("orders", page_size=2)
    while not client.is_idle():
        while (sent := client.poll_transmit(now())) is not None:
            call_id, request = sent
            client.handle(call_id, transport.send(request), now())
        for call_id, event in client.poll_events():
            ...                       # "page", "waiting", "done", "failed", ...
        if (deadline := client.poll_timeout()) is not None:
            sleep_until(deadline)
"""
from __future__ import annotations

import json
import warnings
from typing import Any, List, Mapping, Optional, Tuple, Union

from ._config import RetryPolicy, client_config_json
from ._engine import Engine, Event
from ._errors import AcdDeprecationWarning, AcdError, BadRequestError, ConfigError, from_core
from ._ffi import acd_ffi as _ffi
from ._transport import Request, Response, TransportFailure

__all__ = ["Client", "raise_for_event", "warn_deprecation"]


def _converted(error: _ffi.AcdError) -> AcdError:
    message = str(error)
    if isinstance(error, _ffi.AcdError.Request):
        return BadRequestError(message)
    return ConfigError(message)


class Client:
    """The sans-IO client of the API (one per credential set).

    :param api_key: the API key; ``ACD_API_KEY`` when omitted (public
        operations such as the index need none).
    :param base_url: the API's base URL; ``ACD_BASE_URL`` when omitted, else
        the core's default.
    :param user: the user the key belongs to (keys of one user share that
        user's limits inside this client).
    :param retry: the retry policy; the core's defaults when omitted.
    :param seed: a fixed seed for jitter and keys (tests); by default each
        client draws its own from the operating system.
    :param max_body_bytes: the largest response body accepted, in bytes
        (the core's default when omitted: 32 MiB); a longer body fails the
        call with an :class:`APIError` and is not read past the bound.
    :raises ConfigError: when the core refuses the configuration.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        *,
        base_url: Optional[str] = None,
        user: Optional[str] = None,
        retry: Optional[RetryPolicy] = None,
        seed: Optional[int] = None,
        max_body_bytes: Optional[int] = None,
    ) -> None:
        config = client_config_json(api_key=api_key, base_url=base_url, user=user, retry=retry, seed=seed,
                                    max_body_bytes=max_body_bytes)
        try:
            self._engine = Engine(config)
        except _ffi.AcdError as error:
            raise _converted(error) from None
        self._base_url = json.loads(config).get("base_url")

    def __repr__(self) -> str:
        return f"acd.Client(base_url={self._base_url!r})"

    @property
    def max_body_bytes(self) -> int:
        """The largest response body accepted, in bytes (the core's setting)."""
        return self._engine.max_body_bytes

    def start(
        self,
        operation: str,
        *,
        path: Optional[Mapping[str, str]] = None,
        query: Optional[Mapping[str, Any]] = None,
        body: Optional[bytes] = None,
    ) -> int:
        """Starts one call of ``operation`` (an operation id of the catalogue,
        e.g. ``"getApiIndex"``). Parameters are checked now, with the
        validators the server uses.

        :returns: the call's id.
        :raises BadRequestError: a parameter was refused (``status`` is ``None``).
        :raises ConfigError: unknown operation, or no usable credential.
        """
        spec = _ffi.RequestSpec(
            operation=operation,
            path=[_ffi.PathParam(name=k, value=v) for k, v in (path or {}).items()],
            query=[_ffi.QueryParam(name=k, value=str(v)) for k, v in (query or {}).items() if v is not None],
            roles=[], credential=None, egress=_ffi.EgressMode.DEFAULT, body=body, idempotency_key=None)
        return self.start_spec(spec)

    def start_spec(self, spec: _ffi.RequestSpec) -> int:
        """Starts one call from a core request spec (roles, credential and
        egress included); see :meth:`start`."""
        try:
            return self._engine.start(spec)
        except _ffi.AcdError as error:
            raise _converted(error) from None

    def start_table_pager(self, table: str, *, page_size: Optional[int] = None, order_by: Optional[str] = None,
                          descending: bool = False, unique_order: bool = False) -> int:
        """Starts paging through every record of ``table`` (each page a
        ``page`` event; the throttle spaces the requests). Pages go by offset
        unless ``unique_order`` declares the ``order_by`` column unique (then
        by ``after``, which would skip rows sharing a value)."""
        try:
            return self._engine.start_table_pager(table, page_size, order_by, descending, unique_order)
        except _ffi.AcdError as error:
            raise _converted(error) from None

    def start_connection_pager(self, connection: str, entity_id: str, *, page_size: Optional[int] = None,
                               filter: Optional[Any] = None) -> int:
        """Starts paging through the records of ``entity_id`` in ``connection``;
        ``filter`` is JSON-encoded unless it is already a string."""
        text = filter if filter is None or isinstance(filter, str) else json.dumps(filter)
        try:
            return self._engine.start_connection_pager(connection, entity_id, page_size, text)
        except _ffi.AcdError as error:
            raise _converted(error) from None

    def start_run_poller(self, run_id: str, *, interval_ms: Optional[int] = None,
                         deadline_ms: Optional[int] = None) -> int:
        """Starts polling run ``run_id`` until a terminal state (a
        ``run_status`` event per change)."""
        options = {k: v for k, v in (("interval_ms", interval_ms), ("deadline_ms", deadline_ms)) if v is not None}
        try:
            return self._engine.start_run_poller(run_id, json.dumps(options) if options else None)
        except _ffi.AcdError as error:
            raise _converted(error) from None

    def cancel(self, call: int) -> None:
        """Drops ``call``: nothing more is sent or emitted for it."""
        self._engine.cancel(call)

    def poll_transmit(self, now_ms: int) -> Optional[Tuple[int, Request]]:
        """The next ``(call, request)`` to send now, or ``None``. Call it
        until ``None``; the send is recorded at ``now_ms``."""
        try:
            return self._engine.poll_transmit(now_ms)
        except _ffi.AcdError as error:
            raise _converted(error) from None

    def handle(self, call: int, outcome: Union[Response, TransportFailure], now_ms: int) -> None:
        """Hands over how the attempt sent for ``call`` ended: the response,
        or the :class:`TransportFailure` the transport raised."""
        try:
            self._engine.handle(call, outcome, now_ms)
        except _ffi.AcdError as error:
            raise _converted(error) from None

    def poll_events(self) -> List[Tuple[int, Event]]:
        """Drains the events in order, as ``(call, event)`` pairs; each
        event is a dict whose ``"type"`` is ``response``, ``page``,
        ``run_status``, ``waiting``, ``deprecation``, ``done`` or ``failed``."""
        return self._engine.poll_events()

    def poll_timeout(self) -> Optional[int]:
        """The Unix ms at which :meth:`poll_transmit` may have something new,
        or ``None`` when nothing is waiting."""
        return self._engine.poll_timeout()

    def is_idle(self) -> bool:
        """Whether every call has ended."""
        return self._engine.is_idle()


def raise_for_event(event: Event) -> None:
    """Raises the typed exception for a ``failed`` event (else does nothing).
    The event is the core's error itself (``kind``, ``status``, ...) plus
    ``message``, its sentence."""
    if event.get("type") == "failed":
        raise from_core(event, str(event.get("message", "")))


def warn_deprecation(event: Event) -> None:
    """Issues an :class:`AcdDeprecationWarning` for a ``deprecation`` event."""
    if event.get("type") == "deprecation":
        details = {k: v for k, v in event.items() if k != "type"}
        warnings.warn(f"the API marks {details.get('operation_id', 'an operation')} deprecated: {details}",
                      AcdDeprecationWarning, stacklevel=4)
