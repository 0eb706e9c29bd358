"""The easy path in virtual time: ``acd.HttpClient`` and
``acd.AsyncHttpClient`` against the in-process gate of ``acd.testing``, with
an injected clock and sleep. No server, no real sleeping."""
from __future__ import annotations

import asyncio
from typing import Any, Dict, List, Optional, Union

import pytest

import acd
from acd.testing import DEMO_API_KEY, AsyncGateTransport, GateTransport, VirtualClock

ROWS: List[Dict[str, Any]] = [{"id": i, "name": f"row-{i}"} for i in range(1, 24)]
# 5 reads per 3 s for each user: 23 rows in pages of 2 need 12 reads.
SHORT_WINDOW = {"user_table_reads": {"requests": 5, "window_ms": 3_000}}


def api(gate: GateTransport, clock: VirtualClock, **options: Any) -> acd.HttpClient:
    return acd.HttpClient(api_key=DEMO_API_KEY, seed=7, http_client=gate, clock=clock,
                          sleep=clock.sleep, **options)


# A start on a 3 s boundary of the Unix epoch, where fixed windows begin.
ALIGNED_MS = 1_700_000_001_000


def test_23_rows_past_a_5_per_3s_window_arrive_once_each_without_a_429() -> None:
    clock = VirtualClock(ALIGNED_MS / 1000)
    gate = GateTransport(clock, tables={"orders": ROWS}, limits=SHORT_WINDOW)
    with api(gate, clock) as client:
        rows = list(client.tables.iter("orders", page_size=2))
    assert rows == ROWS
    assert gate.statuses == [200] * 12
    # Reads 1-5 at 0 s, 6-10 once the window resets at 3 s, 11-12 after 6 s;
    # throttle waits are jittered, never shortened.
    assert len(clock.sleeps) == 2
    assert clock.sleeps[0] >= 3.0
    assert clock.elapsed >= 6.0


def test_read_returns_one_page_as_dicts_and_index_the_document() -> None:
    clock = VirtualClock()
    gate = GateTransport(clock, tables={"orders": ROWS})
    with api(gate, clock) as client:
        assert client.tables.read("orders", page_size=3, offset=20) == ROWS[20:23]
        index = client.index()
    assert index["version"] == "v1"
    assert gate.statuses == [200, 200]


def test_an_unknown_table_raises_not_found_with_the_body() -> None:
    clock = VirtualClock()
    gate = GateTransport(clock, tables={"orders": ROWS})
    with api(gate, clock) as client, pytest.raises(acd.NotFoundError) as raised:
        client.tables.read("missing")
    assert raised.value.status == 404
    assert raised.value.body is not None and raised.value.body["status"] == 404
    assert gate.statuses == [404]


def test_an_unknown_key_raises_authentication_error_and_is_not_retried() -> None:
    clock = VirtualClock()
    gate = GateTransport(clock, tables={"orders": ROWS})
    client = acd.HttpClient(api_key="acd_live_nobody", http_client=gate, clock=clock, sleep=clock.sleep, seed=1)
    with pytest.raises(acd.AuthenticationError) as raised:
        client.tables.read("orders")
    assert raised.value.status == 401
    assert gate.statuses == [401]


def fail_first(count: int, outcome: Union[acd.Response, acd.TransportFailure]) -> Any:
    seen: List[int] = []

    def fault(request: acd.Request) -> Optional[Union[acd.Response, acd.TransportFailure]]:
        seen.append(1)
        return outcome if len(seen) <= count else None

    return fault


def test_a_429_with_retry_after_is_waited_out_then_the_read_succeeds() -> None:
    clock = VirtualClock()
    refused = acd.Response(429, [("Retry-After", "2"), ("Content-Type", "application/json")],
                           b'{"detail":"Rate limit exceeded.","status":429}')
    gate = GateTransport(clock, tables={"orders": ROWS}, fault=fail_first(1, refused))
    with api(gate, clock) as client:
        assert client.tables.read("orders", page_size=1) == ROWS[:1]
    assert gate.statuses == [429, 200]
    assert clock.elapsed >= 2.0  # never earlier than Retry-After


def test_a_503_storm_outlasting_the_policy_raises_internal_server_error_after_max_attempts() -> None:
    clock = VirtualClock()
    busy = acd.Response(503, [("Content-Type", "application/json")], b'{"detail":"Try later.","status":503}')
    gate = GateTransport(clock, tables={"orders": ROWS}, fault=fail_first(100, busy))
    with api(gate, clock, retry=acd.RetryPolicy(max_attempts=3)) as client:
        with pytest.raises(acd.InternalServerError) as raised:
            client.tables.read("orders")
    assert raised.value.status == 503
    assert raised.value.detail == "Try later."
    assert gate.statuses == [503, 503, 503]
    assert len(clock.sleeps) == 2  # a backoff before each retry


def test_a_short_503_storm_is_ridden_out() -> None:
    clock = VirtualClock()
    busy = acd.Response(503, [("Content-Type", "application/json")], b'{"detail":"Try later.","status":503}')
    gate = GateTransport(clock, tables={"orders": ROWS}, fault=fail_first(2, busy))
    with api(gate, clock) as client:
        assert client.tables.read("orders", page_size=2) == ROWS[:2]
    assert gate.statuses == [503, 503, 200]


def test_connect_errors_are_retried_then_raise_api_connection_error() -> None:
    clock = VirtualClock()
    gate = GateTransport(clock, tables={"orders": ROWS}, fault=fail_first(100, acd.TransportFailure("connect")))
    with api(gate, clock, retry=acd.RetryPolicy(max_attempts=2)) as client:
        with pytest.raises(acd.APIConnectionError) as raised:
            client.tables.read("orders")
    assert not isinstance(raised.value, acd.APITimeoutError)
    assert raised.value.status is None
    assert len(gate.requests) == 2


def test_a_timeout_on_a_get_is_retried_and_then_succeeds() -> None:
    clock = VirtualClock()
    gate = GateTransport(clock, tables={"orders": ROWS}, fault=fail_first(1, acd.TransportFailure("timeout")))
    with api(gate, clock) as client:
        assert client.tables.read("orders", page_size=1) == ROWS[:1]
    assert len(gate.requests) == 2 and gate.statuses == [200]


def test_timeouts_outlasting_the_policy_raise_api_timeout_error() -> None:
    clock = VirtualClock()
    gate = GateTransport(clock, tables={"orders": ROWS}, fault=fail_first(100, acd.TransportFailure("timeout")))
    with api(gate, clock, retry=acd.RetryPolicy(max_attempts=2)) as client:
        with pytest.raises(acd.APITimeoutError):
            client.tables.read("orders")
    assert len(gate.requests) == 2


def test_stopping_an_iteration_early_cancels_the_pager() -> None:
    clock = VirtualClock()
    gate = GateTransport(clock, tables={"orders": ROWS})
    with api(gate, clock) as client:
        for row in client.tables.iter("orders", page_size=2):
            if row["id"] == 3:
                break
        assert client.client.is_idle()
    # Pages 1 and 2, and page 3, which was already on its way when page 2
    # came (the core sends a pager's next request with the page before it).
    assert len(gate.requests) == 3


def test_the_async_client_pages_with_async_for_in_virtual_time() -> None:
    clock = VirtualClock()
    gate = GateTransport(clock, tables={"orders": ROWS}, limits=SHORT_WINDOW)

    async def read_all() -> List[Dict[str, Any]]:
        async with acd.AsyncHttpClient(api_key=DEMO_API_KEY, seed=7, http_client=AsyncGateTransport(gate),
                                       clock=clock, sleep=clock.async_sleep) as client:
            first = await client.tables.read("orders", page_size=1)
            assert first == ROWS[:1]
            return [row async for row in client.tables.iter("orders", page_size=2)]

    assert asyncio.run(read_all()) == ROWS
    assert 429 not in gate.statuses
    assert len(gate.statuses) == 13


def test_the_async_client_raises_the_same_typed_errors() -> None:
    clock = VirtualClock()
    gate = GateTransport(clock, tables={"orders": ROWS}, fault=fail_first(100, acd.TransportFailure("timeout")))

    async def read() -> None:
        async with acd.AsyncHttpClient(api_key=DEMO_API_KEY, seed=7, http_client=AsyncGateTransport(gate),
                                       retry=acd.RetryPolicy(max_attempts=2), clock=clock,
                                       sleep=clock.async_sleep) as client:
            await client.tables.read("orders")

    with pytest.raises(acd.APITimeoutError):
        asyncio.run(read())
    assert len(gate.requests) == 2
