"""Pacing sends before a provider refuses them: its rate-limit headers, and ``--rpm`` / ``--tpm`` ceilings.

Providers say how much of the current minute is left on every response:

- OpenAI: ``x-ratelimit-remaining-requests`` / ``-tokens`` with ``x-ratelimit-reset-requests`` /
  ``-tokens`` as durations (``1s``, ``6m0s``, ``250ms``);
- Anthropic: ``anthropic-ratelimit-requests-remaining`` / ``-tokens-remaining`` (also
  ``-input-tokens-`` and ``-output-tokens-``) with ``...-reset`` as RFC 3339 times.

When the requests (or tokens) left fall to what is already in flight, sends wait for the reset
instead of drawing 429s. For servers that send no headers, ``--rpm`` and ``--tpm`` are token
buckets: a send takes one request and its token estimate, and waits while the bucket is empty.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Callable

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNIT = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
MAX_WAIT = 120.0  # never trust a header into a longer sleep than this


@dataclass(frozen=True)
class RateLimits:
    """What a response said is left: requests and tokens remaining, seconds to their resets (None: not said)."""

    requests_left: int | None = None
    requests_reset: float | None = None
    tokens_left: int | None = None
    tokens_reset: float | None = None


def parse_duration(text: str) -> float | None:
    """``"6m0s"`` -> 360.0, ``"250ms"`` -> 0.25, ``"1.5s"`` -> 1.5; None if it is not such a duration."""
    text = str(text).strip()
    parts = _DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    return sum(float(n) * _UNIT[u] for n, u in parts)


def _seconds_until(stamp: str, now: float) -> float | None:
    try:
        return max(0.0, datetime.fromisoformat(str(stamp).replace("Z", "+00:00")).timestamp() - now)
    except ValueError:
        return None


def _int(value) -> int | None:
    try:
        return int(float(value)) if value is not None else None
    except (TypeError, ValueError):
        return None


def rate_limits(headers, now: float | None = None) -> RateLimits | None:
    """The ``RateLimits`` in a response's headers (either provider), or None when it sends none."""
    if headers is None:
        return None
    now = time.time() if now is None else now
    get = headers.get
    if get("x-ratelimit-remaining-requests") is not None or get("x-ratelimit-remaining-tokens") is not None:
        return RateLimits(
            _int(get("x-ratelimit-remaining-requests")),
            parse_duration(get("x-ratelimit-reset-requests") or ""),
            _int(get("x-ratelimit-remaining-tokens")),
            parse_duration(get("x-ratelimit-reset-tokens") or ""),
        )
    prefix = "anthropic-ratelimit-"
    if get(prefix + "requests-remaining") is not None or get(prefix + "tokens-remaining") is not None:
        tokens = get(prefix + "tokens-remaining") or get(prefix + "input-tokens-remaining")
        reset = get(prefix + "tokens-reset") or get(prefix + "input-tokens-reset")
        return RateLimits(
            _int(get(prefix + "requests-remaining")),
            _seconds_until(get(prefix + "requests-reset"), now) if get(prefix + "requests-reset") else None,
            _int(tokens),
            _seconds_until(reset, now) if reset else None,
        )
    return None


class TokenBucket:
    """``per_minute`` units a minute, at most one second's worth banked (``--rpm`` / ``--tpm``): sends are
    spread over the minute, not fired in one burst that a per-second limit would refuse."""

    def __init__(self, per_minute: float, clock: Callable[[], float] = time.monotonic):
        self.rate = per_minute / 60.0
        self.capacity = max(1.0, self.rate)
        self.level = self.capacity
        self.clock = clock
        self.stamp = clock()

    def delay(self, amount: float) -> float:
        """Seconds until ``amount`` can be taken (0: take it now, and it is taken)."""
        now = self.clock()
        self.level = min(self.capacity, self.level + (now - self.stamp) * self.rate)
        self.stamp = now
        amount = min(amount, self.capacity)  # one request larger than the bucket still goes, alone
        if self.level >= amount:
            self.level -= amount
            return 0.0
        return (amount - self.level) / self.rate


class Pacer:
    """Shared by a run's sending threads: ``wait(tokens, stop)`` before each send, ``observe(limits)``
    after each response. Without headers and ceilings it never waits."""

    def __init__(self, rpm: float | None = None, tpm: float | None = None, clock=time.monotonic):
        self._requests = TokenBucket(rpm, clock) if rpm else None
        self._tokens = TokenBucket(tpm, clock) if tpm else None
        self._clock = clock
        self._lock = threading.Lock()
        self._paused_until = 0.0  # a header said: nothing left until then
        self._in_flight = 0
        self.waits = 0  # sends that had to wait (reported in the summary)

    def observe(self, limits: RateLimits | None) -> None:
        """A send ended; fold its response's headers in (None: it had none): when what is left is no
        more than what is in flight, pause new sends until the reset."""
        with self._lock:
            self._in_flight = max(0, self._in_flight - 1)
            if limits is None:
                return
            for left, reset in (
                (limits.requests_left, limits.requests_reset),
                (limits.tokens_left, limits.tokens_reset),
            ):
                if left is not None and reset is not None and left <= self._in_flight:
                    self._paused_until = max(self._paused_until, self._clock() + min(reset, MAX_WAIT))

    def wait(self, tokens: float, stop: threading.Event) -> bool:
        """Block until a send of ``tokens`` fits; False when ``stop`` was set meanwhile."""
        waited = False
        while True:
            with self._lock:
                delay = max(0.0, self._paused_until - self._clock())
                if delay == 0.0 and self._requests is not None:
                    delay = self._requests.delay(1.0)
                if delay == 0.0 and self._tokens is not None:
                    delay = self._tokens.delay(tokens)
                    if delay and self._requests is not None:
                        self._requests.level += 1.0  # give the request back: this send is not going yet
                if delay == 0.0:
                    self._in_flight += 1
                    self.waits += waited
                    return True
            waited = True
            if stop.wait(min(delay, 1.0)):
                return False
