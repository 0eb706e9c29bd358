"""The parity steps of docs/sdk.md in Python, against a REAL ``acd-sandbox``
(``ACD_SANDBOX_BIN``, started here with ``--faults`` and its own data):
each row of the SDK table, each row of the error table, a 429 that is
waited out (the ``acd`` log line and the event checked), a deprecation
notice, and a run created and waited for. The same steps run in Kotlin and
JavaScript."""
from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import warnings
from typing import Any, Dict, Iterator, List, Type

import pytest

import acd

BIN = os.environ.get("ACD_SANDBOX_BIN")
pytestmark = [pytest.mark.skipif(BIN is None, reason="needs the acd-sandbox binary (ACD_SANDBOX_BIN)"),
              pytest.mark.filterwarnings("ignore::acd.AcdDeprecationWarning")]

ADA = "acd_live_demo_ada"
ORDERS = [{"id": i, "total": i * 10} for i in range(1, 8)]
CONTACTS = [{"id": "c1"}, {"id": "c2"}, {"id": "c3"}]
DEPRECATED_AT, SUNSET_AT = 1_735_689_600, 1_767_225_600  # 1 January 2025, 1 January 2026 (UTC)
CONFIG = {
    "tables": [{"id": "orders", "owner": "ada", "records": ORDERS},
               {"id": "tight", "owner": "ada", "records": ORDERS}],
    "connections": [{"id": "crm", "owner": "ada", "entities": {"contacts": CONTACTS}}],
    # Three table reads per 2 s per user: the throttle waits, and a client
    # that does not know another's reads draws a 429 it must wait out.
    "extra_limits": {"user_table_reads": {"requests": 3, "window_ms": 2000}},
    "runs": {"lifecycle": [{"status": "queued", "duration_ms": 200}, {"status": "running", "duration_ms": 300},
                           {"status": "succeeded"}]},
    "version_deprecation": {"deprecated_at": DEPRECATED_AT, "sunset_at": SUNSET_AT},
}


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    assert BIN is not None
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as config:
        json.dump(CONFIG, config)
    process = subprocess.Popen([BIN, "--listen", "127.0.0.1:0", "--faults", "--log", "off", "--config", config.name],
                               stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("acd-sandbox listening on "), line
        yield line.split()[-1]
    finally:
        process.terminate()
        process.wait()
        os.unlink(config.name)


def client(url: str, **options: Any) -> acd.HttpClient:
    return acd.HttpClient(ADA, base_url=url, **options)


def test_the_index(url: str) -> None:
    with client(url) as api:
        index: acd.ApiIndex = api.index()
    assert index["version"] == "v1"
    assert index["rate_limits"] == {**index["rate_limits"], "requests": 100, "window_seconds": 60}


def test_tables_read_iter_and_pages(url: str) -> None:
    with client(url) as api:
        assert api.tables.read("orders", page_size=2, offset=1) == ORDERS[1:3]
        assert api.tables.read("orders", page_size=1, order_by="id", descending=True) == ORDERS[-1:]
        assert list(api.tables.iter("orders", page_size=3)) == ORDERS
        assert [len(page) for page in api.tables.pages("orders", page_size=3)] == [3, 3, 1]


def test_connections_read_iter_and_pages(url: str) -> None:
    with client(url) as api:
        assert api.connections.read("crm", "contacts", page_size=2) == CONTACTS[:2]
        assert list(api.connections.iter("crm", "contacts", page_size=2)) == CONTACTS
        assert [len(p) for p in api.connections.pages("crm", "contacts", page_size=2)] == [2, 1]


def test_a_run_is_created_got_and_waited_for(url: str) -> None:
    with client(url) as api:
        run: acd.Run = api.runs.create("agent-1", input={"question": "parity"})
        assert run["status"] == "queued"
        assert api.runs.get(run["id"])["id"] == run["id"]
        final = api.runs.wait(run["id"], interval=0.2, timeout=30.0)
    assert final["status"] == "succeeded"


def test_any_catalogue_operation(url: str) -> None:
    with client(url) as api:
        assert api.request("listTableRecords", path={"id": "orders"}, query={"limit": 2}) == ORDERS[:2]


def test_the_throttles_view_of_each_limit(url: str) -> None:
    with client(url) as api:
        api.connections.read("crm", "contacts", page_size=1)
        limits = api.limits()
    assert limits and all(limit["window"] > 0 and limit["requests"] > 0 for limit in limits)
    assert all(limit["remaining"] < limit["requests"] for limit in limits)


def test_per_call_options(url: str) -> None:
    with client(url, retry=acd.RetryPolicy(max_attempts=1)) as api:
        # headers: the sandbox honours Prefer; timeout: the whole call.
        with pytest.raises(acd.NotFoundError):
            api.tables.read("orders", headers={"Prefer": "code=404"})
        with pytest.raises(acd.APITimeoutError):
            api.tables.read("orders", headers={"Prefer": "latency=3000"}, timeout=0.5)
        assert api.tables.read("orders", page_size=1, max_attempts=2) == ORDERS[:1]


def test_a_429_is_waited_out_and_shown(url: str, caplog: pytest.LogCaptureFixture) -> None:
    # Plain requests use up the per-user window (until the server answers
    # 429 with most of the window ahead), so the next client, which knows
    # nothing of them, draws a 429.
    for _ in range(20):
        request = urllib.request.Request(url + "/api/v1/tables/tight?limit=1", headers={"X-API-Key": ADA})
        try:
            urllib.request.urlopen(request, timeout=10).close()
        except urllib.error.HTTPError as refused:
            assert refused.code == 429
            retry_after = int(refused.headers["Retry-After"])
            if retry_after >= 2:
                break
            time.sleep(retry_after)
    events: List[acd.Event] = []
    with caplog.at_level(logging.INFO, logger="acd"), client(url, on_event=events.append) as api:
        assert api.tables.read("tight", page_size=1) == ORDERS[:1]
    shown = [e for e in events if e["type"] in ("waiting", "retrying")]
    assert shown, [e["type"] for e in events]
    assert shown[0]["message"].startswith("listTableRecords: attempt 1 of ")
    lines = [r.getMessage() for r in caplog.records if r.name == "acd" and r.levelno == logging.INFO]
    # Each notice is said once at the core's level: the retry at INFO, its own
    # wait (the same wait) at DEBUG, below the logger's INFO threshold.
    assert [e["message"] for e in events
            if e["type"] in ("waiting", "retrying", "deprecation") and e.get("level") != "debug"] == lines
    assert any(e["type"] == "waiting" and e.get("level") == "debug" for e in events), events


def test_a_deprecation_notice_is_shown_with_its_dates(url: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        with client(url) as api:
            api.index()
    notices = [w for w in caught if w.category is acd.AcdDeprecationWarning]
    assert len(notices) == 1 and notices[0].filename == __file__
    text = str(notices[0].message)
    assert text == "operation getApiIndex is deprecated since 2025-01-01 and stops working on 2026-01-01 (sunset)"


def test_the_environment_fallbacks(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACD_API_KEY", ADA)
    monkeypatch.setenv("ACD_BASE_URL", url + "/")
    with acd.HttpClient() as api:
        assert api.connections.read("crm", "contacts", page_size=1) == CONTACTS[:1]


def test_closing(url: str) -> None:
    with client(url) as api:
        api.index()
    with pytest.raises(acd.ConfigError):
        api.index()


def test_async_parity_and_cancellation(url: str) -> None:
    async def run() -> None:
        async with acd.AsyncHttpClient(ADA, base_url=url) as api:
            assert (await api.index())["version"] == "v1"
            assert [r async for r in api.connections.iter("crm", "contacts", page_size=2)] == CONTACTS
            created = await api.runs.create("agent-2")
            assert (await api.runs.wait(created["id"], interval=0.2))["status"] == "succeeded"
            task = asyncio.ensure_future(api.tables.read("orders", headers={"Prefer": "latency=5000"}))
            await asyncio.sleep(0.3)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert api.client.is_idle()

    asyncio.run(run())


def closed_port() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


@pytest.mark.parametrize("prefer, cls, status", [
    ("code=400", acd.BadRequestError, 400), ("code=403", acd.PermissionDeniedError, 403),
    ("code=404", acd.NotFoundError, 404), ("code=429;retry-after=1", acd.RateLimitError, 429),
    ("code=500", acd.InternalServerError, 500),
])
def test_each_error_row(url: str, prefer: str, cls: Type[acd.APIError], status: int) -> None:
    with client(url, retry=acd.RetryPolicy(max_attempts=1)) as api:
        with pytest.raises(cls) as raised:
            api.connections.read("crm", "contacts", headers={"Prefer": prefer})
    assert type(raised.value) is cls and raised.value.status == status


def test_the_error_rows_without_a_prefer(url: str) -> None:
    raised: Dict[str, Any] = {}
    with acd.HttpClient("acd_live_nobody", base_url=url) as api:
        with pytest.raises(acd.AuthenticationError) as auth:
            api.tables.read("orders")
        raised["auth"] = auth.value.status
    with client(url) as api, pytest.raises(acd.RequestError) as request:
        api.tables.read("orders", page_size=0)
    assert request.value.status is None
    with client(url) as api, pytest.raises(acd.ConfigError):
        api.request("noSuchOperation")
    with client(closed_port(), retry=acd.RetryPolicy(max_attempts=1)) as api:
        with pytest.raises(acd.APIConnectionError) as connection:
            api.index()
    assert type(connection.value) is acd.APIConnectionError
    assert raised == {"auth": 401}
