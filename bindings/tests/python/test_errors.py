"""The exception hierarchy: each core error (its JSON) becomes the class an
openai-python user expects, with status, detail and body."""
from __future__ import annotations

import json
from typing import Any, Dict, Type

import pytest

import acd
from acd import ffi
from acd._errors import from_core as from_core_event


def from_core(error: Dict[str, Any], message: str) -> acd.AcdError:
    """The exception for a core error, with its category as the core gives it."""
    core = json.loads(ffi.client_error_json(json.dumps(error)))
    return from_core_event(core, message)

API_404: Dict[str, Any] = {"type": "api", "status": 404, "detail": "No table \"x\" exists.", "extra": {}}


def _core(error: Dict[str, Any]) -> Dict[str, Any]:
    """The core's flat error object for ``error`` (its JSON form)."""
    import json

    from acd import ffi

    flat: Dict[str, Any] = json.loads(ffi.client_error_json(json.dumps(error)))
    return flat


@pytest.mark.parametrize(
    "error, expected",
    [
        ({"type": "api", "status": 400, "detail": "bad", "extra": {"errors": []}}, acd.BadRequestError),
        ({"type": "api", "status": 401, "detail": "who", "extra": {}}, acd.AuthenticationError),
        ({"type": "api", "status": 403, "detail": "no", "extra": {}}, acd.PermissionDeniedError),
        (API_404, acd.NotFoundError),
        ({"type": "api", "status": 405, "detail": "method", "extra": {}}, acd.BadRequestError),
        ({"type": "gave_up", "attempts": 5, "reason": {"type": "max_attempts", "attempts": 5},
          "last": {"type": "api", "status": 429, "detail": "slow down", "extra": {}}}, acd.RateLimitError),
        ({"type": "gave_up", "attempts": 5, "reason": {"type": "max_attempts", "attempts": 5},
          "last": {"type": "api", "status": 503, "detail": "busy", "extra": {}}}, acd.InternalServerError),
        ({"type": "transport", "failure": "connect"}, acd.APIConnectionError),
        ({"type": "transport", "failure": "interrupted"}, acd.APIInterruptedError),
        ({"type": "transport", "failure": "timeout"}, acd.APITimeoutError),
        ({"type": "protocol", "status": 200, "problem": "not JSON"}, acd.ProtocolError),
        ({"type": "invalid_params", "operation": "listTableRecords", "problems": []}, acd.RequestError),
        ({"type": "no_credential", "operation": "listTableRecords"}, acd.ConfigError),
        ({"type": "unknown_credential", "credential": "ops"}, acd.ConfigError),
        ({"type": "missing_path_param", "operation": "getRun", "param": "run_id"}, acd.RequestError),
        ({"type": "poll_deadline", "deadline_at": 1, "last_status": "running"}, acd.APITimeoutError),
        ({"type": "rate_limited_too_long", "status": 429, "limit": "per_user", "retry_at": 2,
          "wait_ms": 1, "max_wait_ms": 0}, acd.RateLimitError),
        ({"type": "redirect", "status": 301, "location": None}, acd.ProtocolError),
    ],
)
def test_each_core_error_becomes_the_expected_class(error: Dict[str, Any], expected: Type[acd.AcdError]) -> None:
    import json

    from acd import ffi

    raised = from_core(json.loads(ffi.client_error_json(json.dumps(error))), "the sentence")
    assert type(raised) is expected
    assert str(raised) == "the sentence"


def test_an_api_error_carries_status_detail_and_the_whole_body() -> None:
    error = from_core(_core({"type": "api", "status": 400, "detail": "2 invalid parameters",
                             "extra": {"errors": [{"parameter": "limit", "problem": "too big"}]}}),
                      "the API answered 400")
    assert isinstance(error, acd.BadRequestError)
    assert (error.status, error.detail) == (400, "2 invalid parameters")
    assert error.body == {"detail": "2 invalid parameters", "status": 400,
                          "errors": [{"parameter": "limit", "problem": "too big"}]}


def test_a_retried_error_reports_the_last_attempt_status_and_body() -> None:
    error = from_core(_core({"type": "gave_up", "attempts": 3, "reason": {"type": "max_attempts", "attempts": 3},
                             "last": {"type": "api", "status": 429, "detail": "Rate limit exceeded.", "extra": {}}}),
                      "gave up after 3 attempt(s)")
    assert isinstance(error, acd.RateLimitError)
    assert (error.status, error.detail, error.body) == (429, "Rate limit exceeded.",
                                                         {"detail": "Rate limit exceeded.", "status": 429})
    assert str(error) == "gave up after 3 attempt(s)"


def test_transport_errors_have_no_status_and_no_body() -> None:
    import json

    from acd import ffi

    core = json.loads(ffi.client_error_json(json.dumps({"type": "transport", "failure": "timeout"})))
    error = from_core(core, core["message"])
    assert isinstance(error, acd.APIConnectionError) and isinstance(error, acd.APITimeoutError)
    assert (error.status, error.detail, error.body) == (None, core["message"], None)


def test_the_hierarchy_matches_openai_python() -> None:
    for cls in (acd.BadRequestError, acd.AuthenticationError, acd.PermissionDeniedError, acd.NotFoundError,
                acd.RateLimitError, acd.InternalServerError, acd.APIConnectionError):
        assert issubclass(cls, acd.APIError)
    assert issubclass(acd.APITimeoutError, acd.APIConnectionError)
    assert issubclass(acd.ConfigError, acd.AcdError) and issubclass(acd.ConfigError, ValueError)
    assert not issubclass(acd.ConfigError, acd.APIError)
    # Never sent: a request error is no API error and carries no status.
    assert issubclass(acd.RequestError, acd.AcdError) and not issubclass(acd.RequestError, acd.APIError)


def test_a_refused_configuration_raises_config_error_with_the_core_sentence() -> None:
    with pytest.raises(acd.ConfigError, match="base_url"):
        acd.HttpClient(base_url="not a url")
    with pytest.raises(acd.ConfigError, match="max_attempts"):
        acd.HttpClient(retry=acd.RetryPolicy(max_attempts=0))


def test_parameters_are_refused_before_anything_is_sent() -> None:
    client = acd.Client({"api_key": "acd_live_demo_ada"})
    with pytest.raises(acd.RequestError) as raised:
        client.start({"type": "request", "operation": "listTableRecords", "path": {"id": "orders"},
                      "query": [["limit", "0"]]})
    assert raised.value.status is None
    assert "limit must be an integer from 1 to 5000" in raised.value.detail


def test_a_rate_limit_error_carries_the_servers_retry_time_in_seconds() -> None:
    # Refused before sending (the server's time is past the client's bound):
    # not sent, so no HTTP status, and the server's retry time in seconds.
    error = from_core({"type": "rate_limited_too_long", "limit": "per_user", "retry_at": 1_700_000_600_000,
                       "wait_ms": 600_000, "max_wait_ms": 120_000}, "too long")
    assert isinstance(error, acd.RateLimitError)
    assert (error.status, error.retry_at, error.category) == (None, 1_700_000_600.0, "rate_limit")
