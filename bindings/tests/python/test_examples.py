"""The examples run as printed: the README's Python block is the quickstart
file, and running it prints exactly what the README says."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BINDINGS = Path(__file__).resolve().parents[2]
README = (BINDINGS / "README.md").read_text(encoding="utf-8")


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


def run(path: Path) -> str:
    return subprocess.run([sys.executable, str(path)], check=True, capture_output=True, text=True).stdout


def test_the_readme_example_is_the_quickstart_file_and_prints_what_it_says() -> None:
    quickstart = BINDINGS / "examples" / "python" / "quickstart.py"
    assert blocks("python")[0] == quickstart.read_text(encoding="utf-8")
    assert run(quickstart) == blocks("text")[0]


def test_the_gate_quickstart_runs() -> None:
    assert run(BINDINGS / "examples" / "python" / "gate_quickstart.py") == '200 {"data":[{"id":1}]}\n'
