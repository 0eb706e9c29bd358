"""Client settings in Python form: :class:`RetryPolicy` (seconds, as every
duration of the package) and the translation of the clients' keyword
arguments into the core's configuration JSON.

Only the members a caller sets are sent; every default (attempts, backoff,
quotas, URLs, the credential behind a bare key) is the core's. Invalid
values are refused by the core and raised as :class:`acd.ConfigError`.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Dict, Optional

__all__ = ["RetryPolicy", "client_config", "to_ms"]


def to_ms(seconds: Optional[float]) -> Optional[int]:
    """Seconds (the package's unit) as the core's whole milliseconds."""
    return None if seconds is None else round(seconds * 1000)


@dataclass(frozen=True)
class RetryPolicy:
    """How calls are retried (429, 5xx, transport failures); durations in
    seconds. ``None`` keeps the core's default for that member.

    :param max_attempts: attempts per call, the first included.
    :param max_throttled: 429s carrying ``Retry-After`` one call accepts
        before giving up.
    :param deadline: no attempt starts later than this after the first.
    :param max_retry_after: the longest ``Retry-After`` accepted.
    :param backoff_base: first backoff ceiling (full jitter below it).
    :param backoff_cap: largest backoff ceiling.
    """

    max_attempts: Optional[int] = None
    max_throttled: Optional[int] = None
    deadline: Optional[float] = None
    max_retry_after: Optional[float] = None
    backoff_base: Optional[float] = None
    backoff_cap: Optional[float] = None

    def to_core(self) -> Dict[str, Any]:
        """The core's ``RetryPolicy`` JSON object with the members set here."""
        members = {"max_attempts": self.max_attempts, "max_throttled": self.max_throttled,
                   "deadline_ms": to_ms(self.deadline), "max_retry_after_ms": to_ms(self.max_retry_after)}
        policy: Dict[str, Any] = {k: v for k, v in members.items() if v is not None}
        backoff = {k: v for k, v in (("base_ms", to_ms(self.backoff_base)), ("cap_ms", to_ms(self.backoff_cap)))
                   if v is not None}
        if backoff:
            policy["backoff"] = backoff
        return policy


def client_config(
    *,
    api_key: Optional[str],
    base_url: Optional[str],
    retry: Optional[RetryPolicy],
    seed: Optional[int],
    max_body_bytes: Optional[int] = None,
    token: Optional[str] = None,
) -> Dict[str, Any]:
    """The core configuration for the clients' arguments, with the
    ``ACD_API_KEY`` and ``ACD_BASE_URL`` environment variables as read here
    (the core uses them only where the caller set nothing)."""
    config: Dict[str, Any] = {}
    if base_url is not None:
        config["base_url"] = base_url
    if api_key is not None:
        config["api_key"] = api_key
    if token is not None:
        config["token"] = token
    env = {name: os.environ.get(name) for name in ("ACD_API_KEY", "ACD_BASE_URL")}
    config["env"] = {name: value for name, value in env.items() if value}
    if retry is not None:
        config["retry"] = retry.to_core()
    if seed is not None:
        config["seed"] = seed
    if max_body_bytes is not None:
        config["max_body_bytes"] = max_body_bytes
    return config
