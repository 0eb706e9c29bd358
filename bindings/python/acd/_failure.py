"""How a transport says no response arrived: :class:`TransportFailure` and
the failure kinds the core takes (``docs/driver-protocol.md``)."""
from __future__ import annotations

__all__ = ["KINDS", "TransportFailure"]

KINDS = ("connect", "timeout", "interrupted", "refused", "dns", "connect_timeout", "blocked", "reset", "unknown",
         "protocol")
"""The transport-failure kinds the core takes (``docs/driver-protocol.md``)."""


class TransportFailure(Exception):
    """Raised by a transport when no response arrived. ``kind`` names the
    fact: ``"connect"``, ``"refused"``, ``"dns"``, ``"connect_timeout"``
    (never sent), ``"timeout"``, ``"interrupted"``, ``"reset"``,
    ``"protocol"`` (sent: the server may have processed it), ``"blocked"``
    or ``"unknown"``; the core turns it into the error."""

    def __init__(self, kind: str, message: str = "") -> None:
        if kind not in KINDS:
            raise ValueError(f"transport failure kind must be one of {', '.join(KINDS)}; got {kind!r}")
        super().__init__(message or kind)
        self.kind = kind
