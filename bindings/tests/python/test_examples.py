"""The examples run as printed: the README's "Python in 5 minutes" block is
the quickstart file, and against acd-sandbox with its demo data
(``ACD_DEMO_SANDBOX_URL``)
it prints exactly what the README says."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional

import pytest

BINDINGS = Path(__file__).resolve().parents[2]
EXAMPLES = BINDINGS / "examples" / "python"
README = (BINDINGS / "README.md").read_text(encoding="utf-8")
SANDBOX = os.environ.get("ACD_DEMO_SANDBOX_URL")


def blocks(language: str) -> List[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", README, flags=re.S | re.M)


def run(path: Path, *args: str, env: Optional[Dict[str, str]] = None) -> str:
    return subprocess.run([sys.executable, str(path), *args], check=True, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}).stdout


def test_the_readme_example_is_the_quickstart_file() -> None:
    assert blocks("python")[0] == (EXAMPLES / "quickstart.py").read_text(encoding="utf-8")


def test_the_readme_installs_first() -> None:
    commands = re.findall(r"^ *```sh\n(.*?)^ *```", README, flags=re.S | re.M)
    assert "pip install './bindings[httpx]'" in commands[0]


@pytest.mark.skipif(SANDBOX is None, reason="needs acd-sandbox with its demo data (ACD_DEMO_SANDBOX_URL)")
def test_the_quickstart_prints_what_the_readme_says_against_the_sandbox() -> None:
    assert SANDBOX is not None
    printed = run(EXAMPLES / "quickstart.py", env={"ACD_BASE_URL": SANDBOX, "ACD_API_KEY": "acd_live_demo_ada"})
    assert printed == blocks("text")[0]


def test_the_virtual_time_example_runs() -> None:
    assert run(EXAMPLES / "virtual_time.py") == "23 rows in 12 requests, no 429, 2 waits for the window\n"


def test_the_gate_quickstart_runs() -> None:
    assert run(EXAMPLES / "gate_quickstart.py") == '200 {"data":[{"id":1}]}\n'
