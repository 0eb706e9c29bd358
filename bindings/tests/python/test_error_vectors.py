"""Replays tests/vectors/client-errors.json through the public facade:
core turns each error's JSON into the driver protocol's flat error object
(``acd.ffi.client_error_json``), and the class the package raises for it
must be the one the vector lists for Python (core's table,
``ErrorCategory::classes``). No test here names a category it then asserts:
the category comes from core."""
from __future__ import annotations

import json
from typing import Any, Dict, List

import pytest

import acd
from acd import ffi
from acd._errors import from_core
from conftest import load, vector_files

CASES: List[Dict[str, Any]] = [case for path in vector_files("client-errors") for case in load(path)["cases"]]


def test_the_error_vectors_are_present() -> None:
    assert len(CASES) >= 10


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_error_vector(case: Dict[str, Any]) -> None:
    expect = case["expect"]
    error = json.loads(ffi.client_error_json(json.dumps(case["input"])))
    for member in ("category", "message", "status", "sent", "retry_at_ms"):
        if member in expect:
            assert error[member] == expect[member], member
    raised = from_core(error, error["message"])
    if "classes" in expect:
        assert type(raised).__name__ == expect["classes"]["python"]
        assert type(raised) is getattr(acd, expect["classes"]["python"])
    assert str(raised) == error["message"]
    assert raised.status == expect.get("status", raised.status)
    if isinstance(raised, acd.RateLimitError) and "retry_at_ms" in expect:
        assert raised.retry_at == expect["retry_at_ms"] / 1000


def test_every_core_category_maps_to_the_class_core_names() -> None:
    table = json.loads(ffi.error_categories_json())
    assert len(table) >= 13
    for row in table:
        raised = from_core({"category": row["category"], "message": "m"}, "m")
        assert type(raised).__name__ == row["python"], row
        assert isinstance(raised, acd.AcdError)


def test_a_418_is_a_bad_request_and_an_api_error() -> None:
    error = json.loads(ffi.client_error_json(json.dumps(
        {"type": "api", "status": 418, "detail": "teapot", "extra": {"hint": 1}})))
    raised = from_core(error, error["message"])
    assert isinstance(raised, acd.BadRequestError) and isinstance(raised, acd.APIError)
    assert raised.body == {"detail": "teapot", "status": 418, "hint": 1}
    assert raised.detail == "teapot" and raised.sent is True
