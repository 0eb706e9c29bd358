"""The exceptions of ``acd``, in the hierarchy openai-python users know.

::

    AcdError
    ├── ConfigError                 a client or gate configuration was refused
    └── APIError                    a call failed (status, detail, body)
        ├── BadRequestError         400, or parameters refused before sending
        ├── AuthenticationError     401
        ├── PermissionDeniedError   403
        ├── NotFoundError           404
        ├── RateLimitError          429 (after the retry policy gave up)
        ├── InternalServerError     5xx
        └── APIConnectionError      no HTTP response
            └── APITimeoutError     no response in time

Every sentence comes from the Rust core unchanged. The classes only sort the
core's error (one JSON object) by its status; no rule lives here.
"""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Type

__all__ = [
    "AcdError",
    "ConfigError",
    "APIError",
    "BadRequestError",
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "RateLimitError",
    "InternalServerError",
    "APIConnectionError",
    "APITimeoutError",
    "AcdDeprecationWarning",
]


class AcdError(Exception):
    """Base of every exception raised by ``acd``.

    ``status`` is the HTTP status when one was received (else ``None``),
    ``detail`` the sentence to act on, and ``body`` the Error body as a dict
    (``{"detail", "status", ...}``) when the API sent one (else ``None``).
    """

    status: Optional[int]
    detail: str
    body: Optional[Dict[str, Any]]

    def __init__(
        self,
        message: str,
        *,
        status: Optional[int] = None,
        detail: Optional[str] = None,
        body: Optional[Dict[str, Any]] = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.detail = message if detail is None else detail
        self.body = body

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status!r}, detail={self.detail!r})"


class ConfigError(AcdError, ValueError):
    """A configuration (client, gate, retry policy, simulation) was refused."""


class APIError(AcdError):
    """A call failed: the API answered an error, broke its contract, or the
    transport failed and the retry policy gave up."""


class BadRequestError(APIError):
    """400, or parameters the core refused before anything was sent (the
    same validators the server uses; ``status`` is then ``None``)."""


class AuthenticationError(APIError):
    """401: the credential is missing, unknown, expired or not accepted."""


class PermissionDeniedError(APIError):
    """403: the credential may not do this (e.g. an OAuth scope is missing)."""


class NotFoundError(APIError):
    """404: the table, connection, run or path does not exist."""


class RateLimitError(APIError):
    """429 that outlasted the retry policy (the client throttles itself first,
    so a well-configured client rarely sees it)."""


class InternalServerError(APIError):
    """A 5xx that outlasted the retry policy."""


class APIConnectionError(APIError):
    """No HTTP response: the connection failed or broke."""


class APITimeoutError(APIConnectionError):
    """No response arrived before the transport's timeout."""


class AcdDeprecationWarning(DeprecationWarning):
    """Category of the warnings ``acd`` issues for the API's ``Deprecation``
    and ``Sunset`` headers (filter it with :mod:`warnings`)."""


_BY_STATUS: Mapping[int, Type[APIError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    429: RateLimitError,
}

# Core error kinds raised before any I/O because the call itself is malformed.
_REQUEST_KINDS = frozenset(
    {"invalid_params", "missing_path_param", "bad_path_param", "stable_egress_unavailable"}
)
_CONFIG_KINDS = frozenset(
    {"invalid_config", "unknown_operation", "no_credential", "unknown_credential", "credential_not_accepted"}
)


def _class_for(error: Mapping[str, Any]) -> Type[AcdError]:
    kind = error.get("kind")
    if kind == "gave_up" and isinstance(error.get("last"), dict):
        return _class_for(error["last"])
    if kind == "transport":
        return APITimeoutError if error.get("failure") == "timeout" else APIConnectionError
    if kind in _CONFIG_KINDS:
        return ConfigError
    if kind in _REQUEST_KINDS:
        return BadRequestError
    status = error.get("status")
    if isinstance(status, int):
        if status >= 500:
            return InternalServerError
        return _BY_STATUS.get(status, APIError)
    return APIError


def _status_and_body(error: Mapping[str, Any]) -> "tuple[Optional[int], Optional[str], Optional[Dict[str, Any]]]":
    if error.get("kind") == "gave_up" and isinstance(error.get("last"), dict):
        return _status_and_body(error["last"])
    status = error.get("status") if isinstance(error.get("status"), int) else None
    if error.get("kind") == "api":
        detail = str(error.get("detail", ""))
        body: Dict[str, Any] = {"detail": detail, "status": status}
        extra = error.get("extra")
        if isinstance(extra, dict):
            body.update(extra)
        return status, detail, body
    return status, None, None


def from_core(error: Mapping[str, Any], message: str) -> AcdError:
    """The exception for one core ``ClientError`` (its serde JSON as a dict)
    and its sentence. ``detail`` is the API's own sentence when it sent an
    Error body, else the core's sentence."""
    status, detail, body = _status_and_body(error)
    return _class_for(error)(message, status=status, detail=detail, body=body)
