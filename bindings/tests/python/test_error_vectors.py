"""Replays tests/vectors/client-errors.json: each core error (its JSON)
gets the category and sentence the vector lists, from the core
(``acd.ffi.client_error_json``, the driver protocol's error object), and the
class the one table of ``acd._errors`` maps that category to."""
from __future__ import annotations

import json
from typing import Any, Dict, List

import pytest

import acd
from acd import ffi
from acd._errors import from_core
from conftest import load, vector_files

CASES: List[Dict[str, Any]] = [case for path in vector_files("client-errors") for case in load(path)["cases"]]
# docs/sdk.md's error table, by category (what was never sent has no status).
CLASSES = {
    "config": acd.ConfigError, "request": acd.RequestError, "authentication": acd.AuthenticationError,
    "permission": acd.PermissionDeniedError, "not_found": acd.NotFoundError, "rate_limit": acd.RateLimitError,
    "server": acd.InternalServerError, "connection": acd.APIConnectionError, "timeout": acd.APITimeoutError,
    "interrupted": acd.APIConnectionError, "protocol": acd.APIError, "cancelled": acd.APIError,
}


def test_the_error_vectors_are_present() -> None:
    assert len(CASES) >= 10


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_error_vector(case: Dict[str, Any]) -> None:
    error = json.loads(ffi.client_error_json(json.dumps(case["input"])))
    assert {"category": error["category"], "message": error["message"]} == case["expect"]
    raised = from_core(error, error["message"])
    expected = CLASSES[error["category"]]
    if expected is acd.RequestError and error.get("status") is not None:
        expected = acd.BadRequestError if error["status"] == 400 else acd.APIError
    assert type(raised) is expected
    assert str(raised) == case["expect"]["message"]
