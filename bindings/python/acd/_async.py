"""``acd.AsyncHttpClient``: the easy path for asyncio, over
``httpx.AsyncClient``. The same core decisions as :class:`acd.HttpClient`;
pages come through ``async for``. Sleep and clock can be injected."""
from __future__ import annotations

import asyncio
import json
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, List, Optional, Type

from ._calls import NO_PROGRESS, CallQueues
from ._client import Client
from ._config import RetryPolicy
from ._engine import Event
from ._errors import AcdError
from ._resources import connection_spec, index_spec, result_of, table_spec
from ._sync import wall_clock_ms
from ._transport import AsyncHttpxTransport, TransportFailure, async_transport

__all__ = ["AsyncHttpClient"]


class AsyncHttpClient:
    """An asyncio client of the API over HTTP.

    Takes :class:`acd.Client`'s arguments (``api_key``, ``base_url``,
    ``user``, ``retry``, ``seed``, ``max_body_bytes``) and:

    :param http_client: an ``httpx.AsyncClient``, or any object with
        ``async send(acd.Request) -> acd.Response``; by default a new
        ``httpx.AsyncClient``.
    :param timeout: seconds one exchange may take, from sending to the last
        byte of the body (the transports made here, and an httpx client given).
        Redirects are never followed.
    :param sleep: awaited with seconds to wait (default ``asyncio.sleep``).
    :param clock: returns the time in Unix ms (default the system clock).

    ::

        async with acd.AsyncHttpClient(api_key=key, base_url=url) as api:
            async for row in api.tables.iter("orders", page_size=500):
                ...
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
        sleep: Optional[Callable[[float], Awaitable[None]]] = None,
        clock: Optional[Callable[[], int]] = None,
    ) -> None:
        self.client = Client(api_key, base_url=base_url, user=user, retry=retry, seed=seed,
                             max_body_bytes=max_body_bytes)
        self._transport = async_transport(http_client, timeout)
        self._sleep = sleep if sleep is not None else asyncio.sleep
        self._clock = clock if clock is not None else wall_clock_ms
        self._calls = CallQueues(self.client)
        self.tables = AsyncTables(self)
        """Table records: :meth:`AsyncTables.read` and :meth:`AsyncTables.iter`."""
        self.connections = AsyncConnections(self)
        """Connection records: :meth:`AsyncConnections.read` and :meth:`AsyncConnections.iter`."""
        self.runs = AsyncRuns(self)
        """Agent runs: :meth:`AsyncRuns.wait`."""

    def __repr__(self) -> str:
        return f"acd.AsyncHttpClient({self.client!r})"

    async def __aenter__(self) -> "AsyncHttpClient":
        return self

    async def __aexit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException],
                        trace: Any) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Closes the transport made here (a caller's ``http_client`` stays open)."""
        if isinstance(self._transport, AsyncHttpxTransport) and self._transport.owned:
            await self._transport.aclose()

    async def index(self) -> Dict[str, Any]:
        """The API index (``GET /api/v1``), as a dict."""
        index: Dict[str, Any] = await self._result(self.client.start_spec(index_spec()))
        return index

    async def _result(self, call: int) -> Any:
        async for event in self.events(call):
            if event["type"] == "response":
                return result_of(event)
        raise AcdError(f"call {call} ended without a response")

    async def events(self, call: int) -> AsyncIterator[Event]:
        """The data events of ``call`` as they come (see
        :meth:`acd.HttpClient.events`)."""
        self._calls.open(call)
        try:
            while True:
                done, event = self._calls.next_data(call)
                if done:
                    return
                if event is not None:
                    yield event
                else:
                    await self._step()
        finally:
            self._calls.close(call)

    async def _step(self) -> None:
        # One request per step, so an iteration stopped early sends no more.
        progressed = False
        sent = self.client.poll_transmit(self._clock())
        if sent is not None:
            call, request = sent
            try:
                outcome: Any = await self._transport.send(request)
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
        await self._sleep(max(0, deadline - self._clock()) / 1000)


class AsyncTables:
    """Table records through an :class:`AsyncHttpClient`."""

    def __init__(self, api: AsyncHttpClient) -> None:
        self._api = api

    async def read(self, table: str, *, limit: Optional[int] = None, offset: Optional[int] = None,
                   order_by: Optional[str] = None, direction: Optional[str] = None,
                   after: Optional[str] = None) -> List[Dict[str, Any]]:
        """One page of ``table``'s records (``list[dict]``)."""
        spec = table_spec(table, limit=limit, offset=offset, order_by=order_by, direction=direction, after=after)
        records: List[Dict[str, Any]] = await self._api._result(self._api.client.start_spec(spec))
        return records

    async def iter(self, table: str, *, page_size: Optional[int] = None, order_by: Optional[str] = None,
                   descending: bool = False, unique_order: bool = False) -> AsyncIterator[Dict[str, Any]]:
        """Every record of ``table``, page by page, each exactly once."""
        call = self._api.client.start_table_pager(table, page_size=page_size, order_by=order_by,
                                                  descending=descending, unique_order=unique_order)
        async for event in self._api.events(call):
            if event["type"] == "page":
                for record in event["records"]:
                    yield record


class AsyncConnections:
    """Connection records through an :class:`AsyncHttpClient`."""

    def __init__(self, api: AsyncHttpClient) -> None:
        self._api = api

    async def read(self, connection: str, entity_id: str, *, limit: Optional[int] = None,
                   offset: Optional[int] = None, filter: Optional[Any] = None) -> List[Dict[str, Any]]:
        """One page of the records of ``entity_id`` in ``connection``."""
        text = filter if filter is None or isinstance(filter, str) else json.dumps(filter)
        spec = connection_spec(connection, entity_id, limit=limit, offset=offset, filter=text)
        records: List[Dict[str, Any]] = await self._api._result(self._api.client.start_spec(spec))
        return records

    async def iter(self, connection: str, entity_id: str, *, page_size: Optional[int] = None,
                   filter: Optional[Any] = None) -> AsyncIterator[Dict[str, Any]]:
        """Every record of ``entity_id`` in ``connection``, page by page."""
        call = self._api.client.start_connection_pager(connection, entity_id, page_size=page_size, filter=filter)
        async for event in self._api.events(call):
            if event["type"] == "page":
                for record in event["records"]:
                    yield record


class AsyncRuns:
    """Agent runs through an :class:`AsyncHttpClient`."""

    def __init__(self, api: AsyncHttpClient) -> None:
        self._api = api

    async def wait(self, run_id: str, *, interval_ms: Optional[int] = None,
                   deadline_ms: Optional[int] = None) -> Dict[str, Any]:
        """Polls run ``run_id`` until a terminal status; returns the final run."""
        call = self._api.client.start_run_poller(run_id, interval_ms=interval_ms, deadline_ms=deadline_ms)
        last: Dict[str, Any] = {}
        async for event in self._api.events(call):
            if event["type"] == "run_status":
                last = event["run"]
        return last
