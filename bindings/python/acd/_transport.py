"""Moving bytes: the request the core built, the response that came back, and
the transports that carry one to the other (httpx when installed, urllib
otherwise, or anything with the same ``send`` method).

A transport never interprets anything: error statuses are responses, and
transport failures are reported as ``"connect"``, ``"timeout"`` or
``"interrupted"`` so the core decides whether to retry.
"""
from __future__ import annotations

import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Awaitable, List, Optional, Protocol, Tuple, Union

__all__ = [
    "Request",
    "Response",
    "TransportFailure",
    "Transport",
    "AsyncTransport",
    "UrllibTransport",
    "HttpxTransport",
    "AsyncHttpxTransport",
    "sync_transport",
    "async_transport",
]

Headers = List[Tuple[str, str]]

# Header names whose values are credentials (shown redacted by repr).
_SECRET_HEADERS = frozenset({"x-api-key", "authorization"})


def redacted(headers: Headers) -> Headers:
    """``headers`` with every credential value replaced by ``<redacted>``."""
    return [(name, "<redacted>" if name.lower() in _SECRET_HEADERS else value) for name, value in headers]


@dataclass(frozen=True)
class Request:
    """One HTTP request the core built. ``repr`` never shows a credential;
    ``headers`` holds the exact bytes to send."""

    method: str
    url: str
    headers: Headers = field(repr=False)
    body: Optional[bytes] = field(default=None, repr=False)

    def __repr__(self) -> str:
        return f"Request({self.method} {self.url.split('?', 1)[0]}, headers={redacted(self.headers)!r})"

    __str__ = __repr__


@dataclass(frozen=True)
class Response:
    """One HTTP response: status, headers in order, and the body bytes."""

    status: int
    headers: Headers
    body: bytes


class TransportFailure(Exception):
    """Raised by a transport when no response arrived. ``kind`` is
    ``"connect"`` (never sent), ``"timeout"`` or ``"interrupted"``."""

    def __init__(self, kind: str, message: str = "") -> None:
        if kind not in ("connect", "timeout", "interrupted"):
            raise ValueError(f"transport failure kind must be connect, timeout or interrupted; got {kind!r}")
        super().__init__(message or kind)
        self.kind = kind


class Transport(Protocol):
    """What ``HttpClient(http_client=...)`` accepts besides an ``httpx.Client``."""

    def send(self, request: Request) -> Response:
        """Sends ``request``; returns the response, or raises :class:`TransportFailure`."""
        ...


class AsyncTransport(Protocol):
    """What ``AsyncHttpClient(http_client=...)`` accepts besides an ``httpx.AsyncClient``."""

    def send(self, request: Request) -> Awaitable[Response]:
        """Sends ``request``; returns the response, or raises :class:`TransportFailure`."""
        ...


class UrllibTransport:
    """The zero-dependency transport (the standard library's urllib)."""

    def __init__(self, timeout: float = 30.0) -> None:
        self.timeout = timeout

    def send(self, request: Request) -> Response:
        """Sends ``request`` with ``urllib.request.urlopen``."""
        http = urllib.request.Request(request.url, data=request.body, method=request.method, headers=dict(request.headers))
        try:
            with urllib.request.urlopen(http, timeout=self.timeout) as reply:
                return Response(reply.status, list(reply.getheaders()), reply.read())
        except urllib.error.HTTPError as error:
            return Response(error.code, list(error.headers.items()), error.read())
        except urllib.error.URLError as error:
            reason = error.reason
            if isinstance(reason, TimeoutError):
                raise TransportFailure("timeout", str(error)) from error
            raise TransportFailure("connect", str(error)) from error
        except TimeoutError as error:
            raise TransportFailure("timeout", str(error)) from error
        except OSError as error:
            raise TransportFailure("interrupted", str(error)) from error

    def close(self) -> None:
        """Nothing to release."""


def _httpx_failure(httpx: Any, error: Exception) -> TransportFailure:
    if isinstance(error, (httpx.ConnectError, httpx.ConnectTimeout)):
        return TransportFailure("connect", str(error))
    if isinstance(error, httpx.TimeoutException):
        return TransportFailure("timeout", str(error))
    return TransportFailure("interrupted", str(error))


class HttpxTransport:
    """Sends through an ``httpx.Client`` (the caller's, or one made here)."""

    def __init__(self, client: Any = None, timeout: float = 30.0) -> None:
        import httpx

        self._httpx = httpx
        self.owned = client is None
        """Whether acd made the client (then acd closes it)."""
        self.client = httpx.Client(timeout=timeout) if client is None else client

    def send(self, request: Request) -> Response:
        """Sends ``request``; httpx failures become :class:`TransportFailure`."""
        try:
            reply = self.client.request(request.method, request.url, headers=request.headers, content=request.body)
        except self._httpx.TransportError as error:
            raise _httpx_failure(self._httpx, error) from error
        return Response(reply.status_code, list(reply.headers.items()), reply.content)

    def close(self) -> None:
        """Closes the httpx client if it was made here."""
        if self.owned:
            self.client.close()


class AsyncHttpxTransport:
    """Sends through an ``httpx.AsyncClient`` (the caller's, or one made here)."""

    def __init__(self, client: Any = None, timeout: float = 30.0) -> None:
        import httpx

        self._httpx = httpx
        self.owned = client is None
        """Whether acd made the client (then acd closes it)."""
        self.client = httpx.AsyncClient(timeout=timeout) if client is None else client

    async def send(self, request: Request) -> Response:
        """Sends ``request``; httpx failures become :class:`TransportFailure`."""
        try:
            reply = await self.client.request(request.method, request.url, headers=request.headers, content=request.body)
        except self._httpx.TransportError as error:
            raise _httpx_failure(self._httpx, error) from error
        return Response(reply.status_code, list(reply.headers.items()), reply.content)

    async def aclose(self) -> None:
        """Closes the httpx client if it was made here."""
        if self.owned:
            await self.client.aclose()


def _is_httpx(client: Any, name: str) -> bool:
    return any(cls.__module__.startswith("httpx") and cls.__name__ == name for cls in type(client).__mro__)


def sync_transport(http_client: Any, timeout: float) -> Union[HttpxTransport, UrllibTransport, Transport]:
    """The transport for ``http_client``: an ``httpx.Client``, an object with
    ``send(Request) -> Response``, or ``None`` (httpx if installed, else urllib)."""
    if http_client is None:
        try:
            return HttpxTransport(timeout=timeout)
        except ImportError:
            return UrllibTransport(timeout=timeout)
    if _is_httpx(http_client, "Client"):
        return HttpxTransport(http_client)
    if callable(getattr(http_client, "send", None)):
        transport: Transport = http_client
        return transport
    raise TypeError("http_client must be an httpx.Client or have a send(acd.Request) -> acd.Response method")


def async_transport(http_client: Any, timeout: float) -> Union[AsyncHttpxTransport, AsyncTransport]:
    """The transport for ``http_client``: an ``httpx.AsyncClient``, an object
    with ``async send(Request) -> Response``, or ``None`` (a new httpx client)."""
    if http_client is None:
        return AsyncHttpxTransport(timeout=timeout)
    if _is_httpx(http_client, "AsyncClient"):
        return AsyncHttpxTransport(http_client)
    if callable(getattr(http_client, "send", None)):
        transport: AsyncTransport = http_client
        return transport
    raise TypeError("http_client must be an httpx.AsyncClient or have an async send(acd.Request) -> acd.Response method")
