"""``acd.testing.SandboxClock`` against a real ``acd-sandbox --clock manual``
(``ACD_SANDBOX_BIN``, set by scripts/test-python): a client pages past the
5-per-60 s table-read window in virtual time, with no 429."""
from __future__ import annotations

import os
import time
from typing import List

import pytest

import acd
from acd.pytest_plugin import Sandbox, start_sandbox
from acd.testing import SandboxClock

BIN = os.environ.get("ACD_SANDBOX_BIN")
ROWS = [{"id": i} for i in range(1, 24)]
# The wheel's pytest plugin (acd.pytest_plugin) starts the sandbox with the manual clock.
pytestmark = [
    pytest.mark.skipif(BIN is None, reason="needs the acd-sandbox binary (ACD_SANDBOX_BIN)"),
    pytest.mark.acd_sandbox(config={"tables": [{"id": "orders", "owner": "ada", "records": ROWS}]}),
]


@pytest.fixture()
def sandbox(acd_sandbox: Sandbox) -> str:
    return acd_sandbox.url


class Counting:
    """A urllib transport that records every status it receives."""

    def __init__(self) -> None:
        from acd._transport import UrllibTransport

        self.inner = UrllibTransport(timeout=10)
        self.statuses: List[int] = []

    def send(self, request: acd.Request) -> acd.Response:
        response = self.inner.send(request)
        self.statuses.append(response.status)
        return response


def test_a_client_pages_past_the_window_in_the_sandboxs_time(sandbox: str) -> None:
    clock = SandboxClock(sandbox)
    start = clock()
    transport = Counting()
    started = time.monotonic()
    with acd.HttpClient("acd_live_demo_ada", base_url=sandbox, http_client=transport,
                        clock=clock, sleep=clock.sleep) as api:
        rows = list(api.tables.iter("orders", page_size=2))
    real_seconds = time.monotonic() - started
    assert rows == ROWS
    # 12 reads at 5 per 60 s: waits for two new windows, and never a 429.
    assert transport.statuses == [200] * 12
    assert clock() - start >= 60.0
    assert len(clock.sleeps) >= 2
    # Waiting for real would take two minutes.
    assert real_seconds < 30, real_seconds


def test_the_clock_moves_only_when_told(sandbox: str) -> None:
    clock = SandboxClock(sandbox)
    now = clock()
    assert clock() == now
    assert clock.advance(1.5) == now + 1.5
    assert clock.set(1_700_000_000.0) == 1_700_000_000.0
    clock.sleep(0.25)
    assert clock() == 1_700_000_000.25
    assert clock.sleeps == [0.25]


def test_a_sandbox_on_the_system_clock_is_named() -> None:
    with start_sandbox(args=["--clock", "system", "--admin"]) as system:
        clock = SandboxClock(system.url)
        with pytest.raises(acd.AcdError, match="--clock manual"):
            clock()
        with pytest.raises(acd.AcdError, match="--clock manual") as raised:
            clock.advance(1)
        assert raised.value.status == 409


def test_concurrent_sleeps_to_one_instant_move_the_clock_once(sandbox: str) -> None:
    clock = SandboxClock(sandbox)
    now = clock.set(1_700_000_000.0)
    assert clock() == now
    for _ in range(10):
        clock.sleep(6.0)  # ten sleeps asked at the same reading
    assert clock() == now + 6.0


@pytest.mark.parametrize("flavour", ["async", "sync", "threads"])
def test_seven_concurrent_reads_take_one_extra_window_not_two(sandbox: str, flavour: str) -> None:
    """Issue 47's "done when": 7 reads at once at the default 5 per 60 s,
    started 1 s before the sandbox's window ends, end in the next window
    (one window of sandbox time at most), with no 429 and no crash."""
    import asyncio

    clock = SandboxClock(sandbox)
    # 1 s before a window boundary of the sandbox's aligned 60 s windows.
    start = clock.set(1_700_000_039.0)
    if flavour == "async":
        async def main() -> List[List[acd.Record]]:
            async with acd.AsyncHttpClient("acd_live_demo_ada", base_url=sandbox, clock=clock,
                                           sleep=clock.async_sleep) as api:
                return list(await asyncio.gather(*(api.tables.read("orders", page_size=2) for _ in range(7))))

        pages = asyncio.run(main())
    elif flavour == "threads":
        from concurrent.futures import ThreadPoolExecutor

        transport = Counting()
        with acd.HttpClient("acd_live_demo_ada", base_url=sandbox, http_client=transport, clock=clock,
                            sleep=clock.sleep) as api, ThreadPoolExecutor(7) as pool:
            pages = list(pool.map(lambda _: api.tables.read("orders", page_size=2), range(7)))
        assert sorted(transport.statuses) == [200] * 7
    else:
        transport = Counting()
        with acd.HttpClient("acd_live_demo_ada", base_url=sandbox, http_client=transport, clock=clock,
                            sleep=clock.sleep) as api:
            pages = [api.tables.read("orders", page_size=2) for _ in range(7)]
        assert transport.statuses == [200] * 7
    assert pages == [ROWS[:2]] * 7
    elapsed = clock() - start
    # 5 go at once; 2 once the window has ended (1 s) plus at most 1 s of jitter.
    assert 1.0 <= elapsed <= 2.5, elapsed
    assert elapsed < 60.0
