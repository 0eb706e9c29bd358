"""Python side of the overhead measurement (bindings/bench/run), through the
installed ``acd`` package:

* one driver cycle, as ``acd.HttpClient`` runs it: start a table read,
  ``poll`` (the transmit), ``respond`` with a 2- or a 100-record page,
  ``poll`` (the page's events, parsed once);
* one gate ``decide`` of a public request.

Prints microseconds per call; best of five runs, so a busy machine inflates
it as little as possible."""
from __future__ import annotations

import itertools
import sys
import time
from typing import Callable

import acd
from acd import ffi

NOW = 1_700_000_000_000


def page(records: int) -> bytes:
    """A page of ``records`` records, as the Rust side builds it."""
    rows = ",".join(f'{{"id":{i},"name":"row-{i}","total":{i}.5}}' for i in range(1, records + 1))
    return f'{{"data":[{rows}]}}'.encode()

HEADERS = [("Content-Type", "application/json"), ("RateLimit-Limit", "5"), ("RateLimit-Remaining", "4"),
           ("RateLimit-Reset", "60")]


def best_of(runs: int, iterations: int, body: Callable[[int], None]) -> float:
    best = float("inf")
    step = 0
    for _ in range(runs):
        started = time.perf_counter_ns()
        for _ in range(iterations):
            body(step)
            step += 1
        best = min(best, (time.perf_counter_ns() - started) / iterations)
    return best


def main() -> None:
    iterations = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    client = acd.Client({"api_key": "acd_live_demo_ada", "seed": 1})
    spec = {"type": "request", "operation": "listTableRecords", "path": {"id": "orders"}}

    body = page(2)

    minutes = itertools.count()

    def cycle(step: int) -> None:
        now = NOW + next(minutes) * 60_000  # a fresh per-user window each time
        client.start(spec)
        sent = client.poll(now)["transmits"]
        assert sent
        client.respond(sent[0]["call"], 200, HEADERS, body, now)
        client.poll(now)

    gate = ffi.Gate.demo(ffi.GateConfig())
    index = ffi.gate_request("/api/v1", client_ip="198.51.100.9")

    def decide(step: int) -> None:
        gate.decide(index, NOW)

    print(f"python: {best_of(5, iterations, cycle) / 1000:.2f} us per driver cycle (2 records)")
    body = page(100)
    print(f"python: {best_of(5, iterations // 4, cycle) / 1000:.2f} us per driver cycle (100 records)")
    print(f"python: {best_of(5, iterations // 4, decide) / 1000:.2f} us per gate decide (index)")


if __name__ == "__main__":
    main()
