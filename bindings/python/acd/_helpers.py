"""Context-free conveniences over the generated bindings. No API rule lives
here: these only turn plain Python values into the generated types, and make
``repr`` useful without ever showing a header value (it may be a secret)."""
from __future__ import annotations

from typing import Iterable, Tuple, Union

from ._ffi import acd_ffi as _ffi

Text = Union[str, bytes]


def _as_bytes(value: Text) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


def header(name: str, value: Text) -> _ffi.Header:
    """A request header; ``value`` may be ``str`` (sent as UTF-8) or ``bytes``."""
    return _ffi.Header(name=name, value=_as_bytes(value))


def gate_request(
    target: Text,
    *,
    client_ip: str,
    method: str = "GET",
    headers: Iterable[Tuple[str, Text]] = (),
) -> _ffi.GateRequest:
    """A :class:`GateRequest` from plain values: ``target`` is the path and
    raw query (``str`` or raw ``bytes``), headers are ``(name, value)`` pairs."""
    return _ffi.GateRequest(
        method, _as_bytes(target), [header(n, v) for n, v in headers], client_ip
    )


def _header_text(self: _ffi.Header) -> str:
    return f"Header(name={self.name!r}, value=<{len(self.value)} bytes>)"


def _install_reprs() -> None:
    """Records get a ``repr`` equal to their ``str`` (the generated dataclass
    ``repr`` shows no fields); ``Header`` never shows its value."""
    for name in _ffi.__all__:
        cls = getattr(_ffi, name)
        if isinstance(cls, type) and "__str__" in cls.__dict__ and "__dataclass_fields__" in cls.__dict__:
            cls.__repr__ = cls.__str__  # type: ignore[method-assign]
    _ffi.Header.__str__ = _header_text  # type: ignore[method-assign]
    _ffi.Header.__repr__ = _header_text  # type: ignore[method-assign]


_install_reprs()
