"""pytest fixtures for code that uses ``acd``: a real ``acd-sandbox`` per test.

The wheel registers this module as a pytest plugin (entry point ``pytest11``,
name ``acd``), so a project that installs ``acd`` gets the ``acd_sandbox``
fixture with nothing to import::

    def test_reads_every_order(acd_sandbox):
        with acd.HttpClient(acd_sandbox.api_key, base_url=acd_sandbox.url,
                            clock=acd_sandbox.clock, sleep=acd_sandbox.clock.sleep) as api:
            assert len(list(api.tables.iter("orders"))) == 3

The fixture starts the shipped ``acd-sandbox`` binary (``ACD_SANDBOX_BIN``,
else ``acd-sandbox`` on ``PATH``) on a free loopback port with the manual
clock (``--clock manual``, which also turns the admin routes on), reads the
address from its banner, and stops it after the test. A test chooses the
data and flags with a marker::

    @pytest.mark.acd_sandbox(config={"tables": [...]}, args=["--faults"])

:func:`start_sandbox` does the same outside a fixture (a context manager).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import threading
import urllib.parse
import urllib.request
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence

import pytest

from .testing import DEMO_API_KEY, SandboxClock

__all__ = ["Sandbox", "start_sandbox", "sandbox_binary", "acd_sandbox"]

#: The first line ``acd-sandbox`` prints once it listens.
BANNER = "acd-sandbox listening on "


def sandbox_binary() -> str:
    """The ``acd-sandbox`` to start: ``ACD_SANDBOX_BIN``, else the one on ``PATH``."""
    named = os.environ.get("ACD_SANDBOX_BIN")
    if named:
        return named
    found = shutil.which("acd-sandbox")
    if found is None:
        raise RuntimeError(
            "the acd_sandbox fixture needs the acd-sandbox binary: put it on PATH "
            "or name it in ACD_SANDBOX_BIN"
        )
    return found


class Sandbox:
    """A running ``acd-sandbox``: its :attr:`url`, its manual :attr:`clock`
    and its admin routes (:meth:`advance`, :meth:`reset`, :meth:`requests`)."""

    #: The published demo key the sandbox's default data accepts.
    api_key: str = DEMO_API_KEY

    def __init__(self, process: "subprocess.Popen[str]", url: str, stderr: Any, directory: str) -> None:
        self._process = process
        self._stderr = stderr
        self._directory = directory
        #: The base URL, ``http://127.0.0.1:PORT``.
        self.url = url
        #: The sandbox's clock (``clock()``, ``clock.sleep``, ``clock.advance``).
        self.clock = SandboxClock(url)

    def __repr__(self) -> str:
        return f"Sandbox({self.url!r})"

    def _admin(self, method: str, path: str, body: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method)
        if method == "POST":
            request.add_header("Content-Type", "application/json")
            if data is None:
                request.data = b""
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310 (loopback)
            answer: Dict[str, Any] = json.loads(response.read() or b"{}")
            return answer

    def advance(self, seconds: float) -> float:
        """Moves the sandbox's clock ``seconds`` forward; the new time (Unix seconds)."""
        return self.clock.advance(seconds)

    def reset(self) -> Dict[str, Any]:
        """Clears every rate-limit counter and every run (``POST /_sandbox/reset``)."""
        return self._admin("POST", "/_sandbox/reset")

    def requests(self, path: Optional[str] = None) -> List[Dict[str, Any]]:
        """The requests the sandbox recorded, oldest first (``GET /_sandbox/requests``),
        only those whose path matches ``path`` (a pattern) when given."""
        query = "" if path is None else "?" + urllib.parse.urlencode({"path": path})
        recorded: List[Dict[str, Any]] = self._admin("GET", "/_sandbox/requests" + query)["requests"]
        return recorded

    def stop(self) -> None:
        """Stops the sandbox (SIGTERM, then SIGKILL after 10 s)."""
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._stderr.close()
        shutil.rmtree(self._directory, ignore_errors=True)


def start(config: Optional[Mapping[str, Any]] = None, args: Sequence[str] = ()) -> Sandbox:
    """Starts ``acd-sandbox --listen 127.0.0.1:0 --clock manual`` with ``config``
    (the sandbox's configuration, as JSON) and ``args``; stop it with :meth:`Sandbox.stop`."""
    command = [sandbox_binary(), "--listen", "127.0.0.1:0", "--log", "off"]
    if "--clock" not in args:
        command += ["--clock", "manual"]
    directory = tempfile.mkdtemp(prefix="acd-sandbox-")
    if config is not None:
        path = os.path.join(directory, "sandbox.json")
        with open(path, "w", encoding="utf-8") as file:
            json.dump(config, file)
        command += ["--config", path]
    command += list(args)
    stderr = tempfile.TemporaryFile("w+", encoding="utf-8")
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line.startswith(BANNER):
        process.kill()
        process.wait()
        shutil.rmtree(directory, ignore_errors=True)
        stderr.seek(0)
        raise RuntimeError(f"acd-sandbox did not start ({' '.join(command)}): {stderr.read().strip() or line!r}")
    # The rest of the banner (and anything later) is drained so the pipe never fills.
    threading.Thread(target=process.stdout.read, daemon=True).start()
    return Sandbox(process, line[len(BANNER):].strip(), stderr, directory)


class start_sandbox:  # noqa: N801 (used as a function: `with start_sandbox(...) as sandbox`)
    """``with start_sandbox(config, args) as sandbox:`` a sandbox for the block."""

    def __init__(self, config: Optional[Mapping[str, Any]] = None, args: Sequence[str] = ()) -> None:
        self._sandbox = start(config, args)

    def __enter__(self) -> Sandbox:
        return self._sandbox

    def __exit__(self, *exc: object) -> None:
        self._sandbox.stop()


def pytest_configure(config: pytest.Config) -> None:
    """Registers the ``acd_sandbox`` marker."""
    config.addinivalue_line(
        "markers",
        "acd_sandbox(config=None, args=()): the acd_sandbox fixture's configuration (JSON) and extra flags",
    )


@pytest.fixture()
def acd_sandbox(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    """A real ``acd-sandbox`` on a free port with the manual clock, stopped after the test."""
    marker = request.node.get_closest_marker("acd_sandbox")
    options: Dict[str, Any] = dict(marker.kwargs) if marker is not None else {}
    sandbox = start(options.get("config"), options.get("args", ()))
    try:
        yield sandbox
    finally:
        sandbox.stop()
