"""Daemon worker threads the blocking transports reuse for the part of an
exchange they wait on with a deadline (``_transport._within``): starting a
thread for every request cost more than the request itself on loopback
(``scripts/bench-sdk``, ``docs/perf/README.md``). A worker that is busy past
its caller's deadline (an abandoned exchange) simply stays busy; the next
job goes to an idle worker, or to a new one when none is idle. Workers are
daemons, so an exchange stuck in a read never keeps the interpreter from
exiting."""
from __future__ import annotations

import queue
import threading
from typing import Callable, List

__all__ = ["run_soon"]

_jobs: "queue.SimpleQueue[Callable[[], None]]" = queue.SimpleQueue()
_lock = threading.Lock()
_idle: List[int] = [0]  # workers waiting for a job


def _worker() -> None:
    while True:
        job = _jobs.get()
        with _lock:
            _idle[0] -= 1
        try:
            job()
        finally:
            with _lock:
                _idle[0] += 1


def run_soon(job: Callable[[], None]) -> None:
    """Runs ``job`` on an idle worker thread, starting one when none is
    idle. ``job`` must not raise (its exceptions are lost)."""
    with _lock:
        start = _idle[0] == 0
        if start:
            _idle[0] += 1  # the new worker, counted idle until it takes a job
    if start:
        threading.Thread(target=_worker, name="acd-exchange", daemon=True).start()
    _jobs.put(job)
