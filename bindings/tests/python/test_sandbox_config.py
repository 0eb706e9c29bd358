"""One configuration dialect: ``sandbox/examples/gate-config.json`` is read
by ``acd-sandbox --config`` (``sandbox/tests/config_dialect.rs``) and by
``GateConfig.from_json`` here, with the same names and units."""
from __future__ import annotations

import json
from pathlib import Path

import acd

SHARED = Path(__file__).resolve().parents[3] / "sandbox" / "examples" / "gate-config.json"


def test_the_sandbox_config_file_is_a_gate_config() -> None:
    config = acd.GateConfig.from_json(SHARED.read_text(encoding="utf-8"))
    written = json.loads(config.to_json())
    assert written["limits"]["credential"] == {"requests": 3, "window_ms": 2000}
    assert written["limits"]["client_ip"] == {"requests": 50, "window_ms": 60000}
    index = json.loads(acd.Gate.demo(config).index_json())
    assert index["name"] == "Shared-config sandbox"
    assert index["rate_limits"]["requests"] == 3
    assert index["rate_limits"]["window_seconds"] == 2
    assert index["onboarding"]["trial"]["duration_days"] == 7
