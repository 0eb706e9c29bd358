"""The easy path against a real acd-sandbox over HTTP (``ACD_SANDBOX_URL``,
started by scripts/test-python with a table ``orders`` of 23 rows owned by
ada and 5 table reads per 3 s per user)."""
from __future__ import annotations

import asyncio
import os
from typing import Any, Dict, List

import pytest

import acd

SANDBOX = os.environ.get("ACD_SANDBOX_URL")
pytestmark = pytest.mark.skipif(SANDBOX is None, reason="needs a running acd-sandbox (ACD_SANDBOX_URL)")
ROWS = [{"id": i, "name": f"row-{i:02}"} for i in range(1, 24)]


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


def test_23_rows_past_a_5_per_3s_window_give_no_429_and_every_row_once() -> None:
    transport = Counting()
    with acd.HttpClient("acd_live_demo_ada", base_url=SANDBOX, http_client=transport) as api:
        rows = list(api.tables.iter("orders", page_size=2))
    assert rows == ROWS
    assert transport.statuses == [200] * 12


def test_the_async_client_reads_the_same_rows_over_httpx() -> None:
    async def read() -> List[Dict[str, Any]]:
        async with acd.AsyncHttpClient("acd_live_demo_ada", base_url=SANDBOX) as api:
            return [row async for row in api.tables.iter("orders", page_size=5)]

    assert asyncio.run(read()) == ROWS


def test_a_wrong_key_raises_authentication_error_from_the_server() -> None:
    with acd.HttpClient("acd_live_nobody", base_url=SANDBOX) as api, pytest.raises(acd.AuthenticationError) as raised:
        api.tables.read("orders")
    assert raised.value.status == 401
    assert raised.value.body is not None and raised.value.body["status"] == 401
