"""The client's Python API beyond the vectors: typed errors with the core's
sentences, failures as values, secrets never shown, bad times, threads."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

import acd

NOW = 1_700_000_000_000
ADA = "acd_live_demo_ada"


def client() -> acd.Client:
    return acd.Client(acd.ClientConfig().with_credential("main", acd.CredentialKind.API_KEY, ADA, "ada"))


def test_a_bad_page_size_is_refused_before_any_io_with_the_gate_sentence() -> None:
    spec = acd.spec_list_table_records("orders")
    spec.roles = [acd.RoleParam(role=acd.ParamRole.LIMIT, value="0")]
    with pytest.raises(acd.AcdError.Request) as caught:
        client().build(spec)
    assert "limit must be an integer from 1 to 5000" in str(caught.value)
    built = client().try_build(spec)
    assert isinstance(built, acd.BuildResult.ERR)
    assert built.failure.kind == "invalid_params"
    assert built.failure.message == str(caught.value)


def test_api_errors_come_back_as_values_with_status_and_detail() -> None:
    the_client = client()
    request = the_client.build(acd.spec_list_table_records("orders"))
    reply = acd.HttpResponse(status=404, headers=[], body=b'{"detail":"No table \\"orders\\".","status":404}')
    result = the_client.interpret(request, reply)
    assert isinstance(result, acd.InterpretResult.ERR)
    assert (result.failure.kind, result.failure.status, result.failure.detail) == ("api", 404, 'No table "orders".')
    assert result.failure.message == 'the API answered 404: No table "orders".'


def test_no_repr_or_str_shows_a_secret() -> None:
    config = acd.ClientConfig().with_credential("main", acd.CredentialKind.API_KEY, ADA, "ada")
    request = acd.Client(config).build(acd.spec_list_table_records("orders"))
    for text in (repr(config), str(config), repr(request), str(request)):
        assert "demo_ada" not in text, text
    assert repr(config) == 'ClientConfig(http://127.0.0.1:8080, credentials=["main"])'
    assert str(request) == "GET /api/v1/tables/orders"
    assert [h.name for h in request.headers()] == ["Accept", "X-API-Key"]


def test_negative_times_are_typed_errors_and_absurd_ones_answer() -> None:
    the_client = client()
    request = the_client.build(acd.spec_list_table_records("orders"))
    with pytest.raises(acd.AcdError.InvalidArgument):
        the_client.plan(request, -5)
    assert the_client.plan(request, 2**63 - 1) == acd.Plan.SEND_NOW()
    with pytest.raises(acd.AcdError.InvalidArgument):
        acd.parse_rate_limit_headers([], -1)


def test_one_client_counts_sends_from_many_threads_exactly() -> None:
    the_client = client()
    request = the_client.build(acd.spec_list_table_records("orders"))

    def send(_: int) -> None:
        the_client.on_sent(request, NOW)

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(send, range(400)))
    assert request.attempts() == 400
    plan = the_client.plan(request, NOW)
    assert isinstance(plan, acd.Plan.WAIT_UNTIL)
    assert plan.reason == acd.WaitReason.QUOTA
