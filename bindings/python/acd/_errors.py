"""The exceptions of ``acd``, in the hierarchy openai-python users know.

::

    AcdError
    ├── ConfigError                 a configuration was refused, or the client is closed
    ├── RequestError                a call refused before anything was sent
    └── APIError                    a call failed (status, detail, body)
        ├── BadRequestError         400
        ├── AuthenticationError     401
        ├── PermissionDeniedError   403
        ├── NotFoundError           404
        ├── RateLimitError          429 (after the retry policy gave up)
        ├── InternalServerError     5xx
        └── APIConnectionError      no HTTP response
            └── APITimeoutError     no response in time

Every sentence comes from the Rust core unchanged, and so does each error's
category (``ClientError::category``); one table maps a category to its class
and no rule lives here.
"""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Type

__all__ = [
    "AcdError", "ConfigError", "RequestError", "APIError", "BadRequestError", "AuthenticationError",
    "PermissionDeniedError", "NotFoundError", "RateLimitError", "InternalServerError", "APIConnectionError",
    "APITimeoutError", "AcdDeprecationWarning",
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


class RequestError(AcdError, ValueError):
    """A call the core refused before anything was sent: a parameter the
    server's own validators reject, a missing path parameter, a header the
    client owns (``status`` is ``None``)."""


class APIError(AcdError):
    """A call failed: the API answered an error, broke its contract, or the
    transport failed and the retry policy gave up."""


class BadRequestError(APIError):
    """400: the API refused the request's parameters or body."""


class AuthenticationError(APIError):
    """401: the credential is missing, unknown, expired or not accepted."""


class PermissionDeniedError(APIError):
    """403: the credential may not do this (e.g. an OAuth scope is missing)."""


class NotFoundError(APIError):
    """404: the table, connection, run or path does not exist."""


class RateLimitError(APIError):
    """429 that outlasted the retry policy (the client throttles itself first,
    so a well-configured client rarely sees it). ``retry_at`` is when the
    server said to come back (Unix seconds), when it said."""

    retry_at: Optional[float] = None


class InternalServerError(APIError):
    """A 5xx that outlasted the retry policy."""


class APIConnectionError(APIError):
    """No HTTP response: the connection failed or broke."""


class APITimeoutError(APIConnectionError):
    """No response arrived before the transport's timeout."""


class AcdDeprecationWarning(FutureWarning):
    """Category of the warnings ``acd`` issues for the API's ``Deprecation``
    and ``Sunset`` headers. A :class:`FutureWarning` (not a
    :class:`DeprecationWarning`), so Python's default filters show it, on the
    line of your code that made the call; filter it with :mod:`warnings`."""


# The one table: the core's error category (ClientError::category) -> class.
_BY_CATEGORY: Mapping[str, Type[AcdError]] = {
    "config": ConfigError,
    "request": RequestError,
    "authentication": AuthenticationError,
    "permission": PermissionDeniedError,
    "not_found": NotFoundError,
    "rate_limit": RateLimitError,
    "server": InternalServerError,
    "connection": APIConnectionError,
    "timeout": APITimeoutError,
    "interrupted": APIConnectionError,
    "protocol": APIError,
    "cancelled": APIError,
}


def _class_for(category: Any, status: Optional[int]) -> Type[AcdError]:
    cls = _BY_CATEGORY.get(category, APIError) if isinstance(category, str) else APIError
    # A request error the API answered is a 400 (BadRequestError) or, for
    # another 4xx, a plain APIError; without a status it was never sent.
    if cls is RequestError and status is not None:
        return BadRequestError if status == 400 else APIError
    return cls


def _status_and_body(error: Mapping[str, Any]) -> "tuple[Optional[int], Optional[str], Optional[Dict[str, Any]]]":
    tag = error.get("type", error.get("kind"))
    if tag == "gave_up" and isinstance(error.get("last"), dict):
        return _status_and_body(error["last"])
    status = error.get("status") if isinstance(error.get("status"), int) else None
    if tag == "api":
        detail = str(error.get("detail", ""))
        body: Dict[str, Any] = {"detail": detail, "status": status}
        extra = error.get("extra")
        if isinstance(extra, dict):
            body.update(extra)
        return status, detail, body
    return status, None, None


def from_core(error: Mapping[str, Any], message: str) -> AcdError:
    """The exception for one core ``ClientError`` (its serde JSON as a dict,
    plus ``category``, the core's category of it) and its sentence. The class
    comes from the category alone. ``detail`` is the API's own sentence when
    it sent an Error body, else the core's sentence."""
    status, detail, body = _status_and_body(error)
    exception = _class_for(error.get("category"), status)(message, status=status, detail=detail, body=body)
    retry_at = error.get("retry_at")
    if isinstance(exception, RateLimitError) and isinstance(retry_at, int):
        exception.retry_at = retry_at / 1000
    return exception
