"""Bad input across the boundary: invalid UTF-8, huge values, negative and
absurd times, wrong Python types. Each gives a typed error or a correct
response, never a crash of the interpreter."""
from __future__ import annotations

import pytest

from acd import ffi as acd

NOW = 1_700_000_000_000
IP = "203.0.113.7"
ADA = "acd_live_demo_ada"


def status(gate: acd.Gate, request: acd.GateRequest, now: int = NOW) -> int:
    decision = gate.decide(request, now)
    if isinstance(decision, acd.Decision.RESOLVE):
        return decision.admitted.respond(acd.ResourceAnswer.FOUND(payload=b"[]")).status
    assert isinstance(decision, acd.Decision.RESPOND)
    return decision.response.status


def test_invalid_utf8_in_the_target_and_headers_is_a_400_or_401() -> None:
    gate = acd.Gate.demo(acd.GateConfig())
    query = acd.gate_request(b"/api/v1/tables/t?order_by=\xff\xfe", client_ip=IP, headers=[("X-API-Key", ADA)])
    assert status(gate, query) == 400
    key = acd.gate_request("/api/v1/tables/t", client_ip=IP, headers=[("X-API-Key", b"acd_live_\xff")])
    assert status(gate, key) == 401


def test_strings_python_cannot_encode_raise_before_crossing() -> None:
    with pytest.raises(UnicodeEncodeError):
        acd.gate_request("/api/v1", client_ip="\udcff")


def test_huge_values_are_answered() -> None:
    gate = acd.Gate.demo(acd.GateConfig())
    huge_path = acd.gate_request("/api/v1/tables/" + "t" * (16 << 20), client_ip=IP, headers=[("X-API-Key", ADA)])
    assert status(gate, huge_path) == 200
    huge_query = acd.gate_request("/api/v1/tables/t?order_by=" + "x" * (8 << 20), client_ip=IP,
                                  headers=[("X-API-Key", ADA)])
    assert status(gate, huge_query) == 400
    huge_key = acd.gate_request("/api/v1/tables/t", client_ip=IP, headers=[("X-API-Key", "k" * (16 << 20))])
    assert status(gate, huge_key) == 401
    many_headers = acd.gate_request("/api/v1", client_ip=IP, headers=[(f"X-{i}", "v") for i in range(100_000)])
    assert status(gate, many_headers) == 200


def test_negative_times_are_a_typed_error() -> None:
    gate = acd.Gate.demo(acd.GateConfig())
    with pytest.raises(acd.AcdError.InvalidArgument) as caught:
        gate.decide(acd.gate_request("/api/v1", client_ip=IP), -1)
    assert str(caught.value) == "now_ms must be Unix milliseconds from 0 to 9223372036854775807; got -1"


def test_absurd_and_backward_times_give_responses() -> None:
    gate = acd.Gate.demo(acd.GateConfig())
    index = acd.gate_request("/api/v1", client_ip=IP)
    assert status(gate, index, 2**63 - 1) == 200
    assert status(gate, index, 0) == 200
    assert status(gate, index, NOW) == 200
    assert status(gate, index, NOW - 3_600_000) == 200


def test_times_beyond_64_bits_and_wrong_types_are_python_errors() -> None:
    gate = acd.Gate.demo(acd.GateConfig())
    index = acd.gate_request("/api/v1", client_ip=IP)
    with pytest.raises(ValueError):
        gate.decide(index, 2**63)
    with pytest.raises(TypeError):
        gate.decide(index, "now")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        gate.decide("/api/v1", NOW)  # type: ignore[arg-type]
