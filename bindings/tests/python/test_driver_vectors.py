"""Replays tests/vectors/client-driver.json through the driver protocol as
Python crosses it (``acd.ffi.Driver``: bytes in, one batch JSON out per
poll), and decodes every event of every batch strictly (no type outside the
protocol is seen, so none becomes ``unknown``)."""
from __future__ import annotations

import json
from typing import Any, Dict, List

import pytest

from acd import ffi
from acd._base import decode
from conftest import load, vector_files

CASES: List[Dict[str, Any]] = [case for path in vector_files("client-driver") for case in load(path)["cases"]]
SECRET_HEADERS = {"x-api-key", "authorization"}


def aliased(batch: Dict[str, Any], names: Dict[int, str]) -> Dict[str, Any]:
    """``batch`` with call ids written as their aliases and credentials redacted."""
    for transmit in batch["transmits"]:
        transmit["call"] = names.get(transmit["call"], transmit["call"])
        transmit["headers"] = [[n, "<redacted>" if n.lower() in SECRET_HEADERS else v] for n, v in transmit["headers"]]
    for event in batch["events"]:
        event["call"] = names.get(event["call"], event["call"])
    return batch


def test_the_driver_vectors_are_present() -> None:
    assert len(CASES) >= 5


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_driver_vector(case: Dict[str, Any]) -> None:
    driver = ffi.Driver(json.dumps(case["config"]).encode("utf-8"))
    calls: Dict[str, int] = {}
    names: Dict[int, str] = {}
    for step in case["steps"]:
        at = step["at"]
        if "start" in step:
            spec = json.dumps(step["start"]).encode("utf-8")
            if "error" in step:
                with pytest.raises(ffi.DriverError) as refused:
                    driver.start(spec)
                error = json.loads(refused.value.json)  # type: ignore[attr-defined]
                assert {k: error.get(k) for k in step["error"]} == step["error"]
            else:
                calls[step["as"]] = driver.start(spec)
                names[calls[step["as"]]] = step["as"]
        elif "respond" in step:
            answer = step["respond"]
            body = json.dumps(answer["body"], separators=(",", ":")).encode("utf-8")
            driver.respond(calls[answer["call"]], answer["status"], answer["headers"], body, at)
        elif "fail" in step:
            driver.fail(calls[step["fail"]["call"]], step["fail"]["kind"], at)
        else:
            batch = json.loads(driver.poll(at))
            assert all(decode(event)["type"] != "unknown" for event in batch["events"])
            assert aliased(batch, names) == step["poll"], step
