"""The body bound is on the decoded (decompressed) size (issue 43, item 2),
over each transport: a small gzip body that inflates past the bound ends the
call with the core's typed error (body too large, category ``protocol``),
whether the bound is the caller's or the core's default, and the transport
never inflates the whole body to find out (the largest allocation during the
call stays far below what the body inflates to).

httpx (sync and async) asks for ``gzip, deflate`` and decodes them; urllib
never asks for an encoding and never decodes, so a gzip body it is sent
anyway is bounded as the bytes that came (and is no JSON: ``protocol``)."""
from __future__ import annotations

import json
import socket
import tracemalloc
import zlib
from typing import Any, Dict, List, Tuple

import pytest

import acd
from test_transport_failures import TRANSPORTS, Scripted, call, read, scripted  # noqa: F401 (a fixture)

MIB = 1024 * 1024


def gzip_of_zeros(size: int) -> bytes:
    """A gzip stream of ``size`` zero bytes (about a thousandth of that)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    piece = bytes(MIB)
    parts = [packer.compress(piece) for _ in range(size // MIB)]
    return b"".join(parts) + packer.flush()


# 256 MiB of zeros in about 250 KB of gzip.
BOMB_SIZE = 256 * MIB
BOMB = gzip_of_zeros(BOMB_SIZE)


def bomb_server(scripted: Any, seen: List[Dict[str, str]]) -> Scripted:
    """Answers every request with :data:`BOMB` as a gzip-encoded JSON 200."""

    def answer(server: Scripted, conn: socket.socket) -> None:
        request = server.read(conn)
        lines = request.decode("latin-1").split("\r\n")[1:]
        seen.append({name.strip().lower(): value.strip() for name, _, value in
                     (line.partition(":") for line in lines if line)})
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
                     b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(BOMB) + BOMB)

    server: Scripted = scripted(answer)
    return server


def traced(kind: str, url: str, **options: Any) -> Tuple[acd.AcdError, int]:
    """The error ``tables.read`` ends with over ``kind``, and the largest
    traced allocation (bytes above the start) while it ran."""
    tracemalloc.start()
    try:
        with pytest.raises(acd.AcdError) as caught:
            call(kind, url, read, retry=acd.RetryPolicy(max_attempts=1), **options)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return caught.value, peak


def test_the_bomb_is_small_and_inflates_past_the_default_bound() -> None:
    assert len(BOMB) < 300 * 1024
    assert BOMB_SIZE > 4 * acd.Client().max_body_bytes
    assert zlib.decompressobj(zlib.MAX_WBITS | 16).decompress(BOMB, 64) == bytes(64)


@pytest.mark.parametrize("kind", TRANSPORTS)
def test_a_gzip_body_past_the_default_bound_is_refused_without_inflating_it(kind: str, scripted: Any) -> None:
    seen: List[Dict[str, str]] = []
    server = bomb_server(scripted, seen)
    error, peak = traced(kind, server.url)
    limit = acd.Client().max_body_bytes  # the core's default: no bound set here
    assert error.category == "protocol", repr(error)
    assert isinstance(error, acd.ProtocolError), repr(error)
    assert error.status == 200
    if kind == "urllib":
        # Asked for none: the 250 KB that came are no JSON.
        assert seen[0].get("accept-encoding", "identity") == "identity"
        assert "larger than" not in str(error), str(error)
    else:
        assert seen[0]["accept-encoding"] == "gzip, deflate"
        assert f"larger than the {limit} bytes the client's max body size allows" in str(error), str(error)
    # The bound's worth is kept (and copied once or twice on its way to the
    # core), never the whole 256 MiB.
    assert peak < BOMB_SIZE // 2, f"{peak} bytes allocated"


@pytest.mark.parametrize("kind", TRANSPORTS)
def test_a_gzip_body_past_a_small_bound_is_refused_after_inflating_little(kind: str, scripted: Any) -> None:
    seen: List[Dict[str, str]] = []
    server = bomb_server(scripted, seen)
    error, peak = traced(kind, server.url, max_body_bytes=1000)
    assert isinstance(error, acd.ProtocolError), repr(error)
    assert error.status == 200
    # urllib refuses the 250 KB of gzip as they came; httpx what they inflate to.
    assert "larger than the 1000 bytes the client's max body size allows" in str(error), str(error)
    # Inflating a whole network read of this bomb would allocate tens of MiB.
    assert peak < 4 * MIB, f"{peak} bytes allocated"


@pytest.mark.parametrize("kind", ["httpx", "async"])
@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_an_encoded_page_within_the_bound_is_decoded(kind: str, encoding: str, scripted: Any) -> None:
    # 200 records: the encoded body is far shorter than the decoded one,
    # which is exactly the bound.
    records = [{"id": index} for index in range(200)]
    page = json.dumps({"data": records}).encode()
    packer = zlib.compressobj(6, zlib.DEFLATED, zlib.MAX_WBITS | (16 if encoding == "gzip" else 0))
    body = packer.compress(page) + packer.flush()

    def answer(server: Scripted, conn: socket.socket) -> None:
        server.read(conn)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: %s\r\n"
                     b"Content-Length: %d\r\nConnection: close\r\n\r\n" % (encoding.encode(), len(body)) + body)

    server = scripted(answer)
    assert len(body) < len(page) // 2
    assert call(kind, server.url, read, max_body_bytes=len(page)) == records


@pytest.mark.parametrize("kind", ["httpx", "async"])
def test_a_body_that_does_not_decode_is_a_protocol_failure(kind: str, scripted: Any) -> None:
    def answer(server: Scripted, conn: socket.socket) -> None:
        server.read(conn)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
                     b"Content-Length: 20\r\nConnection: close\r\n\r\n" + b"not gzip, not json!!")

    server = scripted(answer)
    with pytest.raises(acd.AcdError) as caught:
        call(kind, server.url, read, retry=acd.RetryPolicy(max_attempts=1))
    assert caught.value.category == "protocol", repr(caught.value)
    assert "failed in transport" in str(caught.value), str(caught.value)
