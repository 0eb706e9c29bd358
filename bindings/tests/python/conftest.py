"""Shared fixtures of the Python suite: where the conformance vectors are,
and a guard that ``acd`` comes from the installed wheel, not the source tree."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List

import pytest

REPO = Path(__file__).resolve().parents[3]
VECTORS = Path(os.environ.get("ACD_VECTORS_DIR", REPO / "tests" / "vectors"))


def vector_files(prefix: str) -> List[Path]:
    """Every ``tests/vectors/<prefix>*.json``, sorted by name."""
    return sorted(VECTORS.glob(f"{prefix}*.json"))


def load(path: Path) -> Dict[str, Any]:
    with path.open(encoding="utf-8") as handle:
        data: Dict[str, Any] = json.load(handle)
    return data


@pytest.fixture(scope="session", autouse=True)
def installed_wheel() -> None:
    import acd

    location = Path(acd.__file__).resolve()
    assert "site-packages" in location.parts, f"acd imported from {location}, not a wheel"
