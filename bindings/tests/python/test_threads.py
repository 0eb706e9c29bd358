"""One gate shared by many Python threads: every decision is counted once,
so exactly the limit is admitted whatever the interleaving."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from collections import Counter
from typing import List

from acd import ffi as acd

NOW = 1_700_000_000_000
THREADS = 8
PER_THREAD = 50


def test_many_threads_share_one_gate_and_its_limits() -> None:
    gate = acd.Gate.demo(acd.GateConfig())

    def worker(number: int) -> List[int]:
        statuses = []
        for _ in range(PER_THREAD):
            request = acd.gate_request("/api/v1", client_ip="198.51.100.1")
            decision = gate.decide(request, NOW)
            assert isinstance(decision, acd.Decision.RESPOND)
            statuses.append(decision.response.status)
        return statuses

    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        results = list(pool.map(worker, range(THREADS)))
    counts = Counter(status for statuses in results for status in statuses)
    assert counts == Counter({200: 100, 429: THREADS * PER_THREAD - 100})


def test_admitted_requests_are_answered_from_other_threads() -> None:
    gate = acd.Gate.demo(acd.GateConfig())
    admitted = []
    for number in range(40):
        request = acd.gate_request(f"/api/v1/connections/c{number}/records?entity_id=e",
                                   client_ip="198.51.100.2", headers=[("X-API-Key", "acd_live_demo_bob")])
        decision = gate.decide(request, NOW)
        assert isinstance(decision, acd.Decision.RESOLVE)
        admitted.append(decision.admitted)

    def answer(item: acd.Admitted) -> bytes:
        return item.respond(acd.ResourceAnswer.FOUND(payload=b"[1]")).body

    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        bodies = list(pool.map(answer, admitted))
    assert bodies == [b"[1]"] * 40
