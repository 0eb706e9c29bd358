"""The SDK of docs/sdk.md in Python: each method, per-call options, the
environment fallbacks, seconds everywhere, closing, visible waits and
retries, deprecation notices under the default warning filters, and the
error table. In virtual time against the in-process gate, or over
``httpx.MockTransport`` where the exact bytes matter."""
from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import warnings
from typing import Any, Dict, List, Type

import httpx
import pytest

import acd
from acd.testing import DEMO_API_KEY, AsyncGateTransport, GateTransport, VirtualClock

BASE = "http://api.test"
ROWS: List[Dict[str, Any]] = [{"id": i} for i in range(1, 8)]


def gate_api(gate: GateTransport, clock: VirtualClock, **options: Any) -> acd.HttpClient:
    return acd.HttpClient(api_key=DEMO_API_KEY, seed=7, http_client=gate, clock=clock, sleep=clock.sleep,
                          **options)


def mock_api(handler: Any, clock: VirtualClock, **options: Any) -> acd.HttpClient:
    return acd.HttpClient(api_key=DEMO_API_KEY, base_url=BASE, seed=3, clock=clock, sleep=clock.sleep,
                          http_client=httpx.Client(transport=httpx.MockTransport(handler)), **options)


def test_tables_read_iter_and_pages() -> None:
    clock = VirtualClock()
    gate = GateTransport(clock, tables={"orders": ROWS})
    with gate_api(gate, clock) as api:
        assert api.tables.read("orders", page_size=2, offset=1) == [{"id": 2}, {"id": 3}]
        assert api.tables.read("orders", page_size=2, order_by="id", descending=True) == [{"id": 7}, {"id": 6}]
        assert [len(page) for page in api.tables.pages("orders", page_size=3)] == [3, 3, 1]
        assert list(api.tables.iter("orders", page_size=3)) == ROWS
    assert [r.url.split("/api/v1")[1] for r in gate.requests[:2]] == [
        "/tables/orders?limit=2&offset=1", "/tables/orders?limit=2&order_by=id&direction=desc"]


def test_connections_read_iter_and_pages() -> None:
    clock = VirtualClock()
    contacts = [{"id": "c1"}, {"id": "c2"}, {"id": "c3"}]
    gate = GateTransport(clock, connections={"crm": {"contacts": contacts}})
    with gate_api(gate, clock) as api:
        assert api.connections.read("crm", "contacts", page_size=2) == contacts[:2]
        assert [len(p) for p in api.connections.pages("crm", "contacts", page_size=2)] == [2, 1]
        assert list(api.connections.iter("crm", "contacts", page_size=2)) == contacts


def test_runs_create_get_and_wait() -> None:
    seen: List[httpx.Request] = []
    states = iter(["queued", "running", "running", "succeeded"])

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.method == "POST":
            return httpx.Response(201, json={"data": {"id": "run-1", "status": "queued"}})
        return httpx.Response(200, json={"data": {"id": "run-1", "status": next(states)}})

    clock = VirtualClock()
    with mock_api(handler, clock) as api:
        created: acd.Run = api.runs.create("agent-7", input={"question": "hi"})
        assert created == {"id": "run-1", "status": "queued"}
        assert api.runs.get("run-1") == {"id": "run-1", "status": "queued"}
        final = api.runs.wait("run-1", interval=2.0, timeout=60.0)
    assert final == {"id": "run-1", "status": "succeeded"}
    assert (seen[0].method, str(seen[0].url)) == ("POST", f"{BASE}/api/v1/agents/agent-7/runs")
    assert seen[0].content == b'{"input":{"question":"hi"}}'
    assert [str(r.url) for r in seen[1:]] == [f"{BASE}/api/v1/runs/run-1"] * 4
    assert clock.elapsed >= 4.0  # two waits of about 2 s between the three polls of the wait


def test_a_run_wait_past_its_timeout_raises_api_timeout_error() -> None:
    clock = VirtualClock()
    with mock_api(lambda r: httpx.Response(200, json={"data": {"id": "r", "status": "running"}}), clock) as api:
        with pytest.raises(acd.APITimeoutError):
            api.runs.wait("r", interval=1.0, timeout=5.0)
    assert clock.elapsed <= 6.5


def test_request_calls_any_catalogue_operation() -> None:
    clock = VirtualClock()
    gate = GateTransport(clock, tables={"orders": ROWS})
    with gate_api(gate, clock) as api:
        rows = api.request("listTableRecords", path={"id": "orders"}, query={"limit": 2, "offset": None})
    assert rows == ROWS[:2]
    assert gate.requests[0].url.endswith("/api/v1/tables/orders?limit=2")


def test_index_is_the_document() -> None:
    clock = VirtualClock()
    with gate_api(GateTransport(clock), clock) as api:
        index: acd.ApiIndex = api.index()
    assert index["version"] == "v1"
    assert index["rate_limits"]["requests"] == 100


def test_limits_show_the_throttle_view_in_seconds() -> None:
    clock = VirtualClock(1_700_000_001.0)
    gate = GateTransport(clock, tables={"orders": ROWS})
    with gate_api(gate, clock) as api:
        assert api.limits() == []
        api.tables.read("orders", page_size=1)
        limits = {limit["name"]: limit for limit in api.limits()}
    # The spec's "read table records": 5 requests per 60 seconds per user; one used.
    reads = limits["user_table_reads"]
    assert (reads["requests"], reads["window"], reads["remaining"]) == (5, 60.0, 4)
    assert reads["reset_at"] is not None and 1_700_000_001.0 < reads["reset_at"] <= 1_700_000_061.0


def test_extra_headers_reach_every_request_of_the_call() -> None:
    seen: List[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"data": ROWS[:1]})

    with mock_api(handler, VirtualClock()) as api:
        api.tables.read("orders", headers={"Prefer": "code=200"})
        api.tables.read("orders")
    assert seen[0].headers["Prefer"] == "code=200"
    assert "Prefer" not in seen[1].headers


def test_a_per_call_timeout_bounds_the_whole_call_waits_included() -> None:
    clock = VirtualClock()

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(503, json={"detail": "busy", "status": 503})

    with mock_api(handler, clock, retry=acd.RetryPolicy(max_attempts=50, deadline=600.0)) as api:
        with pytest.raises(acd.APITimeoutError):
            api.tables.read("orders", timeout=2.0)
    assert clock.elapsed <= 2.0 + 0.001


def test_max_attempts_per_call_replaces_the_policys() -> None:
    seen: List[httpx.Request] = []

    def busy(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(503, json={"detail": "busy", "status": 503})

    with mock_api(busy, VirtualClock(), retry=acd.RetryPolicy(max_attempts=5)) as api:
        with pytest.raises(acd.InternalServerError):
            api.tables.read("orders", max_attempts=2)
        assert len(seen) == 2
        with pytest.raises(acd.InternalServerError):
            api.tables.read("orders")
    assert len(seen) == 2 + 5


def test_environment_fallbacks(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: List[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"data": []})

    monkeypatch.setenv("ACD_API_KEY", "acd_live_from_env")
    monkeypatch.setenv("ACD_BASE_URL", "http://env.test/")
    http = httpx.Client(transport=httpx.MockTransport(handler))
    with acd.HttpClient(http_client=http) as api:
        api.tables.read("orders")
    with acd.HttpClient(api_key="acd_live_given", base_url="http://given.test", http_client=http) as api:
        api.tables.read("orders")
    assert str(seen[0].url) == "http://env.test/api/v1/tables/orders"
    assert seen[0].headers["X-API-Key"] == "acd_live_from_env"
    assert str(seen[1].url) == "http://given.test/api/v1/tables/orders"
    assert seen[1].headers["X-API-Key"] == "acd_live_given"


def test_closing_releases_its_own_http_client_and_keeps_the_callers() -> None:
    with acd.HttpClient(api_key=DEMO_API_KEY) as api:
        own: Any = api._transport
    assert own.client.is_closed
    http = httpx.Client()
    with acd.HttpClient(api_key=DEMO_API_KEY, http_client=http):
        pass
    assert not http.is_closed
    http.close()


def test_a_call_on_a_closed_client_raises_config_error_at_once() -> None:
    clock = VirtualClock()
    gate = GateTransport(clock, tables={"orders": ROWS})
    with gate_api(gate, clock) as api:
        pass
    with pytest.raises(acd.ConfigError, match="closed"):
        api.tables.read("orders")
    with pytest.raises(acd.ConfigError, match="closed"):
        api.limits()
    assert gate.requests == []


def test_the_async_client_closes_too() -> None:
    async def run() -> None:
        clock = VirtualClock()
        gate = GateTransport(clock, tables={"orders": ROWS})
        async with acd.AsyncHttpClient(api_key=DEMO_API_KEY, http_client=AsyncGateTransport(gate), clock=clock,
                                       sleep=clock.async_sleep) as api:
            assert [p async for p in api.tables.pages("orders", page_size=5)] == [ROWS[:5], ROWS[5:]]
            assert await api.tables.read("orders", page_size=1) == ROWS[:1]
        with pytest.raises(acd.ConfigError, match="closed"):
            await api.tables.read("orders")

    asyncio.run(run())


def test_cancelling_the_task_cancels_the_call() -> None:
    clock = VirtualClock()
    gate = GateTransport(clock, tables={"orders": ROWS},
                         limits={"user_table_reads": {"requests": 1, "window_ms": 60_000}})

    async def run() -> None:
        async def slow_sleep(seconds: float) -> None:
            await asyncio.sleep(3600)

        async with acd.AsyncHttpClient(api_key=DEMO_API_KEY, http_client=AsyncGateTransport(gate), clock=clock,
                                       sleep=slow_sleep) as api:
            task = asyncio.ensure_future(_all(api))
            await asyncio.sleep(0.05)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert api.client.is_idle()

    asyncio.run(run())
    assert len(gate.requests) == 1


async def _all(api: acd.AsyncHttpClient) -> List[Dict[str, Any]]:
    return [row async for row in api.tables.iter("orders", page_size=1)]


def test_waits_are_logged_on_the_acd_logger_and_handed_to_on_event(caplog: pytest.LogCaptureFixture) -> None:
    clock = VirtualClock(1_700_000_001.0)
    gate = GateTransport(clock, tables={"orders": ROWS},
                         limits={"user_table_reads": {"requests": 5, "window_ms": 3000}})
    events: List[acd.Event] = []
    with caplog.at_level(logging.INFO, logger="acd"):
        with gate_api(gate, clock, on_event=events.append) as api:
            assert list(api.tables.iter("orders", page_size=1)) == ROWS
    waits = [e for e in events if e["type"] == "waiting"]
    assert len(waits) == 1
    lines = [r for r in caplog.records if r.name == "acd"]
    assert [r.levelno for r in lines] == [logging.INFO]
    assert lines[0].getMessage() == waits[0]["message"]
    assert lines[0].getMessage().startswith("listTableRecords: waiting ")
    assert lines[0].getMessage().endswith("for limit user_table_reads (5 per window, as the server announced)")
    # 7 pages of one record, and no empty page after the last (issue 47).
    assert [e["type"] for e in events].count("page") == 7
    assert events[-1]["type"] == "done"


def test_a_429_retry_is_visible() -> None:
    clock = VirtualClock()
    answers = [httpx.Response(429, json={"detail": "slow", "status": 429}, headers={"Retry-After": "2"}),
               httpx.Response(200, json={"data": []})]
    events: List[acd.Event] = []
    with mock_api(lambda request: answers.pop(0), clock, on_event=events.append) as api:
        assert api.tables.read("orders") == []
    waits = [e for e in events if e["type"] in ("waiting", "retrying")]
    assert waits and all(e.get("message") for e in waits)
    assert clock.elapsed >= 2.0


def test_an_unknown_event_type_is_ignored_with_a_debug_line(caplog: pytest.LogCaptureFixture) -> None:
    from acd._base import decode

    with caplog.at_level(logging.DEBUG, logger="acd"):
        event = decode({"call": 3, "type": "from_the_future", "x": 1})
    assert event == {"type": "unknown", "call": 3, "event": {"call": 3, "type": "from_the_future", "x": 1}}
    assert caplog.records[0].levelno == logging.DEBUG


DEPRECATED = {"Deprecation": "@1735689600", "Sunset": "Wed, 31 Dec 2025 23:59:59 GMT"}


def test_a_deprecation_notice_is_a_warning_on_the_callers_line_with_dates() -> None:
    clock = VirtualClock()
    with mock_api(lambda r: httpx.Response(200, json={"data": []}, headers=DEPRECATED), clock) as api:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            api.tables.read("orders"); line = sys._getframe().f_lineno  # noqa: E702
    notices = [w for w in caught if issubclass(w.category, acd.AcdDeprecationWarning)]
    assert len(notices) == 1
    assert notices[0].filename == __file__ and notices[0].lineno == line
    text = str(notices[0].message)
    assert text == "operation listTableRecords is deprecated since 2025-01-01 and stops working on 2025-12-31 (sunset)"
    assert not issubclass(acd.AcdDeprecationWarning, DeprecationWarning)


def test_the_deprecation_warning_shows_under_the_default_filters() -> None:
    script = (
        "import httpx, acd\n"
        "h = httpx.Client(transport=httpx.MockTransport(lambda r: httpx.Response(200, json={'data': []},"
        " headers={'Deprecation': '@1735689600'})))\n"
        "with acd.HttpClient(api_key='k', base_url='http://x.test', http_client=h) as api:\n"
        "    api.tables.read('orders')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "<string>:4: AcdDeprecationWarning:" in done.stderr
    assert "listTableRecords" in done.stderr


@pytest.mark.parametrize("status, cls", [
    (400, acd.BadRequestError), (401, acd.AuthenticationError), (403, acd.PermissionDeniedError),
    (404, acd.NotFoundError), (429, acd.RateLimitError), (500, acd.InternalServerError),
])
def test_each_status_raises_its_class(status: int, cls: Type[acd.APIError]) -> None:
    reply = {"detail": f"status {status}", "status": status}
    headers = {"Retry-After": "1"} if status == 429 else {}
    with mock_api(lambda r: httpx.Response(status, json=reply, headers=headers), VirtualClock(),
                  retry=acd.RetryPolicy(max_attempts=1)) as api:
        with pytest.raises(cls) as raised:
            api.tables.read("orders")
    assert type(raised.value) is cls and raised.value.status == status


def test_what_was_never_sent_raises_request_or_config_error() -> None:
    with acd.HttpClient(api_key=DEMO_API_KEY) as api:
        with pytest.raises(acd.RequestError, match="limit must be an integer from 1 to 5000") as raised:
            api.tables.read("orders", page_size=0)
        assert raised.value.status is None
        with pytest.raises(acd.ConfigError, match="noSuchOperation"):
            api.request("noSuchOperation")


def test_connection_and_timeout_failures_raise_their_classes() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("slow", request=request)

    for handler, cls in ((refuse, acd.APIConnectionError), (slow, acd.APITimeoutError)):
        with mock_api(handler, VirtualClock(), retry=acd.RetryPolicy(max_attempts=1)) as api:
            with pytest.raises(cls) as raised:
                api.tables.read("orders")
        assert type(raised.value) is cls
