"""No way of printing or serialising a request, header list or error shows
a secret; two default clients draw different jitter (seeded from the OS)."""
from __future__ import annotations

import json
from typing import Any, List, Optional, Union

import pytest

import acd
from acd.testing import DEMO_API_KEY, GateTransport, VirtualClock

NOW = 1_700_000_000_000


def test_the_drivers_transmit_carries_the_key_and_the_python_request_hides_it() -> None:
    with acd.HttpClient(api_key=DEMO_API_KEY) as api:
        api.client.start({"type": "request", "operation": "listTableRecords", "path": {"id": "orders"}})
        transmit = api.client.poll(NOW)["transmits"][0]
        request = api._request(transmit, NOW)
    assert ["X-API-Key", DEMO_API_KEY] in transmit["headers"]
    assert ("X-API-Key", DEMO_API_KEY) in request.headers
    for text in (repr(request), str(request), repr(api), repr(api.client)):
        assert DEMO_API_KEY not in text, text


def test_the_python_request_repr_and_str_redact_credentials() -> None:
    request = acd.Request("GET", "http://x/api/v1/tables/t?limit=1",
                          [("X-API-Key", DEMO_API_KEY), ("Authorization", "Bearer acd_oat_secret")])
    for text in (repr(request), str(request)):
        assert DEMO_API_KEY not in text and "acd_oat_secret" not in text
    assert repr(request) == ("Request(GET http://x/api/v1/tables/t, headers=[('X-API-Key', '<redacted>'), "
                             "('Authorization', '<redacted>')])")


def test_clients_and_errors_never_show_the_key() -> None:
    client = acd.HttpClient(api_key=DEMO_API_KEY)
    assert DEMO_API_KEY not in repr(client) and DEMO_API_KEY not in repr(client.client)
    clock = VirtualClock()
    gate = GateTransport(clock, tables={"orders": []})
    with acd.HttpClient(api_key="acd_live_not_known", http_client=gate, clock=clock, sleep=clock.sleep) as api:
        with pytest.raises(acd.AuthenticationError) as raised:
            api.tables.read("orders")
        assert "acd_live_not_known" not in repr(api)
    error = raised.value
    for text in (str(error), repr(error), json.dumps(error.body)):
        assert "acd_live_not_known" not in text, text
    with pytest.raises(acd.ConfigError) as refused:
        acd.HttpClient(api_key=DEMO_API_KEY, base_url="nonsense")
    assert DEMO_API_KEY not in str(refused.value)


def jitter_of_a_default_client() -> List[float]:
    clock = VirtualClock()
    busy = acd.Response(503, [("Content-Type", "application/json")], b'{"detail":"busy","status":503}')
    calls: List[int] = []

    def fault(request: acd.Request) -> Optional[Union[acd.Response, acd.TransportFailure]]:
        calls.append(1)
        return busy if len(calls) <= 3 else None

    gate = GateTransport(clock, tables={"orders": [{"id": 1}]}, fault=fault)
    with acd.HttpClient(api_key=DEMO_API_KEY, http_client=gate, clock=clock, sleep=clock.sleep) as api:
        assert api.tables.read("orders") == [{"id": 1}]
    return clock.sleeps


def test_two_default_clients_draw_different_jitter() -> None:
    first, second = jitter_of_a_default_client(), jitter_of_a_default_client()
    assert len(first) == len(second) == 3
    assert first != second


def test_two_clients_with_the_same_seed_draw_the_same_jitter() -> None:
    def seeded() -> Any:
        clock = VirtualClock()
        busy = acd.Response(503, [], b'{"detail":"busy","status":503}')
        gate = GateTransport(clock, tables={"orders": []}, fault=lambda request: busy)
        with acd.HttpClient(api_key=DEMO_API_KEY, seed=42, retry=acd.RetryPolicy(max_attempts=3),
                            http_client=gate, clock=clock, sleep=clock.sleep) as api:
            with pytest.raises(acd.InternalServerError):
                api.tables.read("orders")
        return clock.sleeps

    assert seeded() == seeded()
