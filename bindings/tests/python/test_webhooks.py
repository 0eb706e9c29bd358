"""Webhooks through the public facade ``acd.webhooks``: every case of
tests/vectors/webhooks.json (signatures computed with the Standard Webhooks
reference library) verified and unwrapped, the reference signatures
reproduced by ``acd.webhooks.sign``, and the facade's own contract (raw
bodies only, secrets as one or a list, seconds and datetimes, the error's
``code``). The delivery-schedule cases are the sender's: the planner is not
exposed to Python (a receiver never plans deliveries), so they are replayed
by Rust only."""
from __future__ import annotations

import datetime as dt
import json
from typing import Any, Dict, List

import pytest

import acd
from conftest import VECTORS, load

VECTOR = load(VECTORS / "webhooks.json")
CASES: List[Dict[str, Any]] = VECTOR["verify"]
SIGN: List[Dict[str, Any]] = VECTOR["sign"]
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
BODY = ('{"type":"run.succeeded","timestamp":"2023-11-14T22:13:20.000Z",'
        '"data":{"run":{"id":"run_1","agent_id":"agent_1","status":"succeeded"}}}')


def test_the_webhook_vectors_are_present() -> None:
    assert len(CASES) >= 25 and len(SIGN) >= 3


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_verify_vector(case: Dict[str, Any]) -> None:
    tolerance = case["tolerance_ms"] / 1000 if "tolerance_ms" in case else None
    now = case["now_ms"] / 1000
    for call in (acd.webhooks.verify, acd.webhooks.unwrap):
        if "error" in case["expect"]:
            with pytest.raises(acd.WebhookVerificationError) as raised:
                call(case["body"], case["headers"], case["secrets"], tolerance=tolerance, now=now)
            assert raised.value.code == case["expect"]["error"]
            assert isinstance(raised.value, acd.AcdError) and str(raised.value)
            continue
        event = call(case["body"].encode("utf-8"), case["headers"], case["secrets"], tolerance=tolerance, now=now)
        want = case["expect"]["ok"]
        assert (event.id, event.webhook_timestamp, event.type) == (want["id"], want["webhook_timestamp"], want["type"])
        if call is acd.webhooks.unwrap:
            assert event.run is not None
            assert (event.run["id"], event.run["status"]) == (want["run_id"], want["run_status"])
        else:
            assert event.run is None
            assert event.data["run"]["id"] == want["run_id"]


@pytest.mark.parametrize("case", SIGN, ids=[case["id"] for case in SIGN])
def test_sign_reproduces_the_reference_signature(case: Dict[str, Any]) -> None:
    signed = acd.webhooks.sign(case["body"], case["secret"], id=case["id"], timestamp=case["timestamp"])
    assert signed.headers == {"webhook-id": case["id"], "webhook-timestamp": str(case["timestamp"]),
                              "webhook-signature": case["signature"]}
    assert signed.body == case["body"].encode("utf-8")


def test_a_parsed_body_is_refused() -> None:
    signed = acd.webhooks.sign(BODY, SECRET, id="msg_1", timestamp=1_700_000_000)
    with pytest.raises(TypeError, match="raw request body"):
        acd.webhooks.verify(json.loads(BODY), signed.headers, SECRET, now=1_700_000_000)


def test_signed_for_a_handler_test_then_unwrapped_with_datetimes_and_a_rotation() -> None:
    at = dt.datetime(2023, 11, 14, 22, 13, 20, tzinfo=dt.timezone.utc)
    old = "whsec_" + "QUJD" * 8
    signed = acd.testing.sign_webhook(json.loads(BODY), [SECRET, old], id="msg_7", timestamp=at)
    assert len(signed.headers["webhook-signature"].split(" ")) == 2
    event = acd.webhooks.unwrap(signed.body, list(signed.headers.items()), old, now=at + dt.timedelta(seconds=299))
    assert event.id == "msg_7" and event.webhook_timestamp == 1_700_000_000
    assert event.run == {"id": "run_1", "agent_id": "agent_1", "status": "succeeded"}
    with pytest.raises(acd.WebhookVerificationError) as late:
        acd.webhooks.verify(signed.body, signed.headers, SECRET, now=at + dt.timedelta(seconds=1),
                            tolerance=dt.timedelta(seconds=0))
    assert late.value.code == "timestamp_out_of_tolerance"


def test_the_tolerance_defaults_to_the_cores_and_is_configurable() -> None:
    signed = acd.webhooks.sign(BODY, SECRET, id="msg_1", timestamp=1_700_000_000)
    acd.webhooks.verify(signed.body, signed.headers, SECRET, now=1_700_000_300)
    with pytest.raises(acd.WebhookVerificationError) as raised:
        acd.webhooks.verify(signed.body, signed.headers, SECRET, now=1_700_000_301)
    assert raised.value.code == "timestamp_out_of_tolerance"
    acd.webhooks.verify(signed.body, signed.headers, SECRET, now=1_700_003_600, tolerance=3600)


def test_now_defaults_to_the_wall_clock() -> None:
    signed = acd.webhooks.sign(BODY, SECRET)
    assert signed.headers["webhook-id"].startswith("msg_")
    assert acd.webhooks.unwrap(signed.body, signed.headers, SECRET).type == "run.succeeded"
    old = acd.webhooks.sign(BODY, SECRET, timestamp=1_700_000_000)
    with pytest.raises(acd.WebhookVerificationError) as raised:
        acd.webhooks.verify(old.body, old.headers, SECRET)
    assert raised.value.code == "timestamp_out_of_tolerance"


def test_unwrap_refuses_a_run_event_without_a_run_but_keeps_other_types() -> None:
    bare = acd.webhooks.sign({"type": "run.failed", "timestamp": "t", "data": {}}, SECRET, timestamp=1)
    assert acd.webhooks.verify(bare.body, bare.headers, SECRET, now=1).type == "run.failed"
    with pytest.raises(acd.WebhookVerificationError) as raised:
        acd.webhooks.unwrap(bare.body, bare.headers, SECRET, now=1)
    assert raised.value.code == "bad_payload"
    other = acd.webhooks.sign({"type": "custom.ping", "timestamp": "t", "data": {"x": 1}}, SECRET, timestamp=1)
    event = acd.webhooks.unwrap(other.body, other.headers, SECRET, now=1)
    assert event.run is None and event.data == {"x": 1}


def test_a_bad_secret_on_signing_has_the_cores_code() -> None:
    with pytest.raises(acd.WebhookVerificationError) as raised:
        acd.webhooks.sign(BODY, "not-a-secret", timestamp=1)
    assert raised.value.code == "bad_secret"
