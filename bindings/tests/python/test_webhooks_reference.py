"""Interoperability with the Standard Webhooks reference library (PyPI
``standardwebhooks``), both directions: what the reference library signs
verifies in ``acd.webhooks`` and in ``acd listen`` (the CLI), and what
``acd.webhooks.sign``, ``acd webhooks trigger`` (the CLI) and a real
``acd-sandbox`` (on a manual clock) sign verifies in the reference library.
The reference library reads the wall clock; it is frozen at the signing
time the test chose, so every case is deterministic. (Kotlin and
JavaScript replay the reference library's signatures of
tests/vectors/webhooks.json through their facades, both directions.)"""
from __future__ import annotations

import datetime as dt
import json
import os
import socket
import subprocess
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest
import standardwebhooks
import standardwebhooks.webhooks as reference_module

import acd

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
OTHER = "whsec_" + "c2VjcmV0LWtleS1vZi10aGUtbmV3LWVuZHBvaW50"
AT = 1_700_000_000
BODIES = [
    '{"type":"run.queued","timestamp":"2023-11-14T22:13:20.000Z","data":{"run":{"id":"run_9","status":"queued"}}}',
    '{"type": "run.failed", "timestamp": "2023-11-14T22:13:20Z", "data": {"run": {"id": "r", "status": "failed", "é": "ü"}}}',
    '{"type":"custom.ping","timestamp":"x","data":{}}',
]


def frozen(at: int) -> Any:
    """A ``datetime`` class whose ``now`` is ``at`` (Unix seconds)."""

    class Frozen(dt.datetime):
        @classmethod
        def now(cls, tz: Optional[dt.tzinfo] = None) -> "Frozen":
            return cls.fromtimestamp(at, tz=tz)

    return Frozen


def reference_verify(monkeypatch: pytest.MonkeyPatch, secret: str, body: bytes, headers: Dict[str, str],
                     now: int) -> Any:
    monkeypatch.setattr(reference_module, "datetime", frozen(now))
    return standardwebhooks.Webhook(secret).verify(body, headers)


def reference_sign(secret: str, msg_id: str, at: int, body: str) -> Dict[str, str]:
    signature = standardwebhooks.Webhook(secret).sign(msg_id, dt.datetime.fromtimestamp(at, tz=dt.timezone.utc), body)
    return {"webhook-id": msg_id, "webhook-timestamp": str(at), "webhook-signature": signature}


@pytest.mark.parametrize("body", BODIES)
def test_reference_signatures_verify_in_python(body: str) -> None:
    headers = reference_sign(SECRET, "msg_ref", AT, body)
    event = acd.webhooks.verify(body.encode("utf-8"), headers, [OTHER, SECRET], now=AT + 5)
    assert event.id == "msg_ref" and event.webhook_timestamp == AT
    assert event.type == json.loads(body)["type"]
    with pytest.raises(acd.WebhookVerificationError) as raised:
        acd.webhooks.verify(body.encode("utf-8"), headers, OTHER, now=AT + 5)
    assert raised.value.code == "no_matching_signature"


@pytest.mark.parametrize("body", BODIES)
def test_python_signatures_verify_in_the_reference_library(monkeypatch: pytest.MonkeyPatch, body: str) -> None:
    signed = acd.webhooks.sign(body, [OTHER, SECRET], id="msg_py", timestamp=AT)
    assert reference_verify(monkeypatch, SECRET, signed.body, signed.headers, AT + 5) == json.loads(body)
    assert reference_verify(monkeypatch, OTHER, signed.body, signed.headers, AT + 5) == json.loads(body)
    with pytest.raises(standardwebhooks.WebhookVerificationError):
        reference_verify(monkeypatch, SECRET, signed.body + b" ", signed.headers, AT + 5)


# --- the sandbox and the CLI: real processes and a loopback receiver ---

Received = Tuple[bytes, Dict[str, str]]


class Receiver:
    """A loopback HTTP endpoint recording every POST (body, headers) and
    answering 204."""

    def __init__(self) -> None:
        self.received: List[Received] = []
        self.arrived = threading.Condition()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with owner.arrived:
                    owner.received.append((body, {k.lower(): v for k, v in self.headers.items()}))
                    owner.arrived.notify_all()
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, count: int, timeout: float = 30.0) -> List[Received]:
        with self.arrived:
            assert self.arrived.wait_for(lambda: len(self.received) >= count, timeout), self.received
            return list(self.received)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    endpoint = Receiver()
    yield endpoint
    endpoint.close()


def binary(name: str) -> Path:
    sandbox = os.environ.get("ACD_SANDBOX_BIN")
    if not sandbox:
        pytest.skip("ACD_SANDBOX_BIN is not set (scripts/test-python sets it)")
    path = Path(sandbox).with_name(name)
    if not path.exists():
        pytest.skip(f"{path} was not built")
    return path


def http(method: str, url: str, body: bytes = b"", headers: Optional[Dict[str, str]] = None) -> Tuple[int, bytes]:
    request = urllib.request.Request(url, data=body if method != "GET" else None, method=method,
                                     headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_sandbox_deliveries_verify_in_the_reference_library(monkeypatch: pytest.MonkeyPatch,
                                                             receiver: Receiver) -> None:
    sandbox = subprocess.Popen(
        [str(binary("acd-sandbox")), "--listen", "127.0.0.1:0", "--clock", "manual",
         "--webhook", receiver.url, "--webhook-secret", SECRET],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert sandbox.stdout is not None
        first = sandbox.stdout.readline().strip()
        assert first.startswith("acd-sandbox listening on "), first
        base = first.removeprefix("acd-sandbox listening on ")
        threading.Thread(target=sandbox.stdout.read, daemon=True).start()
        status, _ = http("POST", f"{base}/api/v1/agents/agent-1/runs", headers={"X-API-Key": "acd_live_demo_ada"})
        assert status == 200
        status, moved = http("POST", f"{base}/_sandbox/clock", b'{"advance_ms": 60000}',
                             {"Content-Type": "application/json"})
        assert status == 200, moved
        deliveries = receiver.wait_for(3)
        types = []
        for body, headers in deliveries:
            payload = reference_verify(monkeypatch, SECRET, body, headers, int(headers["webhook-timestamp"]))
            types.append(payload["type"])
            assert payload["data"]["run"]["id"]
        assert {"run.queued", "run.succeeded"} <= set(types), types
    finally:
        sandbox.terminate()
        sandbox.wait(timeout=30)


def test_cli_trigger_signatures_verify_in_the_reference_library(monkeypatch: pytest.MonkeyPatch,
                                                                receiver: Receiver) -> None:
    data = '{"run": {"id": "run_cli", "status": "succeeded"}}'
    done = subprocess.run([str(binary("acd")), "webhooks", "trigger", "run.succeeded", "--url", receiver.url,
                           "--secret", SECRET, "--data", data], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    [(body, headers)] = receiver.wait_for(1)
    payload = reference_verify(monkeypatch, SECRET, body, headers, int(headers["webhook-timestamp"]))
    assert payload["type"] == "run.succeeded" and payload["data"] == json.loads(data)
    assert abs(int(headers["webhook-timestamp"]) - time.time()) < 300


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_reference_signatures_verify_in_cli_listen(receiver: Receiver) -> None:
    port = free_port()
    listen = subprocess.Popen([str(binary("acd")), "listen", "--port", str(port), "--forward-to", receiver.url,
                               "--secret", OTHER, "--secret", SECRET],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert listen.stderr is not None and listen.stdout is not None
        assert "listening" in listen.stderr.readline()
        now = int(time.time())
        body = BODIES[0]
        headers = reference_sign(SECRET, "msg_to_cli", now, body)
        status, _ = http("POST", f"http://127.0.0.1:{port}/", body.encode("utf-8"), headers)
        assert status // 100 == 2
        line = listen.stdout.readline()
        assert "msg_to_cli" in line and "run.queued" in line and "run_9" in line and "verified" in line, line
        [(forwarded, forwarded_headers)] = receiver.wait_for(1)
        assert forwarded == body.encode("utf-8")
        assert {k: forwarded_headers[k] for k in headers} == headers
        tampered = reference_sign(OTHER, "msg_bad", now, body)
        tampered["webhook-signature"] = reference_sign(SECRET, "msg_bad", now, body + " ")["webhook-signature"]
        status, _ = http("POST", f"http://127.0.0.1:{port}/", body.encode("utf-8"), tampered)
        assert status == 400
        assert "no_matching_signature" in listen.stdout.readline()
    finally:
        listen.terminate()
        listen.wait(timeout=30)
