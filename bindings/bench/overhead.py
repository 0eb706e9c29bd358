"""Python side of the overhead measurement (bindings/bench/run): one client
``plan`` + ``interpret`` round trip through the installed ``acd`` wheel, and
one gate ``decide`` of a public request. Prints microseconds per call;
best of five runs, so a busy machine inflates it as little as possible."""
from __future__ import annotations

import sys
import time

import acd

NOW = 1_700_000_000_000
BODY = b'{"data":[{"id":1,"name":"first"},{"id":2,"name":"second"}]}'


def best_of(runs: int, iterations: int, body: "callable[[], None]") -> float:  # type: ignore[valid-type]
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter_ns()
        for _ in range(iterations):
            body()
        best = min(best, (time.perf_counter_ns() - started) / iterations)
    return best


def main() -> None:
    iterations = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    config = acd.ClientConfig().with_credential("main", acd.CredentialKind.API_KEY, "acd_live_demo_ada", "ada")
    client = acd.Client(config)
    request = client.build(acd.spec_list_table_records("orders"))
    headers = [acd.ResponseHeader(name=n, value=v) for n, v in [
        ("Content-Type", "application/json"), ("RateLimit-Limit", "5"),
        ("RateLimit-Remaining", "4"), ("RateLimit-Reset", "60")]]
    response = acd.HttpResponse(status=200, headers=headers, body=BODY)

    def round_trip() -> None:
        client.plan(request, NOW)
        client.interpret(request, response)

    gate = acd.Gate.demo(acd.GateConfig())
    index = acd.gate_request("/api/v1", client_ip="198.51.100.9")

    def decide() -> None:
        gate.decide(index, NOW)

    ns = best_of(5, iterations, round_trip)
    print(f"python: {ns / 1000:.2f} us per plan+interpret")
    print(f"python: {best_of(5, iterations // 4, decide) / 1000:.2f} us per gate decide (index)")


if __name__ == "__main__":
    main()
