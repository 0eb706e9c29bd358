"""The SDK conformance kit's test helpers (``tests/vectors/sdk-scenarios.json``):
the scripted server behind an ``httpx.MockTransport``, the virtual clocks
(an asyncio event loop whose time is virtual, and a clock for threads that
moves only when every thread of a step waits), and the checks of the
expected requests and outcomes. ``test_sdk_scenarios.py`` drives the public
facades with them."""
from __future__ import annotations

import asyncio
import json
import math
import selectors
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Deque, Dict, List, Optional, Tuple

import httpx

from conftest import VECTORS, load

KIT: Dict[str, Any] = load(VECTORS / "sdk-scenarios.json")
SCENARIOS: List[Dict[str, Any]] = KIT["scenarios"]


def client_settings(scenario: Dict[str, Any]) -> Dict[str, Any]:
    """The file's ``client`` member with the scenario's own on top."""
    return {**KIT["client"], **scenario.get("client", {})}


def known_failure(language: str, name: str) -> Optional[str]:
    """The issue item a known failure of ``name`` in ``language`` names, if listed."""
    for entry in KIT["known_failures"].get(language, []):
        if entry["scenario"] == name:
            return str(entry["issue"])
    return None


@dataclass
class Sent:
    """One request the scripted server received."""

    at: int
    method: str
    url: str
    headers: Dict[str, str]
    body: Any


@dataclass
class Outcome:
    """How one call ended."""

    value: Any = None
    error: Optional[BaseException] = None
    ends_at: Optional[int] = None


class Script:
    """The scenario's server: answers by route, in arrival order; records every request."""

    def __init__(self, scenario: Dict[str, Any], base_url: str, now_ms: Any) -> None:
        self._routes: Dict[str, Deque[Dict[str, Any]]] = {
            route: deque(answers) for route, answers in scenario["server"].items()}
        self._base = base_url
        self._now_ms = now_ms
        self.sent: List[Sent] = []

    def take(self, request: httpx.Request) -> Dict[str, Any]:
        """Records ``request`` and returns its scripted answer (599 when none is left)."""
        url = str(request.url)
        relative = url[len(self._base):] if url.startswith(self._base) else url
        content = request.read()
        self.sent.append(Sent(self._now_ms(), request.method, relative,
                              {name.lower(): value for name, value in request.headers.items()},
                              json.loads(content) if content else None))
        answers = self._routes.get(f"{request.method} {relative}")
        if not answers:
            return {"status": 599, "headers": [], "body": None}
        return answers.popleft()


def response_of(answer: Dict[str, Any]) -> httpx.Response:
    """The httpx response of a scripted answer."""
    body = b"" if answer.get("body") is None else json.dumps(answer["body"]).encode("utf-8")
    return httpx.Response(answer["status"], headers=[(n, v) for n, v in answer["headers"]], content=body)


def read_timeout(request: httpx.Request) -> float:
    """The read timeout httpx was given for ``request`` (seconds)."""
    timeout = request.extensions.get("timeout", {})
    value = timeout.get("read") if isinstance(timeout, dict) else None
    return float(value) if value is not None else math.inf


# --- virtual time for asyncio -------------------------------------------------------------


class _JumpSelector(selectors.SelectSelector):
    """A selector that, asked to wait, moves virtual time by the wait instead."""

    def __init__(self) -> None:
        super().__init__()
        self.virtual = 0.0

    def select(self, timeout: Optional[float] = None) -> List[Tuple[selectors.SelectorKey, int]]:
        if timeout is None:
            raise RuntimeError("virtual time: every task waits and no timer is set")
        self.virtual += max(0.0, timeout)
        return super().select(0)


class VirtualLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock starts at 0 and jumps to the next timer
    whenever nothing is ready: asyncio's own sleeps and timeouts run in
    virtual time, and concurrent sleeps to one instant pass it once."""

    def __init__(self) -> None:
        self._jump = _JumpSelector()
        super().__init__(self._jump)

    def time(self) -> float:
        return self._jump.virtual


# --- virtual time for threads -------------------------------------------------------------


class ThreadClock:
    """A clock in Unix seconds for a synchronous client shared by threads:
    ``sleep`` blocks its thread until the clock reaches its end, and the
    clock moves (to the earliest end asked for) only when every thread taking
    part waits in ``sleep``."""

    def __init__(self, start_ms: int) -> None:
        self.now_ms = start_ms
        self._cond = threading.Condition()
        self._active = 0
        self._wakes: List[int] = []

    def __call__(self) -> float:
        return self.now_ms / 1000

    def now(self) -> int:
        """The current instant, Unix ms."""
        return self.now_ms

    def join(self) -> None:
        """A thread starts taking part."""
        with self._cond:
            self._active += 1

    def leave(self) -> None:
        """A thread stops taking part."""
        with self._cond:
            self._active -= 1
            self._move()

    def _move(self) -> None:
        if self._active > 0 and len(self._wakes) >= self._active:
            self.now_ms = max(self.now_ms, min(self._wakes))
            self._cond.notify_all()

    def sleep(self, seconds: float) -> None:
        """Waits ``seconds`` of virtual time (rounded up to whole ms)."""
        wake = self.now_ms + max(0, math.ceil(seconds * 1000 - 1e-6))
        with self._cond:
            self._wakes.append(wake)
            self._move()
            while self.now_ms < wake:
                if not self._cond.wait(timeout=30):
                    raise RuntimeError("virtual time: no thread moved the clock for 30 s")
            self._wakes.remove(wake)
            self._move()


# --- checks -------------------------------------------------------------------------------


def within(expected: Any, actual: Optional[int]) -> bool:
    """``actual`` equals ``expected`` or lies in its ``{min, max}``."""
    if actual is None:
        return False
    if isinstance(expected, dict):
        return bool(expected["min"] <= actual <= expected["max"])
    return bool(expected == actual)


def request_problems(scenario: Dict[str, Any], sent: List[Sent]) -> List[str]:
    """Every difference between the requests sent and the expected ones."""
    problems: List[str] = []
    expected = scenario["expect_requests"]
    seen = [f"{r.at} {r.method} {r.url}" for r in sent]
    if len(expected) != len(sent):
        problems.append(f"{len(expected)} requests expected, {len(sent)} sent: {seen}")
    used = [False] * len(sent)
    for want in expected:
        index = next((i for i, r in enumerate(sent) if not used[i] and r.method == want["method"]
                      and r.url == want["url"] and within(want["at"], r.at)), None)
        if index is None:
            problems.append(f"no request matches {want['at']} {want['method']} {want['url']}; sent {seen}")
            continue
        used[index] = True
        request = sent[index]
        for name, value in {**KIT["every_request_headers"], **want.get("headers", {})}.items():
            if request.headers.get(name.lower()) != value:
                problems.append(f"{want['url']}: header {name} is {request.headers.get(name.lower())!r}")
        for name in want.get("absent_headers", []):
            if name.lower() in request.headers:
                problems.append(f"{want['url']}: header {name} should be absent")
        if "body" in want and request.body != want["body"]:
            problems.append(f"{want['url']}: body {request.body!r}, expected {want['body']!r}")
    return problems


def outcome_problems(scenario: Dict[str, Any], outcomes: Dict[str, Outcome], language: str) -> List[str]:
    """Every difference between how the calls ended and the expected outcomes."""
    problems: List[str] = []
    for call, want in scenario["expect"].items():
        got = outcomes[call]
        if "value" in want and (got.error is not None or got.value != want["value"]):
            problems.append(f"{call}: got {got.value!r} / {got.error!r}, expected {want['value']!r}")
        if "error" in want:
            problems += error_problems(call, want["error"], got.error, language)
        if "ends_at" in want and not within(want["ends_at"], got.ends_at):
            problems.append(f"{call}: ended at {got.ends_at}, expected {want['ends_at']}")
    multiset = scenario.get("expect_ends_at", {}).get("multiset")
    if multiset is not None:
        ends = sorted(o.ends_at or 0 for o in outcomes.values())
        if ends != sorted(multiset):
            problems.append(f"calls ended at {ends}, expected {sorted(multiset)}")
    return problems


def error_problems(call: str, want: Dict[str, Any], error: Optional[BaseException], language: str) -> List[str]:
    """Differences between a raised exception and the expected error."""
    if error is None:
        return [f"{call}: no error raised"]
    problems: List[str] = []
    name, expected = type(error).__name__, want["class"][language.split("_")[0]]
    if name != expected:
        problems.append(f"{call}: {name}({error}), expected {expected}")
    category = getattr(error, "category", None)
    if category != want["category"]:
        problems.append(f"{call}: category {category!r}, expected {want['category']!r}")
    status = getattr(error, "status", None)
    if status != want["status"]:
        problems.append(f"{call}: status {status!r}, expected {want['status']!r}")
    if "retry_at" in want:
        retry_at = getattr(error, "retry_at", None)
        ms = None if retry_at is None else round(retry_at * 1000)
        if ms != want["retry_at"]:
            problems.append(f"{call}: retry_at {ms!r} ms, expected {want['retry_at']}")
    for part in want.get("message_contains", []):
        if part not in str(error):
            problems.append(f"{call}: message {str(error)!r} lacks {part!r}")
    return problems


@dataclass
class Report:
    """What one replay saw."""

    sent: List[Sent] = field(default_factory=list)
    outcomes: Dict[str, Outcome] = field(default_factory=dict)
