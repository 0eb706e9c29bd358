"""Unit-testing rate-limit handling without a server or real sleeping: the
client reads 23 rows through the in-process gate of ``acd.testing`` (5 reads
per 3 s for the user), in virtual time."""
from __future__ import annotations

import acd
from acd.testing import DEMO_API_KEY, GateTransport, VirtualClock

clock = VirtualClock(start=1_700_000_001.0)  # on a 3 s window boundary
rows = [{"id": i} for i in range(1, 24)]
gate = GateTransport(clock, tables={"orders": rows}, limits={"user_table_reads": {"requests": 5, "window_ms": 3_000}})
with acd.HttpClient(DEMO_API_KEY, seed=1, http_client=gate, clock=clock, sleep=clock.sleep) as api:
    read = list(api.tables.iter("orders", page_size=2))
assert read == rows and 429 not in gate.statuses
assert clock.elapsed >= 6.0  # reads 11 and 12 wait for the third window (seconds)
print(f"{len(read)} rows in {len(gate.requests)} requests, no 429, {len(clock.sleeps)} waits for the window")
