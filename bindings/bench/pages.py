"""What a user feels: reading 5,000 rows in pages of 100 from a real
``acd-sandbox`` on loopback (its limits raised so nothing waits), with the
easy path (``acd.HttpClient.tables.iter``) and with a plain httpx loop doing
the same requests and JSON parsing, side by side in one run.

Usage: pages.py SANDBOX_BINARY [ROUNDS]. Prints milliseconds per read of the
5,000 rows (best of ROUNDS, alternating the two) and the ratio. Not a test:
no thresholds."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List

import httpx

import acd

ROWS = [{"id": i, "name": f"row-{i:04d}", "total": i * 1.5, "status": "shipped" if i % 3 else "open"}
        for i in range(1, 5001)]
PAGE = 100
KEY = "acd_live_demo_ada"
RAISED = {"requests": 1_000_000, "window_ms": 60_000}
# The per-user table reads stay the tightest limit, so the rate-limit headers
# describe it and the client learns its raised quota from the first page.
CONFIG = {"tables": [{"id": "big", "owner": "ada", "records": ROWS}],
          "limits": {"credential": RAISED, "client_ip": RAISED},
          "extra_limits": {"user_table_reads": {"requests": 500_000, "window_ms": 60_000}}}


def plain(url: str, http: httpx.Client) -> List[Dict[str, Any]]:
    """The same requests and JSON parsing as the easy path, by hand."""
    rows: List[Dict[str, Any]] = []
    offset = 0
    while True:
        reply = http.get(f"{url}/api/v1/tables/big", params={"limit": PAGE, "offset": offset} if offset else
                         {"limit": PAGE}, headers={"X-API-Key": KEY, "Accept": "application/json"})
        reply.raise_for_status()
        page: List[Dict[str, Any]] = json.loads(reply.content)["data"]
        rows.extend(page)
        if len(page) < PAGE:
            return rows
        offset += PAGE


def best_ms(rounds: List[float]) -> float:
    return min(rounds) * 1000


def main() -> None:
    binary = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as config:
        json.dump(CONFIG, config)
    process = subprocess.Popen([binary, "--listen", "127.0.0.1:0", "--log", "off", "--config", config.name],
                               stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split()[-1]
        waits: List[str] = []
        http = httpx.Client()
        api = acd.HttpClient(KEY, base_url=url, http_client=http,
                             on_event=lambda e: waits.append(e["type"]) if e["type"] == "waiting" else None)
        api.index()  # as a user would: the client learns the advertised (raised) limit
        easy_path: Callable[[], List[Dict[str, Any]]] = lambda: list(api.tables.iter("big", page_size=PAGE))
        times: Dict[str, List[float]] = {"easy": [], "plain": []}
        for _ in range(rounds):
            for name, run in (("easy", easy_path), ("plain", lambda: plain(url, http))):
                started = time.perf_counter()
                rows = run()
                times[name].append(time.perf_counter() - started)
                assert len(rows) == len(ROWS), (name, len(rows))
        easy, base = best_ms(times["easy"]), best_ms(times["plain"])
        print(f"python: 5000 rows in pages of {PAGE}: easy path {easy:.1f} ms, plain httpx loop {base:.1f} ms, "
              f"ratio {easy / base:.2f}x ({(easy - base) * 1000 / (len(ROWS) // PAGE + 1):.0f} us more per page; "
              f"{len(waits)} waits)")
        api.close()
        http.close()
    finally:
        process.terminate()
        process.wait()
        os.unlink(config.name)


if __name__ == "__main__":
    main()
