"""The run poller from Python, in virtual time: about once per second until
a terminal state, and a typed failure for a run without a state."""
from __future__ import annotations

from typing import List, Tuple

import acd

START = 1_700_000_000_000


def client() -> acd.Client:
    config = acd.ClientConfig().with_credential("main", acd.CredentialKind.API_KEY, "acd_live_demo_ada", "ada")
    return acd.Client(config.with_get_run())


def run_spec() -> acd.RequestSpec:
    return acd.RequestSpec(operation="getRun", path=[acd.PathParam(name="run_id", value="r1")], query=[],
                           roles=[], credential=None, egress=acd.EgressMode.DEFAULT, body=None,
                           idempotency_key=None)


def poll(bodies: List[bytes]) -> Tuple[List[Tuple[int, str, bool]], acd.RunPoller]:
    the_client, poller = client(), acd.RunPoller(run_spec(), None)
    now = START
    seen: List[Tuple[int, str, bool]] = []
    replies = iter(bodies)
    while True:
        step = poller.poll(the_client, now)
        if isinstance(step, acd.Step.DONE):
            return seen, poller
        if isinstance(step, acd.Step.WAIT_UNTIL):
            now = step.at_ms
            continue
        assert isinstance(step, acd.Step.SEND)
        assert step.request.url() == "http://127.0.0.1:8080/api/v1/runs/r1"
        reply = acd.HttpResponse(status=200, headers=[], body=next(replies))
        event = poller.handle(the_client, acd.Outcome.RESPONSE(response=reply), now)
        if isinstance(event, acd.PollEvent.STATUS):
            seen.append((now - START, event.state, event.terminal))
        else:
            assert isinstance(event, acd.PollEvent.FAILED)
            seen.append((now - START, event.failure.kind, True))


def test_polls_about_once_per_second_until_a_terminal_state() -> None:
    bodies = [b'{"data":{"status":"queued"}}', b'{"data":{"status":"running"}}',
              b'{"data":{"status":"succeeded","output":42}}']
    seen, poller = poll(bodies)
    # 1 s ± 10 % jitter from the client's seeded random source (seed 0):
    # virtual instants, the same on every machine and in every language.
    assert seen == [(0, "queued", False), (1_077, "running", False), (2_063, "succeeded", True)]
    assert poller.polls() == 3 and poller.is_finished()


def test_a_run_without_a_state_is_a_failure_value() -> None:
    seen, _ = poll([b'{"data":{"output":1}}'])
    assert seen == [(0, "protocol", True)]


def test_bad_poll_options_are_a_config_error() -> None:
    try:
        acd.RunPoller(run_spec(), '{"interval": 5}')
    except acd.AcdError.Config as error:
        assert str(error).startswith("poll options JSON: unknown field `interval`")
    else:
        raise AssertionError("expected AcdError.Config")
