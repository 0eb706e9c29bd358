"""The session loop of ``docs/driver-protocol.md`` ("Session") for the
synchronous :class:`acd.HttpClient`, shared by threads: one thread drives at
a time (polls, sends every transmit of the batch at once, each in its own
thread, and hands each outcome to the core as it arrives); the others wait
until it has delivered events. A driver with nothing to send waits for the
batch's wake-up, and a call started by another thread wakes it (with the
default ``time.sleep``; an injected sleep is not interrupted). Nothing is
decided here."""
from __future__ import annotations

import threading
from typing import Any, Callable, Dict, List, Optional

from ._transport import TransportFailure


class ThreadSession:
    """What one :class:`acd.HttpClient` needs to be driven from several
    threads: its lock, who drives, and the sends of one step."""

    def __init__(self, sleep: Optional[Callable[[float], None]]) -> None:
        self.lock = threading.Condition()
        self._driving = False
        self._turn = 0
        self._sleep = sleep

    def wait_turn(self) -> bool:
        """``True`` when the caller is to drive (it must call :meth:`done`
        after); else waits until the driving thread has finished its turn and
        returns ``False``."""
        with self.lock:
            if not self._driving:
                self._driving = True
                return True
            turn = self._turn
            while self._driving and self._turn == turn:
                self.lock.wait()
            return False

    def done(self) -> None:
        """Ends the driving thread's turn and wakes the threads waiting on it."""
        with self.lock:
            self._driving = False
            self._turn += 1
            self.lock.notify_all()

    def wake(self) -> None:
        """Wakes a driver waiting for its wake-up (a call was started)."""
        with self.lock:
            self.lock.notify_all()

    def sleep(self, seconds: float) -> None:
        """The driver's wait for the batch's wake-up: interrupted by a call
        started meanwhile with the default sleep; an injected sleep runs as
        given (it is what a virtual clock moves)."""
        if self._sleep is not None:
            self._sleep(seconds)
            return
        with self.lock:
            self.lock.wait(timeout=seconds)

    @staticmethod
    def exchange_all(transmits: List[Dict[str, Any]], exchange: Callable[[Dict[str, Any]], None]) -> None:
        """Runs ``exchange`` for every transmit at once (the first in this
        thread, the others each in a thread of its own) and returns when all
        are done; re-raises the first error one of them raised."""
        errors: List[BaseException] = []

        def run(transmit: Dict[str, Any]) -> None:
            try:
                exchange(transmit)
            except BaseException as error:  # handed to the driving thread
                errors.append(error)

        helpers = [threading.Thread(target=run, args=(transmit,), daemon=True) for transmit in transmits[1:]]
        for helper in helpers:
            helper.start()
        if transmits:
            run(transmits[0])
        for helper in helpers:
            helper.join()
        if errors:
            raise errors[0]


def send_one(api: Any, transmit: Dict[str, Any], now: int) -> None:
    """Sends one transmit of ``api`` (an :class:`acd.HttpClient`) and hands
    its outcome to the core."""
    try:
        reply = api._transport.send(api._request(transmit, now))
    except TransportFailure as failure:
        api.client.fail(transmit["call"], failure.kind, api._now_ms())
    else:
        api.client.respond(transmit["call"], reply.status, reply.headers, reply.body, api._now_ms())


__all__ = ["ThreadSession", "send_one"]
