"""Reading a response body within the core's bound: the bounded reader (by
decoded size, with the exchange's deadline) and the gzip/deflate inflater
the httpx transports use, at most 64 KiB at a time."""
from __future__ import annotations

import time
import zlib
from typing import Iterable, Iterator, List, Optional, Tuple

from ._failure import TransportFailure

Headers = List[Tuple[str, str]]

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
        kept = self.size
        self.size += len(chunk)
        if self.limit is not None and self.size > self.limit + 1:
            chunk = chunk[: max(self.limit + 1 - kept, 0)]
        self.chunks.append(chunk)
        return self.limit is None or self.size <= self.limit

    def check_deadline(self) -> None:
        """Raises the timeout failure once the exchange has run out of time."""
        if time.monotonic() > self.deadline:
            raise TransportFailure("timeout", f"the response did not arrive in full within {self.timeout:g} s")

    def over(self) -> bool:
        """Whether more bytes came than the bound allows."""
        return self.limit is not None and self.size > self.limit

    def body(self) -> bytes:
        """The bytes kept (at most one more than the bound)."""
        return b"".join(self.chunks)

    def feed(self, pieces: Iterable[bytes]) -> bool:
        """Keeps each of ``pieces`` in turn (drawing no more once past the
        bound); whether to read on."""
        for piece in pieces:
            if not self.add(piece):
                return False
        return True


ACCEPT_ENCODING = "gzip, deflate"
"""The encodings the httpx transports ask for: those :class:`_Decoder`
inflates under the bound."""

_WBITS = {"gzip": zlib.MAX_WBITS | 16, "x-gzip": zlib.MAX_WBITS | 16, "deflate": zlib.MAX_WBITS}


class _Inflater:
    """One ``Content-Encoding`` stage (gzip or deflate), inflating at most
    ``_CHUNK`` bytes per step so its output is only made as it is read.
    A ``deflate`` body without the zlib wrapper is read as raw deflate (as
    httpx does)."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self.raw_fallback = encoding == "deflate"
        self.inflater = zlib.decompressobj(_WBITS[encoding])

    def _failed(self, error: zlib.error) -> TransportFailure:
        return TransportFailure("protocol", f"the {self.encoding} body could not be decoded: {error}")

    def feed(self, data: bytes) -> Iterator[bytes]:
        """``data`` inflated, in pieces of at most ``_CHUNK`` bytes."""
        while not self.inflater.eof:
            try:
                out = self.inflater.decompress(data, _CHUNK)
            except zlib.error as error:
                if not self.raw_fallback:
                    raise self._failed(error) from error
                self.raw_fallback = False
                self.inflater = zlib.decompressobj(-zlib.MAX_WBITS)
                continue
            self.raw_fallback = False
            if out:
                yield out
            data = self.inflater.unconsumed_tail
            if not data and len(out) < _CHUNK:
                return

    def flush(self) -> Iterator[bytes]:
        """What is left once the raw body has ended (little: every step drained)."""
        try:
            rest = self.inflater.flush()
        except zlib.error as error:
            raise self._failed(error) from error
        if rest:
            yield rest


class _Decoder:
    """Undoes a response's ``Content-Encoding`` lazily: nothing is inflated
    before it is drawn, so a reader that stops at the bound stops the
    inflating too. A chain of gzip/deflate is undone stage by stage; a body
    in any other encoding (or none) passes through as it came."""

    def __init__(self, headers: Iterable[Tuple[str, str]]) -> None:
        encodings = [part.strip().lower() for name, value in headers if name.lower() == "content-encoding"
                     for part in value.split(",") if part.strip().lower() not in ("", "identity")]
        supported = all(encoding in _WBITS for encoding in encodings)
        self.stages = [_Inflater(encoding) for encoding in reversed(encodings)] if supported else []

    def _through(self, index: int, pieces: Iterable[bytes]) -> Iterator[bytes]:
        if index == len(self.stages):
            yield from pieces
            return
        stage = self.stages[index]
        yield from self._through(index + 1, (out for piece in pieces for out in stage.feed(piece)))

    def decode(self, raw: bytes) -> Iterator[bytes]:
        """The decoded pieces of one raw read."""
        return self._through(0, [raw])

    def flush(self) -> Iterator[bytes]:
        """The decoded rest, once the raw body has ended."""
        for index, stage in enumerate(self.stages):
            yield from self._through(index + 1, stage.flush())


def _with_accept_encoding(headers: Headers) -> Headers:
    """``headers`` asking for :data:`ACCEPT_ENCODING` unless they name an encoding."""
    if any(name.lower() == "accept-encoding" for name, _ in headers):
        return headers
    return [*headers, ("Accept-Encoding", ACCEPT_ENCODING)]
