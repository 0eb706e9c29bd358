"""Verify the API's run lifecycle webhooks (Standard Webhooks: headers
``webhook-id``, ``webhook-timestamp``, ``webhook-signature``; secrets
``whsec_...``), in the Rust core.

::

    import acd

    @app.post("/webhooks")
    def hook(request):
        try:
            event = acd.webhooks.unwrap(request.body, request.headers, "whsec_...")
        except acd.WebhookVerificationError as error:
            return 400, error.code
        if event.type == "run.succeeded":
            ...

* :func:`verify`: checks a delivery and returns its :class:`WebhookEvent`.
* :func:`unwrap`: the same, and decodes a run lifecycle event's run
  (``event.run``).
* :func:`sign`: signs a payload as the API would, for your handler's tests.

Pass the **raw body** exactly as it arrived (``bytes`` or ``str``): a parsed
and re-serialised body does not verify, so a parsed object is refused.
Several secrets verify a rotation (any match passes). ``now`` (Unix seconds
or an aware :class:`~datetime.datetime`) defaults to the wall clock, and
``tolerance`` (seconds or a :class:`~datetime.timedelta`) to the core's
default (5 minutes); every check, bound and default is the core's
(``docs/webhooks.md``).
"""
from __future__ import annotations

import datetime as _dt
import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, NamedTuple, Optional, Protocol, Sequence, Tuple, Union

from ._errors import WebhookVerificationError
from ._ffi import acd_ffi as _ffi
from ._types import Run

__all__ = ["verify", "unwrap", "sign", "WebhookEvent", "SignedWebhook", "WebhookVerificationError"]

Body = Union[bytes, bytearray, memoryview, str]


class _HasItems(Protocol):
    """Anything with ``items()`` of (name, value): a dict, ``http.server``'s
    headers, httpx's, Flask's, Django's."""

    def items(self) -> Iterable[Tuple[str, Any]]: ...


Headers = Union[_HasItems, Mapping[str, Any], Iterable[Tuple[str, Any]]]
Secrets = Union[str, Sequence[str]]
Instant = Union[float, int, _dt.datetime]
Duration = Union[float, int, _dt.timedelta]


@dataclass(frozen=True)
class WebhookEvent:
    """A verified webhook: the message id and signing time from the headers,
    and the payload ``{"type", "timestamp", "data"}``."""

    id: str
    """``webhook-id``: the same on every attempt of one event; dedupe on it."""
    webhook_timestamp: int
    """``webhook-timestamp``: when this attempt was signed, Unix seconds."""
    type: str
    """The event type, e.g. ``run.succeeded``."""
    timestamp: str
    """When the event happened (RFC 3339, UTC)."""
    data: Dict[str, Any] = field(default_factory=dict)
    """The payload's ``data`` object."""
    run: Optional[Run] = None
    """The run of a run lifecycle event (from :func:`unwrap`), else ``None``."""


class SignedWebhook(NamedTuple):
    """A signed delivery, as :func:`sign` makes it: send ``body`` with
    ``headers`` to the handler under test."""

    body: bytes
    headers: Dict[str, str]


def _raw_body(body: Any) -> bytes:
    if isinstance(body, str):
        return body.encode("utf-8")
    if isinstance(body, (bytes, bytearray, memoryview)):
        return bytes(body)
    raise TypeError(
        f"body must be the raw request body (bytes or str) exactly as received, not {type(body).__name__}: "
        "a parsed or re-serialised body cannot be verified"
    )


def _header_list(headers: Any) -> List[Any]:
    items = headers.items() if hasattr(headers, "items") else headers
    out = []
    for name, value in items:
        raw = value if isinstance(value, (bytes, bytearray)) else str(value).encode("latin-1", "replace")
        out.append(_ffi.Header(name=str(name), value=bytes(raw)))
    return out


def _secret_list(secrets: Any) -> List[str]:
    if isinstance(secrets, str):
        return [secrets]
    return [str(secret) for secret in secrets]


def _now_ms(now: Optional[Instant]) -> int:
    if now is None:
        return time.time_ns() // 1_000_000
    if isinstance(now, _dt.datetime):
        return round(now.timestamp() * 1000)
    return round(float(now) * 1000)


def _tolerance_ms(tolerance: Optional[Duration]) -> Optional[int]:
    if tolerance is None:
        return None
    if isinstance(tolerance, _dt.timedelta):
        return round(tolerance.total_seconds() * 1000)
    return round(float(tolerance) * 1000)


def _call(body: Any, headers: Headers, secrets: Secrets, tolerance: Optional[Duration],
          now: Optional[Instant], decode_run: bool) -> WebhookEvent:
    raw = _raw_body(body)
    try:
        answer = json.loads(_ffi.webhook_verify_json(raw, _header_list(headers), _secret_list(secrets),
                                                     _now_ms(now), _tolerance_ms(tolerance), decode_run))
    except _ffi.AcdError as error:
        raise ValueError(str(error)) from None
    if "error" in answer:
        raise WebhookVerificationError(answer["error"]["message"], code=answer["error"]["code"])
    event = answer["event"]
    return WebhookEvent(id=event["id"], webhook_timestamp=event["webhook_timestamp"], type=event["type"],
                        timestamp=event["timestamp"], data=event["data"], run=event.get("run"))


def verify(body: Body, headers: Headers, secret: Secrets, *, tolerance: Optional[Duration] = None,
           now: Optional[Instant] = None) -> WebhookEvent:
    """Verifies a delivery and returns its event, or raises
    :class:`acd.WebhookVerificationError` (``.code``: ``missing_header``,
    ``bad_timestamp``, ``timestamp_out_of_tolerance``,
    ``no_matching_signature``, ``bad_secret`` or ``bad_payload``).

    :param body: the raw request body, ``bytes`` or ``str``, as received.
    :param headers: every header of the request (a mapping, or name, value pairs).
    :param secret: the endpoint's ``whsec_...`` secret, or a list during a rotation.
    :param tolerance: the largest distance between the signing time and now
        (seconds or a timedelta); default: the core's (5 minutes).
    :param now: the receiver's clock (Unix seconds or a datetime); default: the wall clock.
    """
    return _call(body, headers, secret, tolerance, now, decode_run=False)


def unwrap(body: Body, headers: Headers, secret: Secrets, *, tolerance: Optional[Duration] = None,
           now: Optional[Instant] = None) -> WebhookEvent:
    """:func:`verify`, then the typed decode of a run lifecycle event
    (``run.queued``, ``run.running``, ``run.succeeded``, ``run.failed``,
    ``run.cancelled``): ``event.run`` is the run (``bad_payload`` when
    ``data.run`` is not a run with a string ``id`` and ``status``); other
    event types get ``run=None``."""
    return _call(body, headers, secret, tolerance, now, decode_run=True)


def sign(payload: Union[Body, Mapping[str, Any]], secret: Secrets, *, id: Optional[str] = None,
         timestamp: Optional[Instant] = None) -> SignedWebhook:
    """Signs ``payload`` as the API signs a delivery, for your handler's
    tests: a mapping is sent as compact JSON, bytes and text unchanged.

    :param secret: a ``whsec_...`` secret, or several (one signature each).
    :param id: the ``webhook-id`` (default: ``msg_`` and a random hex).
    :param timestamp: the signing time (Unix seconds or a datetime; default:
        the wall clock), whole seconds.
    """
    if isinstance(payload, Mapping):
        body = json.dumps(payload, separators=(",", ":")).encode("utf-8")
    else:
        body = _raw_body(payload)
    message_id = id if id is not None else f"msg_{uuid.uuid4().hex}"
    seconds = _now_ms(timestamp) // 1000
    try:
        answer = json.loads(_ffi.webhook_sign_json(_secret_list(secret), message_id, seconds, body))
    except _ffi.AcdError as error:
        raise ValueError(str(error)) from None
    if "error" in answer:
        raise WebhookVerificationError(answer["error"]["message"], code=answer["error"]["code"])
    return SignedWebhook(body=body, headers=dict(answer["headers"]))
