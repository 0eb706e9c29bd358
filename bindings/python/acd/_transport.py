"""Moving bytes: the request the core built, the response that came back, and
the transports that carry one to the other (httpx when installed, urllib
otherwise, or anything with the same ``send`` method).

A transport never interprets anything: error statuses are responses, and
transport failures are reported as ``"connect"``, ``"timeout"`` or
``"interrupted"`` so the core decides whether to retry.

The transports made here

* never follow a redirect: a 3xx is handed to the core as it came (which
  fails the call naming the status and ``Location``), so a credential is
  never sent to another address;
* bound the whole exchange by ``timeout``: the body is streamed and a
  deadline, counted from sending, is checked after every read (each read
  itself waits at most ``timeout``), so a body that trickles in cannot
  stretch a call forever;
* stop reading a body as soon as it passes ``Request.max_body_bytes`` (the
  core's bound) and read none of one whose ``Content-Length`` is above it;
  the core then fails the call with its typed error.
"""
from __future__ import annotations

import asyncio
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Awaitable, Iterable, List, Optional, Protocol, Tuple, Union

__all__ = [
    "Request", "Response", "TransportFailure", "Transport", "AsyncTransport", "UrllibTransport",
    "HttpxTransport", "AsyncHttpxTransport", "sync_transport", "async_transport",
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
    max_body_bytes: Optional[int] = field(default=None, repr=False)
    """The largest response body to read (the core's ``max_body_bytes``):
    stop reading once a body passes it (``None``: no bound)."""
    timeout: Optional[float] = field(default=None, repr=False)
    """Seconds this exchange may take (the call's remaining time), when
    shorter than the transport's own ``timeout``."""

    def exchange_timeout(self, default: float) -> float:
        """The bound of this exchange for a transport whose own bound is ``default``."""
        return default if self.timeout is None else min(default, self.timeout)

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


_CHUNK = 64 * 1024


def _declared_length(headers: Iterable[Tuple[str, str]]) -> Optional[int]:
    for name, value in headers:
        if name.lower() == "content-length":
            try:
                return int(value.strip())
            except ValueError:
                return None
    return None


class _BodyReader:
    """Collects a streamed body: at most ``limit + 1`` bytes (the core sees
    one byte more than its bound and refuses the body), and no read after
    ``deadline`` (``time.monotonic()``)."""

    def __init__(self, limit: Optional[int], deadline: float, timeout: float) -> None:
        self.limit = limit
        self.deadline = deadline
        self.timeout = timeout
        self.chunks: List[bytes] = []
        self.size = 0

    def skip(self, headers: Iterable[Tuple[str, str]]) -> bool:
        """Whether the announced length is above the bound (read nothing)."""
        declared = _declared_length(headers)
        return self.limit is not None and declared is not None and declared > self.limit

    def add(self, chunk: bytes) -> bool:
        """Keeps ``chunk``; whether to read on (``False`` once past the bound)."""
        self.chunks.append(chunk)
        self.size += len(chunk)
        return self.limit is None or self.size <= self.limit

    def check_deadline(self) -> None:
        """Raises the timeout failure once the exchange has run out of time."""
        if time.monotonic() > self.deadline:
            raise TransportFailure("timeout", f"the response did not arrive in full within {self.timeout:g} s")

    def body(self) -> bytes:
        """The bytes kept (at most one more than the bound)."""
        body = b"".join(self.chunks)
        return body if self.limit is None else body[: self.limit + 1]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Hands every 3xx back as it came (an ``HTTPError``) instead of following it."""

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> None:
        return None


def _read_urllib(reply: Any, reader: _BodyReader) -> bytes:
    read = getattr(reply, "read1", None) or reply.read
    while True:
        reader.check_deadline()
        chunk = read(_CHUNK)
        if not chunk or not reader.add(chunk):
            return reader.body()


class UrllibTransport:
    """The zero-dependency transport (the standard library's urllib). It
    follows no redirect; ``timeout`` (seconds) bounds the whole exchange."""

    owned = True
    """urllib keeps no connection: closing it is a no-op."""

    def __init__(self, timeout: float = 30.0) -> None:
        self.timeout = timeout
        self._opener = urllib.request.build_opener(_NoRedirect)

    def send(self, request: Request) -> Response:
        """Sends ``request`` with urllib; raises :class:`TransportFailure`
        when no full response arrived in time."""
        timeout = request.exchange_timeout(self.timeout)
        reader = _BodyReader(request.max_body_bytes, time.monotonic() + timeout, timeout)
        http = urllib.request.Request(request.url, data=request.body, method=request.method, headers=dict(request.headers))
        try:
            try:
                reply = self._opener.open(http, timeout=timeout)
            except urllib.error.HTTPError as error:
                reply = error
            with reply:
                status = reply.status if hasattr(reply, "status") and reply.status is not None else reply.code
                headers = list(reply.headers.items())
                body = b"" if reader.skip(headers) else _read_urllib(reply, reader)
                return Response(status, headers, body)
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
    """Sends through an ``httpx.Client`` (the caller's, or one made here),
    never following a redirect; ``timeout`` (seconds) bounds the whole
    exchange, whatever the client's own per-read timeouts."""

    def __init__(self, client: Any = None, timeout: float = 30.0) -> None:
        import httpx

        self._httpx = httpx
        self.timeout = timeout
        self.owned = client is None
        """Whether acd made the client (then acd closes it)."""
        self.client = httpx.Client(timeout=timeout) if client is None else client

    def send(self, request: Request) -> Response:
        """Sends ``request``; httpx failures become :class:`TransportFailure`."""
        timeout = request.exchange_timeout(self.timeout)
        reader = _BodyReader(request.max_body_bytes, time.monotonic() + timeout, timeout)
        try:
            with self.client.stream(request.method, request.url, headers=request.headers, content=request.body,
                                    follow_redirects=False) as reply:
                headers = list(reply.headers.items())
                if not reader.skip(headers):
                    reader.check_deadline()
                    for chunk in reply.iter_bytes():
                        reader.check_deadline()
                        if not reader.add(chunk):
                            break
                return Response(reply.status_code, headers, reader.body())
        except self._httpx.TransportError as error:
            raise _httpx_failure(self._httpx, error) from error

    def close(self) -> None:
        """Closes the httpx client if it was made here."""
        if self.owned:
            self.client.close()


class AsyncHttpxTransport:
    """Sends through an ``httpx.AsyncClient`` (the caller's, or one made
    here), never following a redirect; ``timeout`` (seconds) bounds the
    whole exchange."""

    def __init__(self, client: Any = None, timeout: float = 30.0) -> None:
        import httpx

        self._httpx = httpx
        self.timeout = timeout
        self.owned = client is None
        """Whether acd made the client (then acd closes it)."""
        self.client = httpx.AsyncClient(timeout=timeout) if client is None else client

    async def send(self, request: Request) -> Response:
        """Sends ``request``; httpx failures become :class:`TransportFailure`."""
        timeout = request.exchange_timeout(self.timeout)
        try:
            return await asyncio.wait_for(self._exchange(request, timeout), timeout)
        except asyncio.TimeoutError as error:
            raise TransportFailure("timeout", f"the response did not arrive in full within {timeout:g} s") \
                from error
        except self._httpx.TransportError as error:
            raise _httpx_failure(self._httpx, error) from error

    async def _exchange(self, request: Request, timeout: float) -> Response:
        reader = _BodyReader(request.max_body_bytes, time.monotonic() + timeout, timeout)
        async with self.client.stream(request.method, request.url, headers=request.headers, content=request.body,
                                      follow_redirects=False) as reply:
            headers = list(reply.headers.items())
            if not reader.skip(headers):
                chunks: AsyncIterator[bytes] = reply.aiter_bytes()
                async for chunk in chunks:
                    if not reader.add(chunk):
                        break
            return Response(reply.status_code, headers, reader.body())

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
        return HttpxTransport(http_client, timeout=timeout)
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
        return AsyncHttpxTransport(http_client, timeout=timeout)
    if callable(getattr(http_client, "send", None)):
        transport: AsyncTransport = http_client
        return transport
    raise TypeError("http_client must be an httpx.AsyncClient or have an async send(acd.Request) -> acd.Response method")
