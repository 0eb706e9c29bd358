"""The client role against the gate, in one process and in virtual time:
the gate plays the API (a Python test double), the client's pager reads a
table through it while honouring the throttle, so no 429 is ever seen."""
from __future__ import annotations

import json
from typing import List, Tuple

import acd

START = 1_700_000_000_000
BASE = "http://127.0.0.1:8080"
ROWS = [{"id": n, "name": f"row {n}"} for n in range(1, 14)]


def serve(gate: acd.Gate, request: acd.ClientRequest, now: int) -> acd.HttpResponse:
    """The test double's transport: the client's request through the gate."""
    url = request.url()
    assert url.startswith(BASE)
    headers = [(h.name, h.value) for h in request.headers()]
    decision = gate.decide(acd.gate_request(url[len(BASE):], client_ip="192.0.2.10", headers=headers), now)
    if isinstance(decision, acd.Decision.RESOLVE):
        offset, limit = decision.admitted.offset() or 0, decision.admitted.limit() or 0
        payload = json.dumps(ROWS[offset:offset + limit], separators=(",", ":")).encode()
        response = decision.admitted.respond(acd.ResourceAnswer.FOUND(payload=payload))
    else:
        assert isinstance(decision, acd.Decision.RESPOND)
        response = decision.response
    return acd.HttpResponse(status=response.status, headers=response.headers, body=response.body)


def read_table(page_size: int) -> Tuple[List[object], List[int], int]:
    gate = acd.Gate.demo(acd.GateConfig())
    config = acd.ClientConfig().with_credential("main", acd.CredentialKind.API_KEY, "acd_live_demo_ada", "ada")
    client = acd.Client(config)
    pager = acd.Pager.table("orders", acd.TablePagerOptions(
        page_size=page_size, order_by=None, descending=False, offset_only=False, credential=None))
    now = START
    rows: List[object] = []
    statuses: List[int] = []
    while True:
        step = pager.poll(client, now)
        if isinstance(step, acd.Step.DONE):
            break
        if isinstance(step, acd.Step.WAIT_UNTIL):
            now = step.at_ms  # virtual time: no sleeping
            continue
        assert isinstance(step, acd.Step.SEND)  # the pager has counted the send
        response = serve(gate, step.request, now)
        statuses.append(response.status)
        now += 20
        event = pager.handle(client, acd.Outcome.RESPONSE(response=response), now)
        assert isinstance(event, acd.PagerEvent.PAGE), event
        rows.extend(json.loads(record) for record in event.records)
    return rows, statuses, now - START


def test_the_pager_reads_every_row_and_waits_instead_of_meeting_429() -> None:
    rows, statuses, elapsed = read_table(page_size=2)
    assert rows == ROWS
    assert statuses == [200] * 7
    # 5 table reads per user per minute: the 6th page waits until the window
    # the headers announced has surely ended (it closed 40 s after the first
    # read; the client counts from the answers, 20 ms later each).
    assert elapsed == 40_140


def test_a_single_short_page_finishes_at_once() -> None:
    rows, statuses, elapsed = read_table(page_size=100)
    assert (rows, statuses, elapsed) == (ROWS, [200], 20)
