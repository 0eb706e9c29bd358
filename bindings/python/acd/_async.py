"""``acd.AsyncHttpClient``: the easy path for asyncio, over
``httpx.AsyncClient``. The same core decisions as :class:`acd.HttpClient`;
pages come through ``async for``. Cancelling the task cancels the call.
Sleep and clock can be injected."""
from __future__ import annotations

import asyncio
import sys
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, List, Mapping, Optional, Set, Type

from ._base import (NO_PROGRESS, Base, CallOptions, connection_read_spec, index_spec, pages_spec, read_spec,
                    request_spec, run_create_spec, run_get_spec, some_options, wait_spec)
from ._config import RetryPolicy
from ._errors import AcdError
from ._transport import TransportFailure, async_transport
from ._types import ApiIndex, Event, Record, Run

if sys.version_info >= (3, 11):
    from typing import Unpack
else:  # pragma: no cover - Python 3.9 and 3.10
    from typing_extensions import Unpack

__all__ = ["AsyncHttpClient"]


class AsyncHttpClient(Base):
    """An asyncio client of the API over HTTP.

    :param api_key: the API key; ``ACD_API_KEY`` when omitted.
    :param token: an OAuth access token instead of an API key (not both).
    :param base_url: the API's base URL; ``ACD_BASE_URL`` when omitted, else
        the core's default.
    :param retry: the retry policy (the core's defaults when omitted).
    :param seed: a fixed seed for jitter and keys (tests).
    :param max_body_bytes: the largest response body accepted.
    :param http_client: an ``httpx.AsyncClient`` (it stays yours: closing
        this client leaves it open), or any object with
        ``async send(acd.Request) -> acd.Response``; by default a new
        ``httpx.AsyncClient``, closed with this client.
    :param timeout: seconds one exchange may take, from sending to the last
        byte of the body. Redirects are never followed.
    :param sleep: awaited with seconds to wait (default ``asyncio.sleep``).
    :param clock: returns the time in Unix seconds (default ``time.time``).
    :param on_event: called with every event of every call (waits,
        retries, deprecation notices, pages, ...), as it happens.

    Use it as a context manager so what it made is released::

        async with acd.AsyncHttpClient(api_key=key, base_url=url) as api:
            async for row in api.tables.iter("orders", page_size=500):
                ...
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
        sleep: Optional[Callable[[float], Awaitable[None]]] = None,
        clock: Optional[Callable[[], float]] = None,
        on_event: Optional[Callable[[Event], None]] = None,
    ) -> None:
        super().__init__(api_key, base_url, retry, seed, max_body_bytes, timeout, clock, on_event, token)
        self._transport = async_transport(http_client, timeout)
        self._sleep = sleep if sleep is not None else asyncio.sleep
        self._driving = False
        self._progress: Optional[asyncio.Event] = None
        self._arrived: Optional[asyncio.Event] = None
        self._failure: Optional[BaseException] = None
        self._in_flight: Set["asyncio.Future[None]"] = set()
        self.tables = AsyncTables(self)
        """Table records: :meth:`AsyncTables.read`, :meth:`AsyncTables.iter`, :meth:`AsyncTables.pages`."""
        self.connections = AsyncConnections(self)
        """Connection records: :meth:`AsyncConnections.read`, :meth:`AsyncConnections.iter`, :meth:`AsyncConnections.pages`."""
        self.runs = AsyncRuns(self)
        """Agent runs: :meth:`AsyncRuns.create`, :meth:`AsyncRuns.get`, :meth:`AsyncRuns.wait`."""

    _closed_name = "acd.AsyncHttpClient"

    async def __aenter__(self) -> "AsyncHttpClient":
        self._check_open()
        return self

    async def __aexit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException],
                        trace: Any) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Releases what this client made (its HTTP client; a caller's stays
        open). Any later call raises :class:`acd.ConfigError` at once."""
        if not self._closed:
            self._closed = True
            transport: Any = self._transport
            if getattr(transport, "owned", False):
                await transport.aclose()

    async def index(self, **options: Unpack[CallOptions]) -> ApiIndex:
        """The API index (``GET /api/v1``)."""
        index: ApiIndex = await self._call(index_spec(), options)
        return index

    async def request(self, operation: str, *, path: Optional[Mapping[str, str]] = None,
                query: Optional[Mapping[str, Any]] = None, body: Any = None,
                **options: Unpack[CallOptions]) -> Any:
        """Calls any operation of the catalogue by its id (e.g.
        ``"listTableRecords"``); ``body`` is any JSON value. Returns the
        response's payload (records, a document or an object)."""
        spec = request_spec(operation, path, query, body)
        return await self._call(spec, options)

    async def _call(self, spec: Dict[str, Any], options: CallOptions) -> Any:
        async for event in self.events(self._start(spec, options)):
            if event["type"] == "response":
                return event["body"]
        raise AcdError("the call ended without a response")

    async def events(self, call: int) -> AsyncIterator[Dict[str, Any]]:
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
                    await self._step()
        finally:
            self._finish(call)

    async def _step(self) -> None:
        """One turn of the session (docs/driver-protocol.md, "Session"): one
        task drives at a time; the others wait until it has delivered events."""
        if self._driving:
            if self._progress is None:
                self._progress = asyncio.Event()
            await self._progress.wait()
            return
        self._driving = True
        try:
            await self._drive()
        finally:
            self._driving = False
            if self._progress is not None:
                self._progress.set()
                self._progress = None

    def _wake(self) -> None:
        """Wakes the driving task (an outcome arrived, or a call started)."""
        if self._arrived is not None:
            self._arrived.set()

    def _start(self, spec: Dict[str, Any], options: CallOptions) -> int:
        call = super()._start(spec, options)
        self._wake()
        return call

    async def _drive(self) -> None:
        """Polls; sends every transmit at once, concurrently; returns once
        events arrived, else waits for the next outcome or the batch's
        timeout, whichever is first."""
        while True:
            self._arrived = arrived = asyncio.Event()
            if self._failure is not None:
                failure, self._failure = self._failure, None
                raise failure
            now = self._now_ms()
            batch = self.client.poll(now)
            progressed = self._route(batch["events"])
            for transmit in batch["transmits"]:
                if transmit["call"] in self._queues:
                    task = asyncio.ensure_future(self._exchange(transmit, now))
                    self._in_flight.add(task)
                    task.add_done_callback(self._in_flight.discard)
            if progressed:
                return
            if batch["transmits"]:
                continue  # sent: poll again, as the contract asks after each step
            timeout = batch["timeout"]
            if timeout is None and not self._in_flight:
                raise AcdError(NO_PROGRESS)
            waits: List["asyncio.Future[Any]"] = [asyncio.ensure_future(arrived.wait())]
            if timeout is not None:
                waits.append(asyncio.ensure_future(self._sleep(max(0, timeout - self._now_ms()) / 1000)))
            try:
                await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiting in waits:
                    waiting.cancel()

    async def _exchange(self, transmit: Dict[str, Any], now: int) -> None:
        """Sends one transmit and hands its outcome to the core as it arrives."""
        try:
            reply = await self._transport.send(self._request(transmit, now))
        except TransportFailure as failure:
            self.client.fail(transmit["call"], failure.kind, self._now_ms())
        except asyncio.CancelledError:
            raise
        except Exception as error:  # raised by the driving task, as a blocking send would raise it
            self._failure = error
        else:
            self.client.respond(transmit["call"], reply.status, reply.headers, reply.body, self._now_ms())
        self._wake()


class AsyncTables:
    """Table records through an :class:`AsyncHttpClient`."""

    def __init__(self, api: AsyncHttpClient) -> None:
        self._api = api

    async def read(self, table: str, *, page_size: Optional[int] = None, offset: Optional[int] = None,
             order_by: Optional[str] = None, descending: bool = False, after: Optional[str] = None,
             **options: Unpack[CallOptions]) -> List[Record]:
        """As the synchronous client's method of the same name."""
        records: List[Record] = await self._api._call(read_spec(table, page_size, offset, order_by, descending, after),
                                                options)
        return records

    async def pages(self, table: str, *, page_size: Optional[int] = None, order_by: Optional[str] = None,
              descending: bool = False, unique_order: bool = False,
              **options: Unpack[CallOptions]) -> AsyncIterator[List[Record]]:
        """As the synchronous client's method of the same name."""
        spec = pages_spec("table_pages", table=table, page_size=page_size, order_by=order_by,
                          descending=descending, unique_order=unique_order)
        async for event in self._api.events(self._api._start(spec, options)):
            if event["type"] == "page":
                yield event["records"]

    async def iter(self, table: str, *, page_size: Optional[int] = None, order_by: Optional[str] = None,
             descending: bool = False, unique_order: bool = False,
             **options: Unpack[CallOptions]) -> AsyncIterator[Record]:
        """As the synchronous client's method of the same name."""
        async for page in self.pages(table, page_size=page_size, order_by=order_by, descending=descending,
                                     unique_order=unique_order, **options):
            for record in page:
                yield record


class AsyncConnections:
    """Connection records through an :class:`AsyncHttpClient`."""

    def __init__(self, api: AsyncHttpClient) -> None:
        self._api = api

    async def read(self, connection: str, entity: str, *, page_size: Optional[int] = None,
             offset: Optional[int] = None, filter: Any = None, egress: Optional[str] = None,
             **options: Unpack[CallOptions]) -> List[Record]:
        """As the synchronous client's method of the same name."""
        records: List[Record] = await self._api._call(
            connection_read_spec(connection, entity, page_size, offset, filter, egress), options)
        return records

    async def pages(self, connection: str, entity: str, *, page_size: Optional[int] = None, filter: Any = None,
              egress: Optional[str] = None, **options: Unpack[CallOptions]) -> AsyncIterator[List[Record]]:
        """As the synchronous client's method of the same name."""
        spec = pages_spec("connection_pages", connection=connection, entity=entity, page_size=page_size,
                          filter=filter, egress=egress)
        async for event in self._api.events(self._api._start(spec, options)):
            if event["type"] == "page":
                yield event["records"]

    async def iter(self, connection: str, entity: str, *, page_size: Optional[int] = None, filter: Any = None,
             egress: Optional[str] = None, **options: Unpack[CallOptions]) -> AsyncIterator[Record]:
        """As the synchronous client's method of the same name."""
        async for page in self.pages(connection, entity, page_size=page_size, filter=filter, egress=egress,
                                     **options):
            for record in page:
                yield record


class AsyncRuns:
    """Agent runs through an :class:`AsyncHttpClient`."""

    def __init__(self, api: AsyncHttpClient) -> None:
        self._api = api

    async def create(self, agent_id: str, *, input: Any = None, **options: Unpack[CallOptions]) -> Run:
        """As the synchronous client's method of the same name."""
        spec = run_create_spec(agent_id, input)
        run: Run = await self._api._call(spec, options)
        return run

    async def get(self, run_id: str, **options: Unpack[CallOptions]) -> Run:
        """As the synchronous client's method of the same name."""
        run: Run = await self._api._call(run_get_spec(run_id), options)
        return run

    async def wait(self, run_id: str, *, interval: Optional[float] = None, timeout: Optional[float] = None,
             headers: Optional[Mapping[str, str]] = None, max_attempts: Optional[int] = None) -> Run:
        """As the synchronous client's method of the same name."""
        spec, options = wait_spec(run_id, interval, timeout), some_options(headers, max_attempts)
        last: Run = {}
        async for event in self._api.events(self._api._start(spec, options)):
            if event["type"] == "run_status":
                last = event["run"]
        return last
