"""``acd.testing.simulate``: the core's client × gate simulation from Python,
in virtual time, with a report to assert on."""
from __future__ import annotations

import pytest

import acd
from acd.testing import simulate

ADA = {"id": "main", "kind": "api_key", "secret": "acd_live_demo_ada", "user": "ada"}


def test_one_client_reads_23_rows_in_5_pages_without_a_429() -> None:
    report = simulate({
        "seed": 3,
        "dataset": {"tables": {"orders": [{"id": i} for i in range(1, 24)]}, "connections": {}, "runs": {}},
        "clients": [{"name": "ada", "config": {"credentials": [ADA]},
                     "tasks": [{"type": "table", "table": "orders", "options": {"page_size": 5}}]}],
    })
    assert report["completed"] is True
    assert report["violations"] == []
    assert report["responses_429"] == 0
    assert report["requests_sent"] == 5  # pages of 5, 5, 5, 5, 3
    # The per-user limit is 5 reads per 60 s: all five fit in the first window.
    assert report["elapsed_ms"] < 60_000


def test_the_same_seed_gives_the_same_report() -> None:
    config = {"seed": 9, "dataset": {"tables": {"t": [{"id": i} for i in range(1, 40)]}, "connections": {}, "runs": {}},
              "clients": [{"name": "ada", "config": {"credentials": [ADA]},
                           "tasks": [{"type": "table", "table": "t", "options": {"page_size": 3}}]}]}
    assert simulate(config) == simulate(config)


def test_a_malformed_configuration_raises_config_error_naming_the_member() -> None:
    with pytest.raises(acd.ConfigError, match="clients"):
        simulate({"clients": "nobody"})
