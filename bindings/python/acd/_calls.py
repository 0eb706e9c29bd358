"""Per-call event queues, shared by :class:`acd.HttpClient` and
:class:`acd.AsyncHttpClient`: events drained from the driver are routed to
the call they belong to, and each call's iterator takes its own, in order.
The loop that sends and sleeps stays in each client (one sync, one async)."""
from __future__ import annotations

from collections import deque
from typing import Deque, Dict, Optional

from ._client import Client, raise_for_event, warn_deprecation
from ._engine import Event
from ._errors import AcdError

__all__ = ["CallQueues", "NO_PROGRESS"]

NO_PROGRESS = "no call can make progress: nothing to send and nothing to wait for"
"""The sentence raised when the driver has nothing to send and no deadline."""


class CallQueues:
    """The open calls of one easy-path client and their pending events."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self._queues: Dict[int, Deque[Event]] = {}

    def open(self, call: int) -> None:
        """Starts collecting the events of ``call``."""
        self._queues.setdefault(call, deque())

    def close(self, call: int) -> None:
        """Stops collecting for ``call`` and cancels it (a no-op once it ended)."""
        self._queues.pop(call, None)
        self._client.cancel(call)

    def next_data(self, call: int) -> "tuple[bool, Optional[Event]]":
        """``(True, None)`` when ``call`` is done, ``(False, event)`` for its
        next data event, ``(False, None)`` when nothing is queued yet. Raises
        the typed exception of a ``failed`` event; issues deprecation warnings."""
        queue = self._queues.get(call)
        if queue is None:
            raise AcdError(f"call {call} is not open")
        while queue:
            event = queue.popleft()
            kind = event["type"]
            if kind == "done":
                return True, None
            if kind == "failed":
                raise_for_event(event)
            if kind == "deprecation":
                warn_deprecation(event)
            elif kind != "waiting":
                return False, event
        return False, None

    def route(self) -> bool:
        """Drains the driver's events into the open calls' queues; whether any arrived."""
        arrived = False
        for call, event in self._client.poll_events():
            queue = self._queues.get(call)
            if queue is not None:
                queue.append(event)
                arrived = True
        return arrived
