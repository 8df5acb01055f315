"""fastspe's own bounded retry policy (the SDKs' retries are off).

Failures are sorted into kinds. Rate limits (HTTP 429) are counted apart from server errors,
timeouts, dropped connections and unreadable responses, have their own bound, honour
``Retry-After`` up to a cap, and lower the number of requests in flight. Everything else retries
with exponential backoff and jitter up to ``max_retries`` times. Client errors (400, 401, ...)
are not retried.
"""

from __future__ import annotations

import collections
import email.utils
import math
import random
import threading
import time
from dataclasses import dataclass, field

from ..errors import UserError

RATE_LIMIT = "rate_limit"
SERVER = "server_error"
TIMEOUT = "timeout"
CONNECTION = "connection"
BAD_RESPONSE = "bad_response"
CLIENT = "client_error"
FATAL = "fatal"  # authentication / permission / unknown model: stop the whole run
UNEXPECTED = "unexpected"  # an exception fastspe did not foresee (a bug): logged, not retried, shown at the end
STOPPED = "stopped"  # a slot given back unused (the run stopped, or the budget refused the send)

RETRYABLE = frozenset({RATE_LIMIT, SERVER, TIMEOUT, CONNECTION, BAD_RESPONSE})


class AttemptError(Exception):
    """One failed attempt, already classified and scrubbed of secrets.

    Attributes
    ----------
    kind : str
        One of the kind constants of this module.
    http_status : int or None
    retry_after : float or None
        Seconds the server asked to wait (Retry-After / retry-after-ms), uncapped.
    request_id : str or None
    rate_limits : pacing.RateLimits or None
        What the response's rate-limit headers said is left.
    """

    def __init__(
        self,
        kind: str,
        message: str,
        http_status: int | None = None,
        retry_after: float | None = None,
        request_id: str | None = None,
        rate_limits=None,
    ):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.http_status = http_status
        self.retry_after = retry_after
        self.request_id = request_id
        self.rate_limits = rate_limits

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE


def kind_for_status(status: int) -> str:
    """The failure kind of an HTTP error status."""
    if status == 429:
        return RATE_LIMIT
    if status in (408, 409) or status >= 500:
        return SERVER
    if status in (401, 403, 404):
        return FATAL
    return CLIENT


def parse_retry_after(headers, now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (seconds or HTTP date), else None."""
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


@dataclass(frozen=True)
class RetryPolicy:
    """Bounds and delays of the retry loop.

    Parameters
    ----------
    max_retries : int
        Retries after the first attempt for server errors, timeouts, dropped connections and
        unreadable responses.
    max_rate_limit_retries : int
        Retries after HTTP 429, counted separately.
    base_delay, max_delay : float
        Backoff before retry r (0-based) is ``min(max_delay, base_delay * 2**r)``, times a jitter
        factor drawn from [0.5, 1).
    retry_after_cap : float
        The most seconds a server's Retry-After is honoured for.
    """

    max_retries: int = 3
    max_rate_limit_retries: int = 8
    base_delay: float = 1.0
    max_delay: float = 60.0
    retry_after_cap: float = 60.0

    def __post_init__(self):
        for name in ("max_retries", "max_rate_limit_retries"):
            if getattr(self, name) < 0:
                raise UserError(f"{name} must be >= 0, got {getattr(self, name)}")
        for name in ("base_delay", "max_delay", "retry_after_cap"):
            if not 0 <= getattr(self, name) < math.inf:  # NaN or inf would make the backoff wait forever
                raise UserError(f"{name} must be a finite number >= 0 seconds, got {getattr(self, name)}")

    def allows(self, error: AttemptError, rate_limited: int, other: int) -> bool:
        """Whether another attempt may follow, given the retries of each sort used so far."""
        if not error.retryable:
            return False
        if error.kind == RATE_LIMIT:
            return rate_limited < self.max_rate_limit_retries
        return other < self.max_retries

    def delay(self, error: AttemptError, retry: int, rng: random.Random) -> float:
        """Seconds to wait before retry number ``retry`` (0-based, of this error's sort)."""
        backoff = min(self.max_delay, self.base_delay * (2.0**retry)) * rng.uniform(0.5, 1.0)
        if error.retry_after is not None:
            # The server knows best, up to the cap; a little jitter keeps workers from waking together.
            return min(error.retry_after, self.retry_after_cap) + rng.uniform(0.0, 0.1 * self.base_delay)
        return backoff


@dataclass
class RetryCounters:
    """Failures of a run by kind (thread-safe increments)."""

    counts: dict = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, kind: str) -> None:
        with self._lock:
            self.counts[kind] = self.counts.get(kind, 0) + 1

    def get(self, kind: str) -> int:
        return self.counts.get(kind, 0)


class AdaptiveLimiter:
    """At most ``limit`` requests in flight, adapted to 429s by windowed AIMD (additive increase,
    multiplicative decrease), as TCP adapts its window.

    A window is ``limit`` completed requests that were sent since the last cut. When it ends:

    - if more than ``overload`` of them were 429s, the limit halves (a cut, at most one per window);
    - else it rises by one.

    Never below 1, never above ``max_limit`` (``--max-connections``). Each slot carries the *epoch* in
    which it was acquired, and requests sent before the last cut do not count towards the next window:
    a burst of 429s from requests already in flight when the limit fell is one signal, not a cascade
    (before, 32 requests in flight could halve the limit down to 1). The threshold tells a server's
    occasional 429s (a few percent, each honoured through its own Retry-After) from an overload (a
    large share of every window): the first leaves the limit alone, the second settles it near what
    the server takes. Other failures (500s, timeouts) do not move it: they are not a rate.

    ``acquire`` returns a slot (its epoch) or None when ``stop`` was set or the limiter was closed;
    ``release(slot, failure)`` gives it back. A freed slot is handed to exactly one waiter, the longest waiting
    (each waiter sleeps on its own lock, so a release wakes one thread, not all of them, and nothing polls); a
    cut hands out nothing until the requests in flight fall below the new limit, a rise hands out one slot
    per new slot. ``close`` wakes every waiter (with None): the sender closes the limiter when it stops.
    """

    def __init__(self, max_limit: int, overload: float = 0.2):
        if max_limit < 1:
            raise UserError(f"max connections must be >= 1, got {max_limit}")
        self.max_limit = max_limit
        self.limit = max_limit
        self.overload = overload
        self.epoch = 0  # rises at each cut
        self.cuts = 0
        self.closed = False
        self._active = 0
        self._done = 0  # completions of this window (sent in the current epoch)
        self._limited = 0  # of which 429s
        self._lock = threading.Lock()
        self._waiters: collections.deque = collections.deque()  # _Waiter, first come first served

    @property
    def active(self) -> int:
        """Slots held now."""
        return self._active

    @property
    def waiting(self) -> int:
        """Threads waiting for a slot now."""
        return len(self._waiters)

    def acquire(self, stop: threading.Event | None = None) -> int | None:
        """Wait for a free slot and return its epoch; None when ``stop`` was set or the limiter closed meanwhile."""
        with self._lock:
            if self.closed or (stop is not None and stop.is_set()):
                return None
            if self._active < self.limit and not self._waiters:
                self._active += 1
                return self.epoch
            waiter = _Waiter()
            self._waiters.append(waiter)
        try:
            waiter.wake.acquire()  # released once: by the release that hands this waiter a slot, or by close
        except BaseException:  # interrupted (Ctrl-C): leave the queue, or give back the slot handed over meanwhile
            with self._lock:
                queued = waiter in self._waiters
                if queued:
                    self._waiters.remove(waiter)
            if not queued and waiter.slot is not None:
                self.release(waiter.slot, STOPPED)
            raise
        if waiter.slot is not None and stop is not None and stop.is_set():
            self.release(waiter.slot, STOPPED)  # handed a slot after the run stopped: pass it on
            return None
        return waiter.slot

    def release(self, slot: int, failure: str | None = None) -> None:
        """Free ``slot`` after a request that succeeded (None) or failed with kind ``failure``."""
        with self._lock:
            self._active -= 1
            if slot == self.epoch and failure in (None, RATE_LIMIT):
                self._done += 1
                self._limited += failure == RATE_LIMIT
                if self._done >= self.limit:
                    self._end_window()
            self._hand_out()

    def close(self) -> None:
        """Wake every waiter with None and refuse later acquires: the run stopped."""
        with self._lock:
            self.closed = True
            while self._waiters:
                self._waiters.popleft().wake.release()

    def _hand_out(self) -> None:
        """Give each free slot to the longest waiting thread (the lock held)."""
        while self._waiters and self._active < self.limit:
            waiter = self._waiters.popleft()
            self._active += 1
            waiter.slot = self.epoch
            waiter.wake.release()

    def _end_window(self) -> None:
        if self._limited > self.overload * self._done:
            self.limit = max(1, self.limit // 2)
            self.epoch += 1
            self.cuts += 1
        elif self.limit < self.max_limit:
            self.limit += 1
        self._done = self._limited = 0


class _Waiter:
    """A thread waiting for a slot: it sleeps on ``wake`` (held from the start) until a slot is put in ``slot``
    and ``wake`` released, or until the limiter closes (``slot`` stays None)."""

    __slots__ = ("wake", "slot")

    def __init__(self):
        self.wake = threading.Lock()
        self.wake.acquire()
        self.slot: int | None = None
