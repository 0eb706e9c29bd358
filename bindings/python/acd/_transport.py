"""Moving bytes: the request the core built, the response that came back, and
the transports that carry one to the other (httpx when installed, urllib
otherwise, or anything with the same ``send`` method).

A transport never interprets anything: error statuses are responses, and
transport failures are reported by the facts the HTTP client gave (a kind of
``docs/driver-protocol.md``: ``"refused"``, ``"dns"``, ``"connect_timeout"``
never sent; ``"timeout"``, ``"reset"``, ``"interrupted"``, ``"protocol"``
after sending; ``"connect"`` for any other connection failure) so the core
decides the error, its sentence and whether to retry.

The transports made here

* never follow a redirect: a 3xx is handed to the core as it came (which
  fails the call naming the status and ``Location``), so a credential is
  never sent to another address;
* bound the whole exchange by ``timeout``: the body is streamed and a
  deadline, counted from sending, is checked after every read (each read
  itself waits at most ``timeout``), so a body that trickles in cannot
  stretch a call forever;
* bound the wait for the status line and headers by the same deadline (a
  server sending one header byte a second fails at the timeout): the sync
  transports wait for them on a worker thread;
* stop reading a body as soon as its decoded (decompressed) size passes
  ``Request.max_body_bytes`` (the core's bound) and read none of one whose
  ``Content-Length`` is above it; the core then fails the call with its
  typed error; a body shorter than its ``Content-Length`` is
  ``"interrupted"``, never complete. The httpx transports ask for
  ``gzip, deflate`` and inflate the raw bytes themselves, at most 64 KiB at
  a time, so a small compressed body that inflates past the bound costs no
  more than the bound (httpx's own decoders inflate a whole network read at
  once); a body in any other encoding is handed over as it came, bounded as
  bytes. urllib asks for no encoding (``identity``) and decodes none;
* skip ``1xx`` informational responses (the HTTP clients do) and never take a
  response nobody asked for, left on a kept-alive connection, as the answer
  to the next request (that connection is dropped).
"""
from __future__ import annotations

import asyncio
import errno
import http.client
import socket
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Awaitable, Callable, Iterable, Iterator, List, Optional, Protocol, Tuple, TypeVar, Union
from ._body import _CHUNK, _BodyReader, _Decoder, _declared_length, _with_accept_encoding
from ._failure import KINDS, TransportFailure
from ._workers import run_soon

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


_T = TypeVar("_T")

_RESET = frozenset({errno.ECONNRESET, errno.EPIPE, errno.ECONNABORTED})


def _causes(error: BaseException) -> List[BaseException]:
    """``error`` and the exceptions it was raised from, outermost first."""
    seen: List[BaseException] = []
    current: Optional[BaseException] = error
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
        reason = getattr(seen[-1], "reason", None)
        if isinstance(reason, BaseException) and reason not in seen:
            current = reason
    return seen


def _connect_kind(error: BaseException) -> str:
    """The kind of a failure while connecting (nothing was sent)."""
    for cause in _causes(error):
        if isinstance(cause, ConnectionRefusedError):
            return "refused"
        if isinstance(cause, socket.gaierror):
            return "dns"
        if isinstance(cause, (TimeoutError, socket.timeout)):
            return "connect_timeout"
    return "connect"


def _sent_kind(error: BaseException) -> str:
    """The kind of a failure after the request went out."""
    for cause in _causes(error):
        if isinstance(cause, (TimeoutError, socket.timeout)):
            return "timeout"
        if isinstance(cause, http.client.RemoteDisconnected):
            return "interrupted"
        if isinstance(cause, http.client.IncompleteRead):
            return "interrupted"
        if isinstance(cause, OSError) and cause.errno in _RESET:
            return "reset"
        if isinstance(cause, http.client.HTTPException):
            return "protocol"  # BadStatusLine, LineTooLong, too many headers
    return "interrupted"


def _within(opening: Callable[[], _T], timeout: float, discard: Callable[[_T], None]) -> _T:
    """``opening()`` (send the request, wait for the status line and headers)
    on a reused worker thread (:mod:`acd._workers`), waiting at most ``timeout`` seconds for it: the
    socket's own timeout bounds each read, not a trickle of them. Past the
    deadline the exchange is abandoned (``discard`` closes its response if
    one comes later) and the timeout failure is raised."""
    done = threading.Event()
    lock = threading.Lock()
    box: List[Any] = []
    abandoned = [False]

    def run() -> None:
        try:
            outcome: Tuple[bool, Any] = (True, opening())
        except BaseException as error:  # handed to the waiting thread
            outcome = (False, error)
        with lock:
            if abandoned[0]:
                if outcome[0]:
                    discard(outcome[1])
                return
            box.append(outcome)
        done.set()

    run_soon(run)
    if not done.wait(timeout):
        with lock:
            if not box:
                abandoned[0] = True
                raise TransportFailure("timeout", f"the response headers did not arrive within {timeout:g} s")
    ok, value = box[0]
    if not ok:
        raise value
    result: _T = value
    return result


def _check_complete(headers: Iterable[Tuple[str, str]], reader: "_BodyReader", method: str, status: int) -> None:
    """A body shorter than its ``Content-Length`` is a broken exchange."""
    if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
        return
    if any(name.lower() == "content-encoding" for name, _ in headers):
        return  # the declared length is of the encoded body
    declared = _declared_length(headers)
    if declared is not None and reader.size < declared and not reader.over():
        raise TransportFailure(
            "interrupted", f"the connection closed after {reader.size} of the {declared} body bytes announced")


class _FinalResponse(http.client.HTTPResponse):
    """Skips every ``1xx`` informational response (http.client skips only
    ``100``) so the final response is the one read, as in httpx."""

    def _read_status(self) -> Tuple[str, int, str]:
        while True:
            version, status, reason = super()._read_status()  # type: ignore[misc]
            if not 102 <= status < 200:
                return version, status, reason
            http.client.parse_headers(self.fp)


class _HTTPConnection(http.client.HTTPConnection):
    response_class = _FinalResponse


class _HTTPSConnection(http.client.HTTPSConnection):
    response_class = _FinalResponse


class _HTTPHandler(urllib.request.HTTPHandler):
    def http_open(self, req: Any) -> Any:
        return self.do_open(_HTTPConnection, req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def https_open(self, req: Any) -> Any:
        return self.do_open(_HTTPSConnection, req, context=self._context)  # type: ignore[attr-defined]


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
        self._opener = urllib.request.build_opener(_NoRedirect, _HTTPHandler, _HTTPSHandler)

    def send(self, request: Request) -> Response:
        """Sends ``request`` with urllib; raises :class:`TransportFailure`
        when no full response arrived in time."""
        timeout = request.exchange_timeout(self.timeout)
        reader = _BodyReader(request.max_body_bytes, time.monotonic() + timeout, timeout)
        prepared = urllib.request.Request(request.url, data=request.body, method=request.method,
                                          headers=dict(request.headers))

        def opening() -> Any:
            try:
                return self._opener.open(prepared, timeout=timeout)
            except urllib.error.HTTPError as error:
                return error

        try:
            reply = _within(opening, timeout, lambda reply: reply.close())
            with reply:
                status = reply.status if hasattr(reply, "status") and reply.status is not None else reply.code
                headers = list(reply.headers.items())
                if reader.skip(headers):
                    body = b""  # the core refuses it by its Content-Length
                else:
                    body = _read_urllib(reply, reader)
                    _check_complete(headers, reader, request.method, status)
                return Response(status, headers, body)
        except TransportFailure:
            raise
        except urllib.error.URLError as error:
            # urllib wraps what failed while connecting and sending; a
            # connection that was made and then reset while the request went
            # out may have been read by the server already.
            kind = _connect_kind(error)
            if kind == "connect" and any(isinstance(cause, OSError) and cause.errno in _RESET
                                         for cause in _causes(error)):
                kind = "reset"
            raise TransportFailure(kind, str(error.reason)) from error
        except (OSError, http.client.HTTPException) as error:
            raise TransportFailure(_sent_kind(error), str(error) or type(error).__name__) from error

    def close(self) -> None:
        """Nothing to release."""


def _httpx_failure(httpx: Any, error: Exception) -> TransportFailure:
    if isinstance(error, (httpx.ConnectTimeout, httpx.PoolTimeout)):
        return TransportFailure("connect_timeout", str(error))
    if isinstance(error, httpx.ConnectError):
        return TransportFailure(_connect_kind(error), str(error))
    if isinstance(error, httpx.TimeoutException):
        return TransportFailure("timeout", str(error))
    if isinstance(error, httpx.RemoteProtocolError):
        text = str(error).lower()
        broke = "disconnected" in text or "closed" in text or "incomplete" in text
        return TransportFailure("interrupted" if broke else "protocol", str(error))
    if isinstance(error, httpx.LocalProtocolError):
        return TransportFailure("protocol", str(error))
    kind = _sent_kind(error)
    return TransportFailure(kind if kind in ("reset", "timeout") else "interrupted", str(error))


def _unsolicited(client: Any, url: str) -> List[Any]:
    """The idle pooled connections of ``client`` for ``url`` that hold bytes
    nobody asked for (an extra response the server sent). httpcore checks
    the socket before reusing a connection, but not what h11 has already
    buffered; this looks there (nothing, for another transport or layout)."""
    try:
        pool = getattr(client._transport_for_url(client._merge_url(url)), "_pool", None)
        connections = list(getattr(pool, "connections", []))
    except Exception:
        return []
    found = []
    for connection in connections:
        inner = getattr(connection, "_connection", None)
        state = getattr(inner, "_h11_state", None)
        trailing = getattr(state, "trailing_data", None)
        if trailing is not None and trailing[0]:
            found.append(connection)
    return found


def _drop_unsolicited(client: Any, url: str) -> None:
    """Closes each connection :func:`_unsolicited` finds, so an extra
    response is never read as the answer to the next request."""
    for connection in _unsolicited(client, url):
        try:
            connection.close()
        except Exception:
            pass


async def _adrop_unsolicited(client: Any, url: str) -> None:
    """:func:`_drop_unsolicited` for an ``httpx.AsyncClient``."""
    for connection in _unsolicited(client, url):
        try:
            await connection.aclose()
        except Exception:
            pass


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
        built = self.client.build_request(request.method, request.url, headers=_with_accept_encoding(request.headers),
                                          content=request.body, timeout=timeout)
        try:
            reply = _within(lambda: self.client.send(built, stream=True, follow_redirects=False), timeout,
                            lambda reply: reply.close())
            try:
                headers = list(reply.headers.items())
                if not reader.skip(headers):
                    # A body httpx read already (httpx.MockTransport's) is decoded in memory.
                    consumed = reply.is_stream_consumed
                    decoder = _Decoder([] if consumed else headers)
                    reader.check_deadline()
                    for raw in reply.iter_bytes() if consumed else reply.iter_raw():
                        reader.check_deadline()
                        if not reader.feed(decoder.decode(raw)):
                            break
                    else:
                        reader.feed(decoder.flush())
                return Response(reply.status_code, headers, reader.body())
            finally:
                reply.close()
                _drop_unsolicited(self.client, request.url)
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
        async with self.client.stream(request.method, request.url, headers=_with_accept_encoding(request.headers),
                                      content=request.body, follow_redirects=False, timeout=timeout) as reply:
            headers = list(reply.headers.items())
            if not reader.skip(headers):
                consumed = reply.is_stream_consumed  # read already: decoded in memory
                decoder = _Decoder([] if consumed else headers)
                chunks: AsyncIterator[bytes] = reply.aiter_bytes() if consumed else reply.aiter_raw()
                async for raw in chunks:
                    if not reader.feed(decoder.decode(raw)):
                        break
                else:
                    reader.feed(decoder.flush())
        await _adrop_unsolicited(self.client, request.url)
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
