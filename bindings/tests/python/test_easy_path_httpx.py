"""Faults through ``httpx.MockTransport``: the same ``acd.HttpClient`` and
``acd.AsyncHttpClient`` over a real httpx client whose transport is scripted.
Time is virtual (injected clock and sleep)."""
from __future__ import annotations

import asyncio
import json
from typing import Any, Callable, Dict, List

import httpx
import pytest

import acd
from acd.testing import VirtualClock

BASE = "http://api.test"
ROWS = [{"id": 1}, {"id": 2}]


def ok(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json={"data": ROWS}, headers={"RateLimit-Limit": "100", "RateLimit-Remaining": "99",
                                                              "RateLimit-Reset": "60"})


def scripted(*answers: Callable[[httpx.Request], httpx.Response]) -> "tuple[List[httpx.Request], Any]":
    seen: List[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return answers[min(len(seen), len(answers)) - 1](request)

    return seen, handler


def status(code: int, **headers: str) -> Callable[[httpx.Request], httpx.Response]:
    return lambda request: httpx.Response(code, json={"detail": f"status {code}", "status": code}, headers=headers)


def raising(error: type) -> Callable[[httpx.Request], httpx.Response]:
    def handler(request: httpx.Request) -> httpx.Response:
        raise error("scripted failure", request=request)
    return handler


def client(handler: Any, clock: VirtualClock, **options: Any) -> acd.HttpClient:
    return acd.HttpClient(api_key="acd_live_demo_ada", base_url=BASE, seed=3,
                          http_client=httpx.Client(transport=httpx.MockTransport(handler)),
                          clock=clock, sleep=clock.sleep, **options)


def test_the_request_carries_the_key_and_the_role_parameters() -> None:
    seen, handler = scripted(ok)
    with client(handler, VirtualClock()) as api:
        assert api.tables.read("orders", page_size=50) == ROWS
    assert len(seen) == 1
    assert str(seen[0].url) == f"{BASE}/api/v1/tables/orders?limit=50"
    assert seen[0].headers["X-API-Key"] == "acd_live_demo_ada"


def test_429_with_retry_after_waits_at_least_that_long_then_succeeds() -> None:
    clock = VirtualClock()
    seen, handler = scripted(status(429, **{"Retry-After": "5"}), ok)
    with client(handler, clock) as api:
        assert api.tables.read("orders") == ROWS
    assert len(seen) == 2
    assert clock.elapsed >= 5.0


def test_a_429_storm_raises_rate_limit_error_with_the_body() -> None:
    clock = VirtualClock()
    seen, handler = scripted(status(429, **{"Retry-After": "1"}))
    with client(handler, clock, retry=acd.RetryPolicy(max_attempts=3, deadline=10.0)) as api:
        with pytest.raises(acd.RateLimitError) as raised:
            api.tables.read("orders")
    assert len(seen) >= 3
    assert all(wait >= 1.0 for wait in clock.sleeps)  # never before Retry-After
    assert (raised.value.status, raised.value.body) == (429, {"detail": "status 429", "status": 429})


def test_a_503_storm_raises_internal_server_error_after_every_attempt() -> None:
    clock = VirtualClock()
    seen, handler = scripted(status(503))
    with client(handler, clock, retry=acd.RetryPolicy(max_attempts=4)) as api:
        with pytest.raises(acd.InternalServerError) as raised:
            api.index()
    assert len(seen) == 4
    assert raised.value.status == 503
    assert len(clock.sleeps) == 3


def test_connect_errors_become_api_connection_error() -> None:
    seen, handler = scripted(raising(httpx.ConnectError))
    with client(handler, VirtualClock(), retry=acd.RetryPolicy(max_attempts=2)) as api:
        with pytest.raises(acd.APIConnectionError) as raised:
            api.tables.read("orders")
    assert type(raised.value) is acd.APIConnectionError
    assert len(seen) == 2


def test_a_read_timeout_then_success_returns_the_rows() -> None:
    seen, handler = scripted(raising(httpx.ReadTimeout), ok)
    with client(handler, VirtualClock()) as api:
        assert api.tables.read("orders") == ROWS
    assert len(seen) == 2


def test_read_timeouts_outlasting_the_policy_raise_api_timeout_error() -> None:
    seen, handler = scripted(raising(httpx.ReadTimeout))
    with client(handler, VirtualClock(), retry=acd.RetryPolicy(max_attempts=3)) as api:
        with pytest.raises(acd.APITimeoutError):
            api.tables.read("orders")
    assert len(seen) == 3


def test_a_404_is_not_retried() -> None:
    seen, handler = scripted(status(404))
    with client(handler, VirtualClock()) as api, pytest.raises(acd.NotFoundError):
        api.tables.read("orders")
    assert len(seen) == 1


def test_a_callers_http_client_is_left_open() -> None:
    http = httpx.Client(transport=httpx.MockTransport(ok))
    with acd.HttpClient(api_key="acd_live_demo_ada", base_url=BASE, http_client=http) as api:
        api.tables.read("orders")
    assert not http.is_closed
    http.close()


def test_the_async_client_retries_a_429_over_httpx_async_client() -> None:
    clock = VirtualClock()
    seen, handler = scripted(status(429, **{"Retry-After": "2"}), ok)

    async def read() -> List[Dict[str, Any]]:
        http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
        async with acd.AsyncHttpClient(api_key="acd_live_demo_ada", base_url=BASE, seed=3, http_client=http,
                                       clock=clock, sleep=clock.async_sleep) as api:
            return await api.tables.read("orders")

    assert asyncio.run(read()) == ROWS
    assert len(seen) == 2 and clock.elapsed >= 2.0


def test_the_async_client_raises_api_connection_error() -> None:
    seen, handler = scripted(raising(httpx.ConnectError))
    clock = VirtualClock()

    async def read() -> None:
        http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
        async with acd.AsyncHttpClient(api_key="acd_live_demo_ada", base_url=BASE, seed=3, http_client=http,
                                       retry=acd.RetryPolicy(max_attempts=2), clock=clock,
                                       sleep=clock.async_sleep) as api:
            await api.tables.read("orders")

    with pytest.raises(acd.APIConnectionError):
        asyncio.run(read())
    assert len(seen) == 2


def test_index_parses_once_into_a_dict() -> None:
    index = {"name": "x"}
    seen, handler = scripted(lambda request: httpx.Response(200, content=json.dumps(index).encode()))
    with client(handler, VirtualClock()) as api, pytest.raises(acd.APIError) as raised:
        api.index()  # not a valid index document: the core refuses it
    assert "index" in str(raised.value).lower() or "contract" in str(raised.value)
    assert len(seen) == 1


def test_runs_wait_polls_until_a_terminal_status_and_returns_the_run() -> None:
    clock = VirtualClock()
    states = iter(["queued", "running", "running", "succeeded"])

    def run(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"data": {"id": "run-1", "status": next(states)}})

    seen, handler = scripted(run)
    with client(handler, clock) as api:
        final = api.runs.wait("run-1")
    assert final == {"id": "run-1", "status": "succeeded"}
    assert [str(r.url) for r in seen] == [f"{BASE}/api/v1/runs/run-1"] * 4
    assert len(clock.sleeps) == 3  # about a second between polls
    assert all(0.5 <= s <= 2.0 for s in clock.sleeps)


def test_connections_iter_pages_by_offset_with_the_entity() -> None:
    pages = [[{"id": "c1"}, {"id": "c2"}], [{"id": "c3"}]]

    def records(request: httpx.Request) -> httpx.Response:
        offset = int(request.url.params.get("offset", "0"))
        return httpx.Response(200, json=pages[offset // 2])

    seen, handler = scripted(records)
    with client(handler, VirtualClock()) as api:
        rows = list(api.connections.iter("crm", "contacts", page_size=2))
    assert rows == [{"id": "c1"}, {"id": "c2"}, {"id": "c3"}]
    assert all(r.url.params["entity_id"] == "contacts" for r in seen)
    assert len(seen) == 2
