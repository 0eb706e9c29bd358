"""Reads a table from a running acd-sandbox (or the real API) with the
standard library's urllib as the transport: the pager says what to send and
when, the throttle keeps it under the rate limits (so no 429), the script
sends and sleeps. Usage: read_table.py BASE_URL [TABLE] [PAGE_SIZE]"""
from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request

import acd


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def send(request: acd.ClientRequest) -> acd.HttpResponse:
    """One HTTP exchange; error statuses are responses too, not exceptions."""
    http = urllib.request.Request(request.url(), data=request.body(), method=request.method(),
                                  headers={h.name: h.value for h in request.headers()})
    try:
        with urllib.request.urlopen(http, timeout=30) as reply:
            status, headers, body = reply.status, reply.getheaders(), reply.read()
    except urllib.error.HTTPError as error:
        status, headers, body = error.code, list(error.headers.items()), error.read()
    return acd.HttpResponse(status=status, body=body,
                            headers=[acd.ResponseHeader(name=n, value=v) for n, v in headers])


def main() -> None:
    base_url = sys.argv[1]
    table = sys.argv[2] if len(sys.argv) > 2 else "orders"
    page_size = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    config = acd.ClientConfig.from_json(json.dumps({"base_url": base_url, "stable_egress_url": base_url + "/egress"}))
    client = acd.Client(config.with_credential("main", acd.CredentialKind.API_KEY, "acd_live_demo_ada", "ada"))
    pager = acd.Pager.table(table, acd.TablePagerOptions(
        page_size=page_size, order_by=None, descending=False, offset_only=False, credential=None))
    statuses = []
    while True:
        step = pager.poll(client, now_ms())
        if isinstance(step, acd.Step.DONE):
            break
        if isinstance(step, acd.Step.WAIT_UNTIL):
            time.sleep(max(0, step.at_ms - now_ms()) / 1000)
            continue
        assert isinstance(step, acd.Step.SEND)
        response = send(step.request)
        statuses.append(response.status)
        event = pager.handle(client, acd.Outcome.RESPONSE(response=response), now_ms())
        if isinstance(event, acd.PagerEvent.PAGE):
            for record in event.records:
                print(record)
        elif isinstance(event, acd.PagerEvent.FAILED):
            raise SystemExit(f"paging failed: {event.failure.message}")
    print(f"{pager.pages()} pages, statuses {sorted(set(statuses))}, 429 seen: {429 in statuses}")
    if 429 in statuses:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
