"""Python half of ``scripts/bench-sdk``: the easy path (``acd.HttpClient``
over httpx) beside a plain httpx loop doing the same requests and the same
JSON parsing, against the sandbox at BASE_URL (table ``big``, ROWS rows,
limits raised). Two workloads:

* A: every row in pages of 100 (``tables.iter``; the loop stops on a short page);
* B: 500 single-row reads (``tables.read(page_size=1, offset=i)``).

After WARMUP rounds, ROUNDS rounds alternate plain, acd, plain, acd, ...;
prints one JSON line per workload: ``{"language", "workload", "plain_ms",
"acd_ms", "waits"}`` (the per-round times). A measurement, not a test.

Usage: sdk.py BASE_URL ROWS [ROUNDS] [WARMUP]"""
from __future__ import annotations

import json
import sys
import time
from typing import Any, Callable, Dict, List

import httpx

import acd

KEY = "acd_live_demo_ada"
TABLE = "big"
PAGE = 100
SINGLE = 500
HEADERS = {"X-API-Key": KEY, "Accept": "application/json"}


def main() -> None:
    url, rows = sys.argv[1], int(sys.argv[2])
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    warmup = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    http = httpx.Client()
    waits: List[str] = []
    api = acd.HttpClient(KEY, base_url=url, http_client=http,
                         on_event=lambda e: waits.append(e["type"]) if e["type"] == "waiting" else None)
    api.index()  # as a user would: the client learns the advertised (raised) limit

    def plain_a() -> int:
        count, offset = 0, 0
        while True:
            reply = http.get(f"{url}/api/v1/tables/{TABLE}", params={"limit": PAGE, "offset": offset},
                             headers=HEADERS)
            reply.raise_for_status()
            page: List[Dict[str, Any]] = json.loads(reply.content)["data"]
            count += len(page)
            if len(page) < PAGE:
                return count
            offset += PAGE

    def acd_a() -> int:
        return sum(1 for _ in api.tables.iter(TABLE, page_size=PAGE))

    def plain_b() -> int:
        count = 0
        for offset in range(SINGLE):
            reply = http.get(f"{url}/api/v1/tables/{TABLE}", params={"limit": 1, "offset": offset},
                             headers=HEADERS)
            reply.raise_for_status()
            count += len(json.loads(reply.content)["data"])
        return count

    def acd_b() -> int:
        return sum(len(api.tables.read(TABLE, page_size=1, offset=offset)) for offset in range(SINGLE))

    workloads: Dict[str, tuple[Callable[[], int], Callable[[], int], int]] = {
        "A": (plain_a, acd_a, rows), "B": (plain_b, acd_b, SINGLE)}
    for name, (plain, easy, expected) in workloads.items():
        times: Dict[str, List[float]] = {"plain": [], "acd": []}
        waits.clear()
        for round in range(warmup + rounds):
            for side, run in (("plain", plain), ("acd", easy)):
                started = time.perf_counter()
                got = run()
                elapsed = (time.perf_counter() - started) * 1000
                if got != expected:
                    raise SystemExit(f"python {name} {side}: read {got} rows, expected {expected}")
                if round >= warmup:
                    times[side].append(elapsed)
        print(json.dumps({"language": "python", "workload": name, "plain_ms": times["plain"],
                          "acd_ms": times["acd"], "waits": len(waits)}), flush=True)
    api.close()
    http.close()


if __name__ == "__main__":
    main()
