"""The wheel's pytest plugin (``acd.pytest_plugin``, entry point ``pytest11``
``acd``): the ``acd_sandbox`` fixture starts the shipped acd-sandbox
(``ACD_SANDBOX_BIN`` or ``PATH``) on a free port with the manual clock and the
admin routes, and stops it after the test."""
from __future__ import annotations

import importlib.metadata
import os
import urllib.error
import urllib.request

import pytest

import acd
from acd.pytest_plugin import Sandbox, sandbox_binary, start_sandbox

BIN = os.environ.get("ACD_SANDBOX_BIN")
needs_sandbox = pytest.mark.skipif(BIN is None, reason="needs the acd-sandbox binary (ACD_SANDBOX_BIN)")
ORDERS = [{"id": 1, "total": 5}, {"id": 2, "total": 7}, {"id": 3, "total": 9}]


def test_the_wheel_registers_the_plugin_as_a_pytest11_entry_point() -> None:
    points = [point for point in importlib.metadata.entry_points(group="pytest11") if point.name == "acd"]
    assert [point.value for point in points] == ["acd.pytest_plugin"]


def test_without_a_binary_the_sentence_says_where_it_is_looked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ACD_SANDBOX_BIN", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(RuntimeError, match="put it on PATH or name it in ACD_SANDBOX_BIN"):
        sandbox_binary()


@needs_sandbox
@pytest.mark.acd_sandbox(config={"tables": [{"id": "orders", "owner": "ada", "records": ORDERS}]})
def test_the_fixture_serves_the_marked_data_on_a_manual_clock(acd_sandbox: Sandbox) -> None:
    assert acd_sandbox.url.startswith("http://127.0.0.1:")
    assert not acd_sandbox.url.endswith(":0")
    with acd.HttpClient(acd_sandbox.api_key, base_url=acd_sandbox.url) as api:
        assert list(api.tables.iter("orders")) == ORDERS
    now = acd_sandbox.clock()
    assert acd_sandbox.clock() == now, "the manual clock stands still"
    assert acd_sandbox.advance(60) == now + 60
    paths = [seen["path"] for seen in acd_sandbox.requests()]
    assert paths and all(path == "/api/v1/tables/orders" for path in paths)
    assert acd_sandbox.reset() == {"cleared": ["rate_limits", "runs"]}


@needs_sandbox
def test_start_sandbox_stops_the_sandbox_at_the_end_of_the_block() -> None:
    with start_sandbox() as sandbox:
        with urllib.request.urlopen(sandbox.url + "/_sandbox/clock", timeout=10) as answer:
            assert answer.status == 200
        url = sandbox.url
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url + "/_sandbox/clock", timeout=10)
