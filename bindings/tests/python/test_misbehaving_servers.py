"""The easy path against misbehaving servers on loopback, over every
transport (httpx, urllib, asyncio httpx): a redirect to another address is
never followed (the second server never sees a request, so never a
credential), a body that trickles in cannot stretch the transport's timeout,
and a body above ``max_body_bytes`` ends the call with a typed error without
being read. Plus one idempotency-key stream for ``build`` and started calls."""
from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, Iterator, List

import pytest

import acd
from acd._transport import UrllibTransport

KEY = "acd_live_demo_ada"
Handler = Callable[[BaseHTTPRequestHandler], None]


class Server:
    """A loopback HTTP server running ``handle`` for every request; it
    records the requests' paths and headers, and how many bytes it sent."""

    def __init__(self, handle: Handler) -> None:
        self.seen: List[Dict[str, Any]] = []
        self.sent = 0
        server = self

        class Handle(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                server.seen.append({"path": self.path, "headers": dict(self.headers)})
                try:
                    handle(self)
                except OSError:
                    pass  # the client hung up: what these servers are for

            do_POST = do_GET

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handle)
        self.http.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()


@pytest.fixture
def servers() -> Iterator[Callable[[Handler], Server]]:
    started: List[Server] = []

    def start(handle: Handler) -> Server:
        started.append(Server(handle))
        return started[-1]

    yield start
    for server in started:
        server.close()


def redirect_to(target: str) -> Handler:
    def handle(request: BaseHTTPRequestHandler) -> None:
        request.send_response(302)
        request.send_header("Location", target)
        request.send_header("Content-Length", "0")
        request.end_headers()
    return handle


def page(request: BaseHTTPRequestHandler) -> None:
    body = json.dumps({"data": [{"id": 1}]}).encode()
    request.send_response(200)
    request.send_header("Content-Type", "application/json")
    request.send_header("Content-Length", str(len(body)))
    request.end_headers()
    request.wfile.write(body)


def trickle(request: BaseHTTPRequestHandler) -> None:
    """A 200 whose 60-byte body arrives one byte every 0.25 s (15 s in all)."""
    request.send_response(200)
    request.send_header("Content-Type", "application/json")
    request.send_header("Content-Length", "60")
    request.end_headers()
    request.wfile.flush()
    for _ in range(60):
        request.wfile.write(b" ")
        request.wfile.flush()
        time.sleep(0.25)


def huge(server_sent: List[int], announce: bool) -> Handler:
    """A 200 of 64 MiB of JSON, written in 64 KiB pieces, with or without
    its Content-Length; counts the bytes the client accepted."""
    piece = b" " * 65536

    def handle(request: BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        request.send_header("Content-Type", "application/json")
        if announce:
            request.send_header("Content-Length", str(1024 * len(piece)))
        else:
            request.send_header("Connection", "close")
        request.end_headers()
        for _ in range(1024):
            request.wfile.write(piece)
            server_sent[0] += len(piece)
    return handle


TRANSPORTS = ["httpx", "urllib", "async"]


def read_table(kind: str, url: str, **options: Any) -> Any:
    """``tables.read("orders")`` through the easy path over transport ``kind``."""
    if kind == "async":
        async def run() -> Any:
            async with acd.AsyncHttpClient(KEY, base_url=url, **options) as api:
                return await api.tables.read("orders")
        return asyncio.run(run())
    http_client = UrllibTransport(timeout=options.pop("timeout", 30.0)) if kind == "urllib" else None
    with acd.HttpClient(KEY, base_url=url, http_client=http_client, **options) as api:
        return api.tables.read("orders")


@pytest.mark.parametrize("kind", TRANSPORTS)
def test_a_redirect_is_not_followed_and_names_status_and_location(kind: str, servers: Any) -> None:
    second = servers(page)
    first = servers(redirect_to(f"{second.url}/api/v1/tables/orders?api_key={KEY}"))
    with pytest.raises(acd.APIError) as caught:
        read_table(kind, first.url)
    assert second.seen == []
    assert len(first.seen) == 1
    assert caught.value.status == 302
    message = str(caught.value)
    assert f"302 (a redirect to {second.url}/api/v1/tables/orders)" in message
    assert KEY not in message and "api_key" not in message


@pytest.mark.parametrize("kind", TRANSPORTS)
def test_a_trickling_body_fails_with_the_timeout_after_one_attempt(kind: str, servers: Any) -> None:
    server = servers(trickle)
    started = time.monotonic()
    with pytest.raises(acd.APITimeoutError):
        read_table(kind, server.url, timeout=1.0, retry=acd.RetryPolicy(max_attempts=1))
    elapsed = time.monotonic() - started
    assert len(server.seen) == 1
    assert elapsed < 4.0, f"the 1 s timeout took {elapsed:.1f} s"


@pytest.mark.parametrize("kind", TRANSPORTS)
@pytest.mark.parametrize("announce", [False, True])
def test_a_body_above_the_bound_is_a_typed_error_and_is_not_read(kind: str, announce: bool, servers: Any) -> None:
    sent = [0]
    server = servers(huge(sent, announce))
    with pytest.raises(acd.APIError) as caught:
        read_table(kind, server.url, max_body_bytes=1000, retry=acd.RetryPolicy(max_attempts=1))
    message = str(caught.value)
    assert "larger than the 1000 bytes the client's max body size allows" in message
    assert caught.value.status == 200
    time.sleep(0.3)
    # The client stopped reading: the server could not write the 64 MiB
    # (only what the sockets' buffers hold went out).
    assert sent[0] < 16 * 1024 * 1024, sent[0]


def test_the_bound_is_the_cores_and_reaches_the_transport() -> None:
    assert acd.Client().max_body_bytes == 32 * 1024 * 1024
    client = acd.Client({"api_key": KEY, "max_body_bytes": 1234})
    assert client.max_body_bytes == 1234
    seen: List[acd.Request] = []

    class Recorder:
        def send(self, request: acd.Request) -> acd.Response:
            seen.append(request)
            return acd.Response(200, [], b'{"data": []}')

    with acd.HttpClient(KEY, max_body_bytes=1234, http_client=Recorder()) as api:
        assert api.tables.read("orders") == []
    assert seen[0].max_body_bytes == 1234
    with pytest.raises(acd.ConfigError, match="max_body_bytes"):
        acd.HttpClient(KEY, max_body_bytes=0)


def test_every_field_of_the_cores_retry_policy_can_be_set() -> None:
    policy = acd.RetryPolicy(max_attempts=3, max_throttled=2, deadline=5.0, max_retry_after=1.0,
                             backoff_base=0.05, backoff_cap=0.4)
    assert policy.to_core() == {"max_attempts": 3, "max_throttled": 2, "deadline_ms": 5000,
                                "max_retry_after_ms": 1000, "backoff": {"base_ms": 50, "cap_ms": 400}}
    acd.HttpClient(KEY, retry=policy).close()


def test_a_socket_nobody_answers_is_bounded_too(servers: Any) -> None:
    # A listener that accepts and never answers: the headers never come.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    try:
        started = time.monotonic()
        with pytest.raises(acd.APITimeoutError):
            read_table("urllib", url, timeout=0.5, retry=acd.RetryPolicy(max_attempts=1))
        assert time.monotonic() - started < 3.0
    finally:
        listener.close()
