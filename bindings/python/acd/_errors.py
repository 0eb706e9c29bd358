"""The exceptions of ``acd``, in the hierarchy openai-python users know.

::

    AcdError
    ├── ConfigError                 config: a configuration was refused, or the client is closed
    ├── RequestError                invalid_request: a call refused before anything was sent
    ├── WebhookVerificationError    a webhook delivery failed verification (code: the core's)
    └── APIError                    a call failed after it started (status, detail, body)
        ├── BadRequestError         bad_request: 400 and any other 4xx (409, 418, 422...)
        ├── AuthenticationError     authentication: 401
        ├── PermissionDeniedError   permission: 403
        ├── NotFoundError           not_found: 404
        ├── RateLimitError          rate_limit: 429 (after the retry policy gave up)
        ├── InternalServerError     server: 5xx
        ├── ProtocolError           protocol: the response broke the API's contract
        ├── CallCancelledError      cancelled: the call was cancelled
        └── APIConnectionError      connection: no HTTP response
            ├── APITimeoutError     timeout: no response in time
            └── APIInterruptedError interrupted: the connection broke after sending

Every sentence comes from the Rust core unchanged, and so does each error's
category and class name: the table below is built from the core's one list
(``ErrorCategory::classes``, ``acd.ffi.error_categories_json``), and no rule
lives here.
"""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Type

__all__ = [
    "AcdError", "ConfigError", "RequestError", "APIError", "BadRequestError", "AuthenticationError",
    "PermissionDeniedError", "NotFoundError", "RateLimitError", "InternalServerError", "APIConnectionError",
    "APITimeoutError", "APIInterruptedError", "ProtocolError", "CallCancelledError", "AcdDeprecationWarning",
    "WebhookVerificationError",
]


class AcdError(Exception):
    """Base of every exception raised by ``acd``.

    ``status`` is the HTTP status when one was received (else ``None``),
    ``detail`` the sentence to act on, ``body`` the Error body as a dict
    (``{"detail", "status", ...}``) when the API sent one (else ``None``),
    ``category`` the core's category and ``sent`` whether the failing
    request reached the wire.
    """

    status: Optional[int]
    detail: str
    body: Optional[Dict[str, Any]]
    category: Optional[str] = None
    sent: bool = False

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


class WebhookVerificationError(AcdError, ValueError):
    """A webhook delivery failed verification (:mod:`acd.webhooks`).

    ``code`` is the core's reason: ``missing_header``, ``bad_timestamp``,
    ``timestamp_out_of_tolerance``, ``no_matching_signature``,
    ``bad_secret`` or ``bad_payload``; the message is the core's sentence.
    Answer such a delivery with a 400."""

    code: str

    def __init__(self, message: str, *, code: str) -> None:
        super().__init__(message)
        self.code = code

    def __repr__(self) -> str:
        return f"WebhookVerificationError(code={self.code!r}, detail={self.detail!r})"


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
    server said to come back (Unix seconds), when it said; ``retry_at_ms``
    the same in Unix ms."""

    retry_at: Optional[float] = None
    retry_at_ms: Optional[int] = None


class InternalServerError(APIError):
    """A 5xx that outlasted the retry policy."""


class APIConnectionError(APIError):
    """No HTTP response: the connection failed or broke."""


class APITimeoutError(APIConnectionError):
    """No response arrived in time (the transport's, the call's ``timeout``,
    or a run wait's)."""


class APIInterruptedError(APIConnectionError):
    """The connection broke after the request was sent (the server may have
    processed it)."""


class ProtocolError(APIError):
    """The response broke the API's contract (a redirect, a malformed or
    over-large body)."""


class CallCancelledError(APIError):
    """The call was cancelled."""


class AcdDeprecationWarning(FutureWarning):
    """Category of the warnings ``acd`` issues for the API's ``Deprecation``
    and ``Sunset`` headers. A :class:`FutureWarning` (not a
    :class:`DeprecationWarning`), so Python's default filters show it, on the
    line of your code that made the call; filter it with :mod:`warnings`."""


def _table() -> Mapping[str, Type[AcdError]]:
    """The core's category -> class table (its one list, by class name);
    ``request``, the category's former name, stays readable."""
    import json

    from ._ffi import acd_ffi as _ffi

    names = globals()
    table: Dict[str, Type[AcdError]] = {row["category"]: names[row["python"]]
                                        for row in json.loads(_ffi.error_categories_json())}
    table.setdefault("request", RequestError)
    return table


_BY_CATEGORY: Mapping[str, Type[AcdError]] = _table()


def class_for(category: Any) -> Type[AcdError]:
    """The class of an error of ``category`` (``APIError`` for one this
    version does not know)."""
    return _BY_CATEGORY.get(category, APIError) if isinstance(category, str) else APIError


def from_core(error: Mapping[str, Any], message: str) -> AcdError:
    """The exception for one core error object (the driver protocol's flat
    error: ``category``, ``message``, ``status``, ``detail``, ``body``,
    ``retry_at_ms``, ``sent``) and its sentence. The class comes from the
    category alone; every member is the core's."""
    status = error.get("status") if isinstance(error.get("status"), int) else None
    body = error.get("body") if isinstance(error.get("body"), dict) else None
    detail = error.get("detail") if isinstance(error.get("detail"), str) else None
    exception = class_for(error.get("category"))(message, status=status, detail=detail, body=body)
    exception.category = error.get("category") if isinstance(error.get("category"), str) else None
    exception.sent = error.get("sent") is True
    retry_at = error.get("retry_at_ms")
    if isinstance(exception, RateLimitError) and isinstance(retry_at, int):
        exception.retry_at_ms = retry_at
        exception.retry_at = retry_at / 1000
    return exception
