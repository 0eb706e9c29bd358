"""acd: the Agent and Connected-Data API from Python.

Every rule (request building, rate-limit throttling, retries, paging, the
server's gate) runs in the Rust core; this package is a thin Pythonic layer.

The easy path::

    import acd

    with acd.HttpClient(api_key="acd_live_...", base_url="https://api.example.com") as api:
        index = api.index()
        rows = api.tables.read("orders", page_size=50)
        for row in api.tables.iter("orders", page_size=500):
            ...

Durations are seconds (floats) everywhere. Waits and retries are logged on
``logging.getLogger("acd")`` (INFO) and handed to ``on_event=``.

* :class:`HttpClient` / :class:`AsyncHttpClient`: calls over HTTP (httpx, or
  urllib for the synchronous client when httpx is absent).
* :class:`Client`: the core's driver underneath (``docs/driver-protocol.md``),
  for your own transport.
* :mod:`acd.webhooks`: verify run lifecycle webhooks (``verify``, ``unwrap``,
  ``sign``), raising :class:`WebhookVerificationError` with the core's ``code``.
* :mod:`acd.testing`: a virtual clock and an in-process gate, for tests.
* Exceptions: :class:`APIError` and its subclasses, :class:`ConfigError`.
* The server role: :class:`Gate`, :class:`GateConfig`, :func:`gate_request`.
* :mod:`acd.ffi`: every generated binding, for advanced use.
"""
# First: a platform without the native library fails with one clear error.
from . import _native  # noqa: F401
from ._async import AsyncHttpClient
from ._base import CallOptions
from ._client import Client
from ._config import RetryPolicy
from ._errors import (
    AcdDeprecationWarning,
    AcdError,
    APIConnectionError,
    APIError,
    APIInterruptedError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    CallCancelledError,
    ConfigError,
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    ProtocolError,
    RateLimitError,
    RequestError,
    WebhookVerificationError,
)
from ._ffi.acd_ffi import Decision, Gate, GateConfig, GateResponse, ResourceAnswer
from ._helpers import gate_request, header
from ._sync import HttpClient
from ._transport import Request, Response, TransportFailure
from ._types import ApiIndex, Event, Limit, Record, Run
from . import testing
from . import webhooks

__version__ = "0.1.0"

__all__ = [
    "AcdDeprecationWarning", "AcdError", "ApiIndex", "APIConnectionError", "APIError", "APIInterruptedError", "APITimeoutError",
    "AsyncHttpClient", "AuthenticationError", "BadRequestError", "CallCancelledError", "CallOptions", "Client", "ConfigError",
    "Decision", "Event", "Gate", "GateConfig", "GateResponse", "HttpClient", "InternalServerError", "Limit",
    "NotFoundError", "PermissionDeniedError", "ProtocolError", "RateLimitError", "Record", "Request", "RequestError",
    "ResourceAnswer", "Response", "RetryPolicy", "Run", "TransportFailure", "gate_request", "header",
    "testing", "webhooks", "WebhookVerificationError",
]
