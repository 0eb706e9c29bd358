"""``acd.HttpClient``: the easy path. It drives :class:`acd.Client` over
httpx (``pip install 'acd[httpx]'``) or the standard library's urllib,
sleeping where the core says, so calls stay under the rate limits and are
retried as the spec asks. Sleep and clock can be injected (virtual time)."""
from __future__ import annotations

import json
import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Type, Union

from ._calls import NO_PROGRESS, CallQueues
from ._client import Client
from ._config import RetryPolicy
from ._engine import Event
from ._errors import AcdError
from ._resources import connection_spec, index_spec, result_of, table_spec
from ._transport import HttpxTransport, TransportFailure, UrllibTransport, sync_transport

__all__ = ["HttpClient", "wall_clock_ms"]


def wall_clock_ms() -> int:
    """The system clock in Unix milliseconds (the default ``clock``)."""
    return time.time_ns() // 1_000_000


class HttpClient:
    """A synchronous client of the API over HTTP.

    Takes :class:`acd.Client`'s arguments (``api_key``, ``base_url``,
    ``user``, ``retry``, ``seed``, ``max_body_bytes``) and:

    :param http_client: an ``httpx.Client`` to send with, or any object with
        ``send(acd.Request) -> acd.Response``; by default a new
        ``httpx.Client``, or urllib when httpx is not installed.
    :param timeout: seconds one exchange may take, from sending to the last
        byte of the body (the transports made here, and an httpx client given).
        Redirects are never followed.
    :param sleep: called with seconds to wait (default ``time.sleep``).
    :param clock: returns the time in Unix ms (default the system clock).

    Use it as a context manager so the transport is closed::

        with acd.HttpClient(api_key=key, base_url=url) as api:
            rows = api.tables.read("orders", limit=50)
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
        http_client: Any = None,
        timeout: float = 30.0,
        sleep: Optional[Callable[[float], None]] = None,
        clock: Optional[Callable[[], int]] = None,
    ) -> None:
        self.client = Client(api_key, base_url=base_url, user=user, retry=retry, seed=seed,
                             max_body_bytes=max_body_bytes)
        self._transport = sync_transport(http_client, timeout)
        self._sleep = sleep if sleep is not None else time.sleep
        self._clock = clock if clock is not None else wall_clock_ms
        self._calls = CallQueues(self.client)
        self.tables = Tables(self)
        """Table records: :meth:`Tables.read` and :meth:`Tables.iter`."""
        self.connections = Connections(self)
        """Connection records: :meth:`Connections.read` and :meth:`Connections.iter`."""
        self.runs = Runs(self)
        """Agent runs: :meth:`Runs.wait`."""

    def __repr__(self) -> str:
        return f"acd.HttpClient({self.client!r})"

    def __enter__(self) -> "HttpClient":
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException], trace: Any) -> None:
        self.close()

    def close(self) -> None:
        """Closes the transport made here (a caller's ``http_client`` stays open)."""
        if isinstance(self._transport, (HttpxTransport, UrllibTransport)) and http_client_owned(self._transport):
            self._transport.close()

    def index(self) -> Dict[str, Any]:
        """The API index (``GET /api/v1``), as a dict."""
        index: Dict[str, Any] = self._result(self.client.start_spec(index_spec()))
        return index

    def _result(self, call: int) -> Any:
        for event in self.events(call):
            if event["type"] == "response":
                return result_of(event)
        raise AcdError(f"call {call} ended without a response")

    def events(self, call: int) -> Iterator[Event]:
        """The data events of ``call`` (``response``, ``page``,
        ``run_status``) as they come, sending and sleeping in between; raises
        the typed exception when the call fails. Closing the iterator early
        cancels the call."""
        self._calls.open(call)
        try:
            while True:
                done, event = self._calls.next_data(call)
                if done:
                    return
                if event is not None:
                    yield event
                else:
                    self._step()
        finally:
            self._calls.close(call)

    def _step(self) -> None:
        # One request per step, so an iteration stopped early sends no more.
        progressed = False
        sent = self.client.poll_transmit(self._clock())
        if sent is not None:
            call, request = sent
            try:
                outcome: Any = self._transport.send(request)
            except TransportFailure as failure:
                outcome = failure
            self.client.handle(call, outcome, self._clock())
            progressed = True
        if self._calls.route():
            progressed = True
        if progressed:
            return
        deadline = self.client.poll_timeout()
        if deadline is None:
            raise AcdError(NO_PROGRESS)
        self._sleep(max(0, deadline - self._clock()) / 1000)


def http_client_owned(transport: Union[HttpxTransport, UrllibTransport]) -> bool:
    """Whether ``transport`` was made by acd (then acd closes it)."""
    return isinstance(transport, UrllibTransport) or transport.owned


class Tables:
    """Table records through an :class:`HttpClient`."""

    def __init__(self, api: HttpClient) -> None:
        self._api = api

    def read(self, table: str, *, limit: Optional[int] = None, offset: Optional[int] = None,
             order_by: Optional[str] = None, direction: Optional[str] = None,
             after: Optional[str] = None) -> List[Dict[str, Any]]:
        """One page of ``table``'s records (``list[dict]``)."""
        spec = table_spec(table, limit=limit, offset=offset, order_by=order_by, direction=direction, after=after)
        records: List[Dict[str, Any]] = self._api._result(self._api.client.start_spec(spec))
        return records

    def iter(self, table: str, *, page_size: Optional[int] = None, order_by: Optional[str] = None,
             descending: bool = False, unique_order: bool = False) -> Iterator[Dict[str, Any]]:
        """Every record of ``table``, page by page, each exactly once; the
        client waits between pages when the rate limit says so. Set
        ``unique_order`` only when the ``order_by`` column has no duplicates."""
        call = self._api.client.start_table_pager(table, page_size=page_size, order_by=order_by,
                                                  descending=descending, unique_order=unique_order)
        for event in self._api.events(call):
            if event["type"] == "page":
                yield from event["records"]


class Connections:
    """Connection records through an :class:`HttpClient`."""

    def __init__(self, api: HttpClient) -> None:
        self._api = api

    def read(self, connection: str, entity_id: str, *, limit: Optional[int] = None, offset: Optional[int] = None,
             filter: Optional[Any] = None) -> List[Dict[str, Any]]:
        """One page of the records of ``entity_id`` in ``connection``;
        ``filter`` is JSON-encoded unless it is a string."""
        text = filter if filter is None or isinstance(filter, str) else json.dumps(filter)
        spec = connection_spec(connection, entity_id, limit=limit, offset=offset, filter=text)
        records: List[Dict[str, Any]] = self._api._result(self._api.client.start_spec(spec))
        return records

    def iter(self, connection: str, entity_id: str, *, page_size: Optional[int] = None,
             filter: Optional[Any] = None) -> Iterator[Dict[str, Any]]:
        """Every record of ``entity_id`` in ``connection``, page by page."""
        call = self._api.client.start_connection_pager(connection, entity_id, page_size=page_size, filter=filter)
        for event in self._api.events(call):
            if event["type"] == "page":
                yield from event["records"]


class Runs:
    """Agent runs through an :class:`HttpClient`."""

    def __init__(self, api: HttpClient) -> None:
        self._api = api

    def wait(self, run_id: str, *, interval_ms: Optional[int] = None,
             deadline_ms: Optional[int] = None) -> Dict[str, Any]:
        """Polls run ``run_id`` (about once a second, honouring 429) until a
        terminal status; returns the final run object."""
        call = self._api.client.start_run_poller(run_id, interval_ms=interval_ms, deadline_ms=deadline_ms)
        last: Dict[str, Any] = {}
        for event in self._api.events(call):
            if event["type"] == "run_status":
                last = event["run"]
        return last
