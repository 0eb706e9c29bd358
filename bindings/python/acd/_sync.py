"""``acd.HttpClient``: the easy path. It drives the core's client over httpx
(``pip install 'acd[httpx]'``) or the standard library's urllib, sleeping
where the core says, so calls stay under the rate limits and are retried as
the spec asks. Sleep and clock can be injected (virtual time)."""
from __future__ import annotations

import sys
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Tuple, Type

from ._base import (NO_PROGRESS, Base, CallOptions, connection_read_spec, index_spec, pages_spec, read_spec,
                    request_spec, run_create_spec, run_get_spec, some_options, wait_spec)
from ._config import RetryPolicy
from ._errors import AcdError
from ._threads import ThreadSession, send_one
from ._transport import sync_transport
from ._types import ApiIndex, Event, Record, Run

if sys.version_info >= (3, 11):
    from typing import Unpack
else:  # pragma: no cover - Python 3.9 and 3.10
    from typing_extensions import Unpack

__all__ = ["HttpClient"]


class HttpClient(Base):
    """A synchronous client of the API over HTTP.

    :param api_key: the API key; ``ACD_API_KEY`` when omitted.
    :param token: an OAuth access token instead of an API key (not both).
    :param base_url: the API's base URL; ``ACD_BASE_URL`` when omitted, else
        the core's default.
    :param retry: the retry policy (the core's defaults when omitted).
    :param seed: a fixed seed for jitter and keys (tests).
    :param max_body_bytes: the largest response body accepted.
    :param http_client: an ``httpx.Client`` (it stays yours: closing this
        client leaves it open), or any object with
        ``send(acd.Request) -> acd.Response``; by default a new
        ``httpx.Client`` (urllib when httpx is not installed), closed with
        this client.
    :param timeout: seconds one exchange may take, from sending to the last
        byte of the body. Redirects are never followed.
    :param sleep: called with seconds to wait (by default the client waits
        on its own lock, so a call another thread starts wakes it).
    :param clock: returns the time in Unix seconds (default ``time.time``).
    :param on_event: called with every event of every call (waits,
        retries, deprecation notices, pages, ...), as it happens.

    Use it as a context manager so what it made is released::

        with acd.HttpClient(api_key=key, base_url=url) as api:
            rows = api.tables.read("orders", page_size=50)
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        *,
        token: Optional[str] = None,
        base_url: Optional[str] = None,
        retry: Optional[RetryPolicy] = None,
        seed: Optional[int] = None,
        max_body_bytes: Optional[int] = None,
        http_client: Any = None,
        timeout: float = 30.0,
        sleep: Optional[Callable[[float], None]] = None,
        clock: Optional[Callable[[], float]] = None,
        on_event: Optional[Callable[[Event], None]] = None,
    ) -> None:
        super().__init__(api_key, base_url, retry, seed, max_body_bytes, timeout, clock, on_event, token)
        self._transport = sync_transport(http_client, timeout)
        self._session = ThreadSession(sleep)
        self.tables = Tables(self)
        """Table records: :meth:`Tables.read`, :meth:`Tables.iter`, :meth:`Tables.pages`."""
        self.connections = Connections(self)
        """Connection records: :meth:`Connections.read`, :meth:`Connections.iter`, :meth:`Connections.pages`."""
        self.runs = Runs(self)
        """Agent runs: :meth:`Runs.create`, :meth:`Runs.get`, :meth:`Runs.wait`."""

    def __enter__(self) -> "HttpClient":
        self._check_open()
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException], trace: Any) -> None:
        self.close()

    def close(self) -> None:
        """Releases what this client made (its HTTP client; a caller's stays
        open). Any later call raises :class:`acd.ConfigError` at once."""
        if not self._closed:
            self._closed = True
            transport: Any = self._transport
            if getattr(transport, "owned", False):
                transport.close()

    def index(self, **options: Unpack[CallOptions]) -> ApiIndex:
        """The API index (``GET /api/v1``)."""
        index: ApiIndex = self._call(index_spec(), options)
        return index

    def request(self, operation: str, *, path: Optional[Mapping[str, str]] = None,
                query: Optional[Mapping[str, Any]] = None, body: Any = None,
                **options: Unpack[CallOptions]) -> Any:
        """Calls any operation of the catalogue by its id (e.g.
        ``"listTableRecords"``); ``body`` is any JSON value. Returns the
        response's payload (records, a document or an object)."""
        spec = request_spec(operation, path, query, body)
        return self._call(spec, options)

    def _call(self, spec: Dict[str, Any], options: CallOptions) -> Any:
        for event in self.events(self._start(spec, options)):
            if event["type"] == "response":
                return event["body"]
        raise AcdError("the call ended without a response")

    def events(self, call: int) -> Iterator[Dict[str, Any]]:
        """The data events of ``call`` (``response``, ``page``,
        ``run_status``) as they come, sending and sleeping in between; raises
        the typed exception when the call fails. Closing the iterator early
        cancels the call."""
        try:
            while True:
                done, event = self._next(call)
                if done:
                    return
                if event is not None:
                    yield event
                else:
                    self._check_open()
                    self._step()
        finally:
            self._finish(call)

    def _start(self, spec: Dict[str, Any], options: CallOptions) -> int:
        with self._session.lock:
            call = super()._start(spec, options)
        self._session.wake()
        return call

    def _finish(self, call: int) -> None:
        with self._session.lock:
            super()._finish(call)

    def _next(self, call: int) -> Tuple[bool, Optional[Dict[str, Any]]]:
        with self._session.lock:
            return super()._next(call)

    def _step(self) -> None:
        """One turn of the session (docs/driver-protocol.md, "Session"): one
        thread drives at a time; the others wait until it is done."""
        if not self._session.wait_turn():
            return
        try:
            self._drive()
        finally:
            self._session.done()

    def _drive(self) -> None:
        """Polls; sends every transmit at once and returns once they are
        answered or events arrived; else waits for the batch's wake-up."""
        with self._session.lock:
            now = self._now_ms()
            batch = self.client.poll(now)
            progressed = self._route(batch["events"])
            sending = [transmit for transmit in batch["transmits"] if transmit["call"] in self._queues]
        if batch["transmits"]:
            self._session.exchange_all(sending, lambda transmit: send_one(self, transmit, now))
            return
        if progressed:
            return
        if batch["timeout"] is None:
            raise AcdError(NO_PROGRESS)
        self._session.sleep(max(0, batch["timeout"] - self._now_ms()) / 1000)


class Tables:
    """Table records through an :class:`HttpClient`."""

    def __init__(self, api: HttpClient) -> None:
        self._api = api

    def read(self, table: str, *, page_size: Optional[int] = None, offset: Optional[int] = None,
             order_by: Optional[str] = None, descending: bool = False, after: Optional[str] = None,
             **options: Unpack[CallOptions]) -> List[Record]:
        """One page of ``table``'s records."""
        records: List[Record] = self._api._call(read_spec(table, page_size, offset, order_by, descending, after),
                                                options)
        return records

    def pages(self, table: str, *, page_size: Optional[int] = None, order_by: Optional[str] = None,
              descending: bool = False, unique_order: bool = False,
              **options: Unpack[CallOptions]) -> Iterator[List[Record]]:
        """Every page of ``table``, in order; the client waits between pages
        when the rate limit says so. Set ``unique_order`` only when the
        ``order_by`` column has no duplicates (pages then go by ``after``)."""
        spec = pages_spec("table_pages", table=table, page_size=page_size, order_by=order_by,
                          descending=descending, unique_order=unique_order)
        for event in self._api.events(self._api._start(spec, options)):
            if event["type"] == "page":
                yield event["records"]

    def iter(self, table: str, *, page_size: Optional[int] = None, order_by: Optional[str] = None,
             descending: bool = False, unique_order: bool = False,
             **options: Unpack[CallOptions]) -> Iterator[Record]:
        """Every record of ``table``, page by page, each exactly once."""
        for page in self.pages(table, page_size=page_size, order_by=order_by, descending=descending,
                               unique_order=unique_order, **options):
            yield from page


class Connections:
    """Connection records through an :class:`HttpClient`."""

    def __init__(self, api: HttpClient) -> None:
        self._api = api

    def read(self, connection: str, entity: str, *, page_size: Optional[int] = None,
             offset: Optional[int] = None, filter: Any = None, egress: Optional[str] = None,
             **options: Unpack[CallOptions]) -> List[Record]:
        """One page of the records of ``entity`` in ``connection``;
        ``filter`` is any JSON value (a string is taken as its JSON text);
        ``egress`` is ``"header"`` or ``"url"`` for the stable egress IP."""
        records: List[Record] = self._api._call(
            connection_read_spec(connection, entity, page_size, offset, filter, egress), options)
        return records

    def pages(self, connection: str, entity: str, *, page_size: Optional[int] = None, filter: Any = None,
              egress: Optional[str] = None, **options: Unpack[CallOptions]) -> Iterator[List[Record]]:
        """Every page of the records of ``entity`` in ``connection``."""
        spec = pages_spec("connection_pages", connection=connection, entity=entity, page_size=page_size,
                          filter=filter, egress=egress)
        for event in self._api.events(self._api._start(spec, options)):
            if event["type"] == "page":
                yield event["records"]

    def iter(self, connection: str, entity: str, *, page_size: Optional[int] = None, filter: Any = None,
             egress: Optional[str] = None, **options: Unpack[CallOptions]) -> Iterator[Record]:
        """Every record of ``entity`` in ``connection``, page by page."""
        for page in self.pages(connection, entity, page_size=page_size, filter=filter, egress=egress,
                               **options):
            yield from page


class Runs:
    """Agent runs through an :class:`HttpClient`."""

    def __init__(self, api: HttpClient) -> None:
        self._api = api

    def create(self, agent_id: str, *, input: Any = None, **options: Unpack[CallOptions]) -> Run:
        """Starts a run of agent ``agent_id`` (``POST /agents/{agent_id}/runs``,
        body ``{"input": input}``); the new run."""
        spec = run_create_spec(agent_id, input)
        run: Run = self._api._call(spec, options)
        return run

    def get(self, run_id: str, **options: Unpack[CallOptions]) -> Run:
        """Run ``run_id`` as it is now."""
        run: Run = self._api._call(run_get_spec(run_id), options)
        return run

    def wait(self, run_id: str, *, interval: Optional[float] = None, timeout: Optional[float] = None,
             headers: Optional[Mapping[str, str]] = None, max_attempts: Optional[int] = None) -> Run:
        """Polls run ``run_id`` every ``interval`` seconds (the core's default:
        about once a second, honouring 429) until a terminal status; the
        final run. ``timeout``: seconds to wait at most (then
        :class:`acd.APITimeoutError`)."""
        spec, options = wait_spec(run_id, interval, timeout), some_options(headers, max_attempts)
        last: Run = {}
        for event in self._api.events(self._api._start(spec, options)):
            if event["type"] == "run_status":
                last = event["run"]
        return last
