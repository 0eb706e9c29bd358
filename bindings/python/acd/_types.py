"""Typed documents: the API index, runs, limits and events as ``TypedDict``s
(plain dicts at run time, checked by a type checker). Records stay plain
``dict``s: their shape is the table's or the connection's."""
from __future__ import annotations

import sys
from typing import Any, Dict, List, Optional

if sys.version_info >= (3, 11):
    from typing import NotRequired, TypedDict
else:  # pragma: no cover - Python 3.9 and 3.10
    from typing_extensions import NotRequired, TypedDict

__all__ = [
    "ApiIndex", "AuthMethod", "Authentication", "Event", "Limit", "Onboarding", "RateLimits", "Record", "Run",
    "Trial", "Versioning",
]

Record = Dict[str, Any]
"""One record of a table or a connection: a JSON object as sent."""


class AuthMethod(TypedDict):
    """One accepted credential type of the index (``authentication.methods``)."""

    type: str
    documentation_url: str
    headers: NotRequired[List[str]]
    self_serve: NotRequired[bool]
    flow: NotRequired[str]
    metadata_url: NotRequired[str]
    scopes_supported: NotRequired[List[str]]


class Authentication(TypedDict):
    """The index's ``authentication``."""

    methods: List[AuthMethod]


class Trial(TypedDict):
    """The index's ``onboarding.trial``."""

    available: bool
    duration_days: int
    invite_required: bool


class Onboarding(TypedDict):
    """The index's ``onboarding``."""

    account_access: str
    access_request_url: str
    trial: Trial
    public_sandbox_available: bool


class RateLimits(TypedDict):
    """The index's advertised rate limit."""

    requests: int
    window_seconds: int
    scope: NotRequired[str]
    response_headers: List[str]
    documentation_url: NotRequired[str]


class Versioning(TypedDict):
    """The index's versioning policy."""

    strategy: str
    current_version: str
    deprecation_headers: NotRequired[List[str]]
    minimum_sunset_notice_days: NotRequired[int]
    documentation_url: NotRequired[str]


class ApiIndex(TypedDict):
    """The API index (``GET /api/v1``)."""

    name: str
    description: NotRequired[str]
    version: str
    base_url: str
    documentation_url: str
    openapi_url: str
    developers_url: str
    llms_txt_url: NotRequired[str]
    authentication: Authentication
    onboarding: Onboarding
    rate_limits: RateLimits
    versioning: Versioning
    resources: Dict[str, str]
    clients: NotRequired[Dict[str, Any]]
    webhooks_documentation_url: NotRequired[str]


class Run(TypedDict, total=False):
    """An agent run: ``id`` and ``status`` always; other members as the API sends."""

    id: str
    status: str


class Limit(TypedDict):
    """The throttle's current view of one limit (:meth:`acd.HttpClient.limits`)."""

    name: str
    requests: int
    window: float
    """The window, in seconds."""
    remaining: int
    """Requests left in the current window."""
    reset_at: Optional[float]
    """When the current window ends (Unix seconds); ``None`` until a send opens one."""


class Event(TypedDict, total=False):
    """One event of a call, as the core reports it (see ``docs/driver-protocol.md``):
    ``type`` is ``response``, ``page``, ``run_status``, ``waiting``,
    ``retrying``, ``deprecation``, ``done``, ``failed`` or ``unknown``;
    ``message`` is the core's sentence for ``waiting``, ``retrying`` and
    ``deprecation``."""

    call: int
    type: str
    message: str
