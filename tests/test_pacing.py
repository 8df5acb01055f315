"""Pacing from rate-limit headers and --rpm/--tpm ceilings: parsing, buckets, and real runs that wait."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta, timezone

import pytest

from fastspe.runners import run_model
from fastspe.runners.pacing import Pacer, RateLimits, TokenBucket, parse_duration, rate_limits
from tests.fake_llm_server import ok
from tests.test_runners import FAST, bank, keys, paper_bank, server, target  # noqa: F401 (fixtures)


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@pytest.mark.parametrize(
    "text, seconds",
    [("1s", 1.0), ("6m0s", 360.0), ("250ms", 0.25), ("1.5s", 1.5), ("1h2m3s", 3723.0), ("2m30.5s", 150.5)],
)
def test_durations(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "soon", "5", "1s junk", "-1s"])
def test_bad_durations(text):
    assert parse_duration(text) is None


def test_openai_and_anthropic_headers():
    openai = rate_limits(
        {
            "x-ratelimit-remaining-requests": "12",
            "x-ratelimit-reset-requests": "1.2s",
            "x-ratelimit-remaining-tokens": "3400",
            "x-ratelimit-reset-tokens": "250ms",
        }
    )
    assert openai == RateLimits(12, 1.2, 3400, 0.25)
    now = datetime(2026, 12, 1, tzinfo=timezone.utc)
    reset = (now + timedelta(seconds=30)).isoformat().replace("+00:00", "Z")
    anthropic = rate_limits(
        {
            "anthropic-ratelimit-requests-remaining": "3",
            "anthropic-ratelimit-requests-reset": reset,
            "anthropic-ratelimit-input-tokens-remaining": "900",
            "anthropic-ratelimit-input-tokens-reset": reset,
        },
        now=now.timestamp(),
    )
    assert anthropic == RateLimits(3, 30.0, 900, 30.0)
    assert rate_limits({"content-type": "application/json"}) is None and rate_limits(None) is None


def test_bucket_spreads_sends_over_the_minute():
    clock = Clock()
    bucket = TokenBucket(600, clock)  # 10 a second, one second's worth banked
    assert [bucket.delay(1) for _ in range(10)] == [0.0] * 10
    assert bucket.delay(1) == pytest.approx(0.1)
    clock.now += 0.1
    assert bucket.delay(1) == 0.0
    assert TokenBucket(60, clock).delay(5000) == 0.0  # one request larger than the bucket still goes, alone


def test_pacer_pauses_when_what_is_left_is_in_flight():
    clock = Clock()
    pacer = Pacer(clock=clock)
    stop = threading.Event()
    assert pacer.wait(10, stop) and pacer.wait(10, stop)  # two in flight
    pacer.observe(RateLimits(requests_left=5, requests_reset=2.0))  # 5 left, 1 in flight: go on
    assert pacer._paused_until == 0.0
    pacer.observe(RateLimits(requests_left=0, requests_reset=2.0))  # nothing left: pause 2 s
    assert pacer._paused_until == pytest.approx(2.0)
    stop.set()
    assert not pacer.wait(10, stop)  # stopped while paused


def test_headers_pace_a_real_run(server, bank, tmp_path):
    model, url = target(server, "openai")
    server.push(ok(headers={"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "400ms"}))
    summary = run_model(
        bank.head(1), model, tmp_path / "r.jsonl", base_url=url, trials=2, max_connections=1, timeout=5, policy=FAST
    )
    assert summary.completed == 2 and summary.paced == 1
    assert server.seen[1].at - server.seen[0].at >= 0.35  # waited for the reset, drew no 429


def test_rpm_ceiling(server, bank, tmp_path):
    model, url = target(server, "openai")
    t = time.monotonic()
    summary = run_model(
        bank, model, tmp_path / "r.jsonl", base_url=url, trials=5, max_connections=4, timeout=5, policy=FAST, rpm=600
    )  # 10 a second: 10 at once, then 10 more over a second
    assert summary.completed == 20 and time.monotonic() - t >= 0.9
    gaps = [b.at - a.at for a, b in zip(server.seen[10:], server.seen[11:])]
    assert min(gaps) >= 0.05  # after the banked second, sends are spread out
