"""Each transport (httpx, urllib, asyncio httpx) against scripted loopback
servers: a failure is reported by its facts and the core's error says what
happened (never sent or maybe processed, the origin, the reason); raw
``http.client`` exceptions never escape; the timeout bounds the wait for
headers; ``1xx`` responses are skipped; a response nobody asked for is never
the answer to the next request."""
from __future__ import annotations

import asyncio
import socket
import threading
import time
from typing import Any, Callable, Iterator, List

import pytest

import acd
from acd._transport import UrllibTransport

KEY = "acd_live_demo_ada"
TRANSPORTS = ["httpx", "urllib", "async"]
PAGE = b'{"data": [{"id": 1}]}'


def reply(status: str, body: bytes, extra: str = "") -> bytes:
    return (f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n{extra}\r\n"
            .encode() + body)


def read_request(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return b""
        data += chunk
    return data


class Scripted:
    """A loopback TCP server: ``script(conn, index)`` answers each accepted
    connection (``index`` counts them); ``requests`` counts requests read."""

    def __init__(self, script: Callable[["Scripted", socket.socket], None]) -> None:
        self.script = script
        self.requests = 0
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self._serve, daemon=True).start()

    def read(self, conn: socket.socket) -> bytes:
        request = read_request(conn)
        if request:
            self.requests += 1
        return request

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._run, args=(conn,), daemon=True).start()

    def _run(self, conn: socket.socket) -> None:
        try:
            self.script(self, conn)
        except OSError:
            pass
        finally:
            conn.close()

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def scripted() -> Iterator[Callable[[Callable[[Scripted, socket.socket], None]], Scripted]]:
    started: List[Scripted] = []

    def start(script: Callable[[Scripted, socket.socket], None]) -> Scripted:
        started.append(Scripted(script))
        return started[-1]

    yield start
    for server in started:
        server.close()


def call(kind: str, url: str, use: Callable[[Any], Any], **options: Any) -> Any:
    """``use(api)`` on the easy path over transport ``kind``; for async,
    ``use`` returns an awaitable."""
    if kind == "async":
        async def run() -> Any:
            async with acd.AsyncHttpClient(KEY, base_url=url, **options) as api:
                return await use(api)
        return asyncio.run(run())
    http_client = UrllibTransport(timeout=options.pop("timeout", 30.0)) if kind == "urllib" else None
    with acd.HttpClient(KEY, base_url=url, http_client=http_client, **options) as api:
        return use(api)


def read(api: Any) -> Any:
    return api.tables.read("orders")


def create(api: Any) -> Any:
    return api.runs.create("agent-1", input={"x": 1})


def closed_port() -> int:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port: int = probe.getsockname()[1]
    probe.close()
    return port


@pytest.mark.parametrize("kind", TRANSPORTS)
def test_a_refused_connection_is_a_connection_error_naming_origin_and_reason(kind: str) -> None:
    port = closed_port()
    with pytest.raises(acd.APIConnectionError) as caught:
        call(kind, f"http://127.0.0.1:{port}", create, retry=acd.RetryPolicy(max_attempts=2, backoff_base=0.01))
    message = str(caught.value)
    assert not isinstance(caught.value, acd.APITimeoutError)
    # Never sent, so even the POST was retried.
    assert "gave up after 2 attempt(s)" in message, message
    assert f"the request to http://127.0.0.1:{port} failed in transport: could not connect " \
           "(connection refused), so the request was never sent" in message, message
    assert "/api/" not in message


@pytest.mark.parametrize("kind", TRANSPORTS)
def test_a_post_whose_connection_resets_after_sending_is_not_retried(kind: str, scripted: Any) -> None:
    def reset(server: Scripted, conn: socket.socket) -> None:
        server.read(conn)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")

    server = scripted(reset)
    with pytest.raises(acd.APIConnectionError) as caught:
        call(kind, server.url, create, retry=acd.RetryPolicy(max_attempts=3, backoff_base=0.01))
    assert server.requests == 1
    assert "may have processed" in str(caught.value)


@pytest.mark.parametrize("kind", ["httpx", "urllib"])
def test_headers_trickling_in_fail_at_the_timeout(kind: str, scripted: Any) -> None:
    def trickle_headers(server: Scripted, conn: socket.socket) -> None:
        server.read(conn)
        for byte in reply("200 OK", PAGE, "X-Slow: " + "x" * 60 + "\r\n"):
            conn.sendall(bytes([byte]))
            time.sleep(0.1)

    server = scripted(trickle_headers)
    started = time.monotonic()
    with pytest.raises(acd.APITimeoutError):
        call(kind, server.url, read, timeout=1.0, retry=acd.RetryPolicy(max_attempts=1))
    elapsed = time.monotonic() - started
    # The whole answer takes about 13 s to trickle in.
    assert elapsed < 5.0, f"the 1 s timeout took {elapsed:.1f} s"


BROKEN = {
    "not HTTP": b"SSH-2.0-OpenSSH_9.6\r\n\r\n",
    "a header line too long": b"HTTP/1.1 200 OK\r\nX-Long: " + b"x" * 70000 + b"\r\n\r\n",
    "too many headers": b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(120)) + b"\r\n",
}


CASES = [(kind, "not HTTP") for kind in TRANSPORTS] + [("urllib", answer) for answer in sorted(BROKEN)]


@pytest.mark.parametrize("kind,answer", sorted(set(CASES)))
def test_an_answer_that_is_not_http_is_an_acd_error(kind: str, answer: str, scripted: Any) -> None:
    # (httpx takes long header lines and many headers as a valid response.)
    def broken(server: Scripted, conn: socket.socket) -> None:
        server.read(conn)
        conn.sendall(BROKEN[answer])

    server = scripted(broken)
    with pytest.raises(acd.AcdError) as caught:
        call(kind, server.url, read, retry=acd.RetryPolicy(max_attempts=2, backoff_base=0.01))
    # The core's "protocol" category: the server broke HTTP itself.
    assert type(caught.value) is acd.ProtocolError, repr(caught.value)
    assert caught.value.category == "protocol"
    assert "failed in transport" in str(caught.value)
    assert server.requests == 2  # a GET: retried


@pytest.mark.parametrize("kind", TRANSPORTS)
def test_a_body_shorter_than_its_content_length_is_not_complete(kind: str, scripted: Any) -> None:
    def short(server: Scripted, conn: socket.socket) -> None:
        server.read(conn)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n" + PAGE)

    server = scripted(short)
    with pytest.raises(acd.APIConnectionError) as caught:
        call(kind, server.url, read, retry=acd.RetryPolicy(max_attempts=1))
    assert "may have processed" in str(caught.value)


@pytest.mark.parametrize("kind", TRANSPORTS)
@pytest.mark.parametrize("informational", [b"100 Continue\r\n", b"103 Early Hints\r\nLink: </style.css>; rel=preload\r\n"])
def test_informational_responses_are_skipped(kind: str, informational: bytes, scripted: Any) -> None:
    def early_hints(server: Scripted, conn: socket.socket) -> None:
        server.read(conn)
        conn.sendall(b"HTTP/1.1 " + informational + b"\r\n" + reply("200 OK", PAGE, "Connection: close\r\n"))

    server = scripted(early_hints)
    assert call(kind, server.url, read) == [{"id": 1}]


@pytest.mark.parametrize("kind", TRANSPORTS)
def test_an_unsolicited_response_is_never_the_next_answer(kind: str, scripted: Any) -> None:
    answers = iter([b'{"data": [{"id": 1}]}', b'{"data": [{"id": 2}]}', b'{"data": [{"id": 3}]}'])

    def extra(server: Scripted, conn: socket.socket) -> None:
        while server.read(conn):
            answer = next(answers)
            unsolicited = reply("200 OK", b'{"data": [{"id": 666}]}') if answer.endswith(b'1}]}') else b""
            conn.sendall(reply("200 OK", answer) + unsolicited)

    server = scripted(extra)

    if kind == "async":
        async def twice(api: Any) -> Any:
            return [await api.tables.read("orders"), await api.tables.read("orders")]
        results = call(kind, server.url, twice)
    else:
        results = call(kind, server.url, lambda api: [read(api), read(api)])
    assert results == [[{"id": 1}], [{"id": 2}]]
