"""The exceptions of ``acd``, in the hierarchy openai-python users know.

::

    AcdError
    ├── ConfigError                 a client or gate configuration was refused
    └── APIError                    a call failed (status, detail, body)
        ├── BadRequestError         400, or a request refused before sending
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


# The one table: the core's error category (ClientError::category) -> class.
_BY_CATEGORY: Mapping[str, Type[AcdError]] = {
    "config": ConfigError,
    "request": BadRequestError,
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
    # As in openai-python, BadRequestError is 400 (or refused before sending);
    # another 4xx the API answered stays a plain APIError.
    if cls is BadRequestError and status not in (None, 400):
        return APIError
    return cls


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
    """The exception for one core ``ClientError`` (its serde JSON as a dict,
    plus ``category``, the core's category of it) and its sentence. The class
    comes from the category alone. ``detail`` is the API's own sentence when
    it sent an Error body, else the core's sentence."""
    status, detail, body = _status_and_body(error)
    return _class_for(error.get("category"), status)(message, status=status, detail=detail, body=body)
