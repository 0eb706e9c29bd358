"""The gate's Python API beyond the vectors: construction errors, the
two-step credential form, what an admitted request exposes, and that no
``repr``/``str`` ever shows a secret."""
from __future__ import annotations

import json

import pytest

from acd import ffi as acd

NOW = 1_700_000_000_000
ADA = "acd_live_demo_ada"
IP = "203.0.113.7"


def table_read(key: str = ADA, query: str = "?limit=2") -> acd.GateRequest:
    return acd.gate_request(f"/api/v1/tables/orders{query}", client_ip=IP, headers=[("X-API-Key", key)])


def test_a_bad_configuration_raises_the_core_sentence() -> None:
    with pytest.raises(acd.AcdError.Config) as caught:
        acd.Gate.demo(acd.GateConfig.from_json('{"version": "a/b"}'))
    assert str(caught.value) == "gate configuration `version`: must be one path segment such as v1"
    assert isinstance(caught.value, acd.AcdError)


def test_malformed_configuration_json_is_a_config_error() -> None:
    with pytest.raises(acd.AcdError.Config) as caught:
        acd.GateConfig.from_json('{"versoin": "v2"}')
    assert str(caught.value).startswith("gate configuration JSON: unknown field `versoin`")


def test_configuration_round_trips_through_json() -> None:
    config = acd.GateConfig.from_json('{"version": "v2", "base_url": "https://api.example.com"}')
    assert (config.version(), config.base_url()) == ("v2", "https://api.example.com")
    again = json.loads(config.to_json())
    assert again["version"] == "v2"
    assert acd.GateConfig.from_json(config.to_json()).to_json() == config.to_json()


def test_admitted_exposes_validated_parameters_with_defaults() -> None:
    gate = acd.Gate.demo(acd.GateConfig())
    decision = gate.decide(table_read(query="?limit=2&order_by=id&after=7"), NOW)
    assert isinstance(decision, acd.Decision.RESOLVE)
    admitted = decision.admitted
    assert admitted.operation_id() == "listTableRecords"
    assert admitted.path_param("id") == "orders"
    assert (admitted.offset(), admitted.limit(), admitted.order_by(), admitted.after()) == (0, 2, "id", "7")
    assert admitted.descending() is False
    assert admitted.param("limit") == acd.ParamValue.INTEGER(value=2)
    assert admitted.user() == "ada"
    principal = admitted.principal()
    assert isinstance(principal, acd.Principal.CREDENTIAL)
    assert principal.record.id == "key-ada"
    assert repr(admitted) == 'Admitted(listTableRecords, id="orders")'


def test_answering_twice_gives_the_same_response() -> None:
    gate = acd.Gate.demo(acd.GateConfig())
    decision = gate.decide(table_read(), NOW)
    assert isinstance(decision, acd.Decision.RESOLVE)
    first = decision.admitted.respond(acd.ResourceAnswer.NOT_FOUND())
    assert first == decision.admitted.respond(acd.ResourceAnswer.NOT_FOUND())
    assert first.status == 404
    assert first.body == b'{"detail":"No table \\"orders\\" exists that this credential can see.","status":404}'


def test_two_step_form_matches_the_in_memory_store() -> None:
    in_memory = acd.Gate.demo(acd.GateConfig())
    two_step = acd.Gate(acd.GateConfig(), acd.Credentials())
    request = table_read()
    secret = two_step.credential_to_look_up(request)
    assert secret == ADA
    record = acd.CredentialRecord(id="key-ada", kind=acd.CredentialKind.API_KEY, user="ada",
                                  scopes=[], expires_at_ms=None)
    expected = in_memory.decide(request, NOW)
    actual = two_step.decide_answered(request, record, NOW)
    assert isinstance(expected, acd.Decision.RESOLVE) and isinstance(actual, acd.Decision.RESOLVE)
    answer = acd.ResourceAnswer.FOUND(payload=b"[]")
    assert actual.admitted.respond(answer) == expected.admitted.respond(answer)
    unknown = two_step.decide_answered(table_read("acd_live_nobody"), None, NOW)
    assert isinstance(unknown, acd.Decision.RESPOND)
    assert unknown.response.status == 401
    public = acd.gate_request("/api/v1", client_ip=IP, headers=[("X-API-Key", ADA)])
    assert two_step.credential_to_look_up(public) is None


def test_credentials_table_counts_and_refuses_negative_expiry() -> None:
    credentials = acd.Credentials()
    assert credentials.is_empty()
    credentials.add("acd_live_x", acd.CredentialRecord(id="key-x", kind=acd.CredentialKind.API_KEY,
                                                       user="x", scopes=[], expires_at_ms=5))
    assert credentials.len() == 1
    with pytest.raises(acd.AcdError.InvalidArgument) as caught:
        credentials.add("acd_live_y", acd.CredentialRecord(id="key-y", kind=acd.CredentialKind.API_KEY,
                                                           user="y", scopes=[], expires_at_ms=-5))
    assert str(caught.value) == (
        "expires_at_ms must be Unix milliseconds from 0 to 9223372036854775807; got -5"
    )
    assert acd.Credentials.demo().len() == 6


def test_no_repr_or_str_shows_a_secret() -> None:
    request = acd.gate_request("/api/v1/tables/orders?after=secret_cursor", client_ip=IP,
                               headers=[("X-API-Key", ADA), ("Authorization", f"Bearer {ADA}")])
    shown = [repr(request), str(request), repr(acd.header("X-API-Key", ADA)),
             str(acd.header("X-API-Key", ADA)), repr(acd.Credentials.demo()), str(acd.Credentials.demo())]
    for text in shown:
        assert ADA not in text and "demo_ada" not in text, text
    assert str(request) == "GET /api/v1/tables/orders"
    assert repr(request) == "GateRequest(GET /api/v1/tables/orders)"
    assert repr(acd.header("X-API-Key", ADA)) == "Header(name='X-API-Key', value=<17 bytes>)"
    assert request.header_names() == ["X-API-Key", "Authorization"]


def test_records_have_a_useful_repr() -> None:
    header = acd.ResponseHeader(name="RateLimit-Limit", value="5")
    assert repr(header) == "ResponseHeader(name=RateLimit-Limit, value=5)"


def test_the_index_is_served_as_json() -> None:
    gate = acd.Gate.demo(acd.GateConfig())
    index = json.loads(gate.index_json())
    assert index["version"] == "v1"
    assert index["rate_limits"]["requests"] == 100
