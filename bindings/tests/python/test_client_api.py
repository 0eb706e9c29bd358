"""The client's Python API beyond the vectors: typed errors with the core's
sentences, failures as values, secrets never shown, bad times, threads."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from acd import ffi as acd

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
    the_client.start(acd.spec_list_table_records("orders"))
    with pytest.raises(acd.AcdError.InvalidArgument):
        the_client.poll_transmit(-5)
    sent = the_client.poll_transmit(2**63 - 1)
    assert sent is not None and sent.request.method() == "GET"
    with pytest.raises(acd.AcdError.InvalidArgument):
        acd.parse_rate_limit_headers([], -1)


def test_one_client_takes_calls_from_many_threads_and_throttles_them_exactly() -> None:
    the_client = client()

    def start(_: int) -> int:
        return the_client.start(acd.spec_get_api_index())

    with ThreadPoolExecutor(max_workers=8) as pool:
        ids = list(pool.map(start, range(400)))
    assert len(set(ids)) == 400
    sent = 0
    while the_client.poll_transmit(NOW) is not None:
        sent += 1
    # The index is public: the per-client-IP limit, 100 per 60 s, applies.
    assert sent == 100
    timeout = the_client.poll_timeout()
    assert timeout is not None and timeout >= NOW + 60_000  # not before the window ends
