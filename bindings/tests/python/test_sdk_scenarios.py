"""The SDK conformance kit (``tests/vectors/sdk-scenarios.json``) through the
public facades: ``acd.HttpClient`` (every scenario whose steps hold one
call each, as Kotlin's Java futures replay them: a clock that moves when
every thread waits in it cannot see threads waiting on the client's own
lock; threads sharing one client are tested against the sandbox's manual
clock in test_sandbox_clock.py) and ``acd.AsyncHttpClient`` (the
calls of a step in ``asyncio.gather``, on an event loop in virtual time),
each over an ``httpx`` client whose ``MockTransport`` plays the scenario's
server: answers, delays, refused and reset connections, timeouts raised as
httpx raises them. A scenario listed in the kit's ``known_failures`` for the
language is an expected failure naming its issue item, and fails once it
passes (so the entry is removed)."""
from __future__ import annotations

import asyncio
import threading
from typing import Any, Dict, List

import httpx
import pytest

import acd
from sdk_kit import (SCENARIOS, Outcome, Report, Script, ThreadClock, VirtualLoop, client_settings, known_failure,
                     outcome_problems, read_timeout, request_problems, response_of)

NAMES = [scenario["name"] for scenario in SCENARIOS]
SERIAL = [scenario for scenario in SCENARIOS if all(len(step["calls"]) == 1 for step in scenario["steps"])]


def call_options(call: Dict[str, Any]) -> Dict[str, Any]:
    """The per-call keyword arguments of a kit call (seconds, as the package speaks)."""
    options = call.get("options", {})
    kwargs: Dict[str, Any] = {}
    if "timeout_ms" in options:
        kwargs["timeout"] = options["timeout_ms"] / 1000
    if "max_attempts" in options:
        kwargs["max_attempts"] = options["max_attempts"]
    return kwargs


def retry_policy(settings: Dict[str, Any]) -> acd.RetryPolicy:
    """The kit client's backoff as a retry policy."""
    return acd.RetryPolicy(backoff_base=settings["backoff_base_ms"] / 1000,
                           backoff_cap=settings["backoff_cap_ms"] / 1000)


def verdict(language: str, scenario: Dict[str, Any], report: Report) -> None:
    """Fails (or marks the known failure) with every difference found."""
    problems = request_problems(scenario, report.sent) + outcome_problems(scenario, report.outcomes, language)
    issue = known_failure(language, scenario["name"])
    if issue is not None and problems:
        pytest.xfail(f"{issue}: " + "; ".join(problems))
    if issue is not None:
        pytest.fail(f"passes, but is listed in known_failures.{language}: remove the entry")
    assert not problems, "\n".join(problems)


# --- synchronous: acd.HttpClient --------------------------------------------------------------


def invoke_sync(api: acd.HttpClient, call: Dict[str, Any]) -> Any:
    """Calls the kit method of ``call`` on ``api``."""
    args, options, method = call["args"], call_options(call), call["method"]
    if method == "tables.read":
        return api.tables.read(args["table"], page_size=args["page_size"], **options)
    if method == "tables.pages":
        return list(api.tables.pages(args["table"], page_size=args["page_size"], **options))
    if method == "connections.read":
        return api.connections.read(args["connection"], args["entity"], page_size=args["page_size"], **options)
    if method == "runs.create":
        return api.runs.create(args["agent_id"], input=args["input"], **options)
    if method == "runs.wait":
        return api.runs.wait(args["run_id"], **options)
    if method == "index":
        return api.index(**options)
    raise AssertionError(f"unknown kit method {method}")


def replay_sync(scenario: Dict[str, Any]) -> Report:
    settings = client_settings(scenario)
    clock = ThreadClock(scenario["start_ms"])
    script = Script(scenario, settings["base_url"], clock.now)

    def handler(request: httpx.Request) -> httpx.Response:
        answer = script.take(request)
        fail, delay, limit = answer.get("fail"), answer.get("delay_ms", 0) / 1000, read_timeout(request)
        if fail == "refuse":
            raise httpx.ConnectError("[Errno 111] Connection refused", request=request)
        if fail == "connect_timeout":
            clock.sleep(min(delay, limit))
            raise httpx.ConnectTimeout("timed out", request=request)
        if fail == "timeout" or delay > limit:
            clock.sleep(limit)
            raise httpx.ReadTimeout("timed out", request=request)
        clock.sleep(delay)
        if fail == "reset":
            raise httpx.ReadError("[Errno 104] Connection reset by peer", request=request)
        return response_of(answer)

    exchange = settings["exchange_timeout_ms"] / 1000
    report = Report(sent=script.sent)
    with httpx.Client(transport=httpx.MockTransport(handler), timeout=exchange) as http, \
            acd.HttpClient(api_key=settings["api_key"], base_url=settings["base_url"], seed=settings["seed"],
                           retry=retry_policy(settings), http_client=http, timeout=exchange,
                           clock=clock, sleep=clock.sleep) as api:
        for step in scenario["steps"]:
            clock.now_ms = max(clock.now_ms, step.get("at", clock.now_ms))
            threads: List[threading.Thread] = []
            for call in step["calls"]:
                outcome = report.outcomes[call["id"]] = Outcome()

                def run(call: Dict[str, Any] = call, outcome: Outcome = outcome) -> None:
                    try:
                        outcome.value = invoke_sync(api, call)
                    except Exception as error:  # the outcome under test
                        outcome.error = error
                    finally:
                        outcome.ends_at = clock.now()
                        clock.leave()

                clock.join()
                threads.append(threading.Thread(target=run, daemon=True))
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=120)
                assert not thread.is_alive(), "a call never ended"
    return report


@pytest.mark.parametrize("scenario", SERIAL, ids=[scenario["name"] for scenario in SERIAL])
def test_http_client_replays_the_kit(scenario: Dict[str, Any]) -> None:
    verdict("python_sync", scenario, replay_sync(scenario))


# --- asyncio: acd.AsyncHttpClient -------------------------------------------------------------


async def invoke_async(api: acd.AsyncHttpClient, call: Dict[str, Any]) -> Any:
    """Calls the kit method of ``call`` on ``api``."""
    args, options, method = call["args"], call_options(call), call["method"]
    if method == "tables.read":
        return await api.tables.read(args["table"], page_size=args["page_size"], **options)
    if method == "tables.pages":
        return [page async for page in api.tables.pages(args["table"], page_size=args["page_size"], **options)]
    if method == "connections.read":
        return await api.connections.read(args["connection"], args["entity"], page_size=args["page_size"],
                                          **options)
    if method == "runs.create":
        return await api.runs.create(args["agent_id"], input=args["input"], **options)
    if method == "runs.wait":
        return await api.runs.wait(args["run_id"], **options)
    if method == "index":
        return await api.index(**options)
    raise AssertionError(f"unknown kit method {method}")


async def replay_async_in(loop: asyncio.AbstractEventLoop, scenario: Dict[str, Any]) -> Report:
    settings = client_settings(scenario)
    start = int(scenario["start_ms"])

    def now_ms() -> int:
        return start + round(loop.time() * 1000)

    script = Script(scenario, settings["base_url"], now_ms)

    async def handler(request: httpx.Request) -> httpx.Response:
        answer = script.take(request)
        fail, delay, limit = answer.get("fail"), answer.get("delay_ms", 0) / 1000, read_timeout(request)
        if fail == "refuse":
            raise httpx.ConnectError("[Errno 111] Connection refused", request=request)
        if fail == "connect_timeout":
            await asyncio.sleep(min(delay, limit))
            raise httpx.ConnectTimeout("timed out", request=request)
        if fail == "timeout" or delay > limit:
            await asyncio.sleep(limit)
            raise httpx.ReadTimeout("timed out", request=request)
        await asyncio.sleep(delay)
        if fail == "reset":
            raise httpx.ReadError("[Errno 104] Connection reset by peer", request=request)
        return response_of(answer)

    exchange = settings["exchange_timeout_ms"] / 1000
    report = Report(sent=script.sent)
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler), timeout=exchange) as http, \
            acd.AsyncHttpClient(api_key=settings["api_key"], base_url=settings["base_url"], seed=settings["seed"],
                                retry=retry_policy(settings), http_client=http, timeout=exchange,
                                clock=lambda: now_ms() / 1000) as api:
        for step in scenario["steps"]:
            if "at" in step and step["at"] > now_ms():
                await asyncio.sleep((step["at"] - now_ms()) / 1000)

            async def run(call: Dict[str, Any]) -> None:
                outcome = report.outcomes[call["id"]] = Outcome()
                try:
                    outcome.value = await invoke_async(api, call)
                except Exception as error:  # the outcome under test
                    outcome.error = error
                finally:
                    outcome.ends_at = now_ms()

            await asyncio.gather(*(run(call) for call in step["calls"]))
    return report


def replay_async(scenario: Dict[str, Any]) -> Report:
    loop = VirtualLoop()
    try:
        return loop.run_until_complete(replay_async_in(loop, scenario))
    finally:
        loop.close()


@pytest.mark.parametrize("scenario", SCENARIOS, ids=NAMES)
def test_async_http_client_replays_the_kit(scenario: Dict[str, Any]) -> None:
    verdict("python_async", scenario, replay_async(scenario))


def test_the_virtual_loop_passes_concurrent_sleeps_once() -> None:
    """The async replay's clock: two tasks sleeping 10 s together end at 10 s, not 20 s."""
    loop = VirtualLoop()
    try:
        async def both() -> float:
            await asyncio.gather(asyncio.sleep(10), asyncio.sleep(10))
            return loop.time()

        assert loop.run_until_complete(both()) == 10.0
    finally:
        loop.close()


def test_the_thread_clock_passes_concurrent_sleeps_once() -> None:
    """The sync replay's clock: two threads sleeping 10 s together end at +10 s, not +20 s."""
    clock = ThreadClock(1_000)
    ends: List[int] = []

    def sleeper() -> None:
        clock.sleep(10)
        ends.append(clock.now())
        clock.leave()

    threads = [threading.Thread(target=sleeper) for _ in range(2)]
    for thread in threads:
        clock.join()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert ends == [11_000, 11_000]
