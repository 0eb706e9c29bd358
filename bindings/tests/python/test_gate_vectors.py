"""Replays every ``tests/vectors/gate-*.json`` case through the Python
binding and compares status, headers (names, values, order) and body bytes
exactly with what the Rust replay produced when the vectors were blessed."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

from acd import ffi as acd
from conftest import load, vector_files

DEFAULT_IP = "203.0.113.7"

CASES: List[Tuple[Path, int]] = [
    (path, number)
    for path in vector_files("gate-")
    for number in range(len(load(path)["cases"]))
]


def build_gate(file: Dict[str, Any]) -> acd.Gate:
    config = file.get("config")
    gate_config = acd.GateConfig() if config is None else acd.GateConfig.from_json(json.dumps(config))
    credentials = acd.Credentials()
    for entry in file["credentials"]:
        kind = {"api_key": acd.CredentialKind.API_KEY, "oauth2": acd.CredentialKind.O_AUTH_TOKEN}
        credentials.add(
            entry["secret"],
            acd.CredentialRecord(
                id=entry["id"],
                kind=kind[entry["kind"]],
                user=entry["user"],
                scopes=entry.get("scopes", []),
                expires_at_ms=entry.get("expires_at"),
            ),
        )
    return acd.Gate(gate_config, credentials)


def to_request(request: Dict[str, Any]) -> acd.GateRequest:
    if "target_hex" in request:
        target = bytes.fromhex(request["target_hex"])
    else:
        target = request["target"].encode("utf-8")
    return acd.gate_request(
        target,
        method=request.get("method", "GET"),
        headers=[(name, value) for name, value in request.get("headers", [])],
        client_ip=request.get("client_ip", DEFAULT_IP),
    )


def to_answer(resource: Dict[str, Any]) -> acd.ResourceAnswer:
    kind = resource["kind"]
    if kind == "found":
        return acd.ResourceAnswer.FOUND(payload=resource["payload"].encode("utf-8"))
    if kind == "not_found":
        return acd.ResourceAnswer.NOT_FOUND()
    if kind == "forbidden":
        return acd.ResourceAnswer.FORBIDDEN()
    if kind == "invalid":
        return acd.ResourceAnswer.INVALID(
            problems=[
                acd.ParamProblem(parameter=p["parameter"], problem=p["problem"])
                for p in resource["problems"]
            ]
        )
    raise AssertionError(f"unknown resource kind {kind!r}")


def param_value(value: acd.ParamValue) -> Any:
    if isinstance(value, acd.ParamValue.INTEGER):
        return value.value
    if isinstance(value, acd.ParamValue.TEXT):
        return value.value
    raise AssertionError(f"unknown parameter value {value!r}")


def admitted_view(admitted: acd.Admitted) -> Dict[str, Any]:
    return {
        "operation_id": admitted.operation_id(),
        "path_params": [[p.name, p.value] for p in admitted.path_params()],
        "params": {p.name: param_value(p.value) for p in admitted.params()},
        "user": admitted.user(),
        "stable_egress": admitted.stable_egress(),
    }


def run_step(gate: acd.Gate, step: Dict[str, Any]) -> Tuple[Optional[Dict[str, Any]], acd.GateResponse]:
    decision = gate.decide(to_request(step["request"]), step["at"])
    if isinstance(decision, acd.Decision.RESPOND):
        return None, decision.response
    assert isinstance(decision, acd.Decision.RESOLVE)
    assert "resource" in step, "the gate admitted the request but the step gives no resource"
    return admitted_view(decision.admitted), decision.admitted.respond(to_answer(step["resource"]))


@pytest.mark.parametrize(
    "path,number", CASES, ids=[f"{p.stem}:{load(p)['cases'][n]['name']}" for p, n in CASES]
)
def test_gate_vector(path: Path, number: int) -> None:
    file = load(path)
    case = file["cases"][number]
    gate = build_gate(file)
    for index, step in enumerate(case["steps"], start=1):
        expect = step["expect"]
        admitted, response = run_step(gate, step)
        label = f"{case['name']} step {index}"
        assert admitted == expect.get("admitted"), label
        assert response.status == step["expect_status"] == expect["status"], label
        assert [[h.name, h.value] for h in response.headers] == expect["headers"], label
        assert response.body == expect["body"].encode("utf-8"), label


def test_every_gate_file_is_replayed() -> None:
    assert len(vector_files("gate-")) >= 8
    assert len(CASES) >= 60
