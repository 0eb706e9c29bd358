"""Client settings in Python form: :class:`RetryPolicy` and the translation
of ``acd.Client(...)`` keyword arguments into the core's configuration JSON.

Only the members a caller sets are sent; every default (attempts, backoff,
quotas, URLs) is the core's. Unknown or invalid values are refused by the
core and raised as :class:`acd.ConfigError`.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Dict, Optional

__all__ = ["RetryPolicy", "client_config_json"]


@dataclass(frozen=True)
class RetryPolicy:
    """How calls are retried (429, 5xx, transport failures). ``None`` keeps
    the core's default for that member.

    :param max_attempts: attempts per call, the first included.
    :param max_throttled: 429s carrying ``Retry-After`` one call accepts
        before giving up (the core's ``max_throttled``).
    :param deadline_ms: no attempt starts later than this after the first.
    :param max_retry_after_ms: the longest ``Retry-After`` accepted.
    :param backoff_base_ms: first backoff ceiling (full jitter below it).
    :param backoff_cap_ms: largest backoff ceiling.
    """

    max_attempts: Optional[int] = None
    max_throttled: Optional[int] = None
    deadline_ms: Optional[int] = None
    max_retry_after_ms: Optional[int] = None
    backoff_base_ms: Optional[int] = None
    backoff_cap_ms: Optional[int] = None

    def to_core(self) -> Dict[str, Any]:
        """The core's ``RetryPolicy`` JSON object with the members set here."""
        policy: Dict[str, Any] = {}
        for name in ("max_attempts", "max_throttled", "deadline_ms", "max_retry_after_ms"):
            value = getattr(self, name)
            if value is not None:
                policy[name] = value
        backoff = {
            key: value
            for key, value in (("base_ms", self.backoff_base_ms), ("cap_ms", self.backoff_cap_ms))
            if value is not None
        }
        if backoff:
            policy["backoff"] = backoff
        return policy


def client_config_json(
    *,
    api_key: Optional[str],
    base_url: Optional[str],
    user: Optional[str],
    retry: Optional[RetryPolicy],
    seed: Optional[int],
    max_body_bytes: Optional[int] = None,
) -> bytes:
    """The core configuration for ``acd.Client``'s arguments, falling back to
    the ``ACD_API_KEY`` and ``ACD_BASE_URL`` environment variables."""
    api_key = api_key if api_key is not None else os.environ.get("ACD_API_KEY")
    base_url = base_url if base_url is not None else os.environ.get("ACD_BASE_URL")
    config: Dict[str, Any] = {}
    if base_url is not None:
        config["base_url"] = base_url.rstrip("/")
    if api_key is not None:
        config["credentials"] = [
            {"id": "main", "kind": "api_key", "secret": api_key, "user": user if user is not None else "main"}
        ]
    if retry is not None:
        config["retry"] = retry.to_core()
    if seed is not None:
        config["seed"] = seed
    if max_body_bytes is not None:
        config["max_body_bytes"] = max_body_bytes
    return json.dumps(config).encode("utf-8")
