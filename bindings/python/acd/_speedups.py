"""Faster buffer glue for the generated module (same bytes, fewer calls).

uniffi's generated Python writes arguments into a Rust-allocated buffer one
field at a time (a context manager, a ``struct.pack``, a ``ctypes.memmove``
and sometimes a call into Rust to grow it, per field) and reads results
with one ctypes slice per field. Here arguments are gathered in a
``bytearray`` and copied into one exactly sized Rust buffer, and results
are copied out once and read with ``struct.unpack_from``. The wire format
is unchanged: every conformance vector is replayed through this path.
Set ``ACD_NO_SPEEDUPS=1`` to keep the generated glue (to compare)."""
from __future__ import annotations

import ctypes
import os
import struct
from typing import Any

from ._ffi import acd_ffi as _generated

_Builder: Any = getattr(_generated, "_UniffiRustBufferBuilder", None)
_Stream: Any = getattr(_generated, "_UniffiRustBufferStream", None)
_RustBuffer: Any = getattr(_generated, "_UniffiRustBuffer", None)


def _install() -> bool:
    if os.environ.get("ACD_NO_SPEEDUPS") == "1" or None in (_Builder, _Stream, _RustBuffer):
        return False

    class Builder(_Builder):  # type: ignore[misc,valid-type]
        __slots__ = ("buf",)

        def __init__(self) -> None:
            self.buf = bytearray()

        def finalize(self) -> Any:
            data = bytes(self.buf)
            rbuf = _RustBuffer.alloc(len(data))
            if data:
                ctypes.memmove(rbuf.data, data, len(data))
            rbuf.len = len(data)
            return rbuf

        def discard(self) -> None:
            self.buf = bytearray()

        def _pack_into(self, size: int, format: str, value: Any) -> None:
            self.buf += struct.pack(format, value)

        def write(self, value: bytes) -> None:
            self.buf += value

    class Stream(_Stream):  # type: ignore[misc,valid-type]
        def __init__(self, data: bytes, length: int) -> None:
            self.data = data
            self.len = length
            self.offset = 0

        @classmethod
        def from_rust_buffer(cls, buf: Any) -> "Stream":
            length = int(buf.len)
            return cls(ctypes.string_at(buf.data, length) if length else b"", length)

        def _unpack_from(self, size: int, format: str) -> Any:
            if self.offset + size > self.len:
                raise _generated.InternalError("read past end of rust buffer")
            value = struct.unpack_from(format, self.data, self.offset)[0]
            self.offset += size
            return value

        def read(self, size: int) -> bytes:
            if self.offset + size > self.len:
                raise _generated.InternalError("read past end of rust buffer")
            data = self.data[self.offset:self.offset + size]
            self.offset += size
            return data

    setattr(_generated, "_UniffiRustBufferBuilder", Builder)
    setattr(_generated, "_UniffiRustBufferStream", Stream)
    return True


INSTALLED = _install()
