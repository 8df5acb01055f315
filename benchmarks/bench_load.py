"""Runs at provider scale against the loopback fake server: throughput with occasional 429s and 500s,
under a 429 burst, and under a sustained overload (issue 15).

Run with ``python -m pytest benchmarks/bench_load.py --benchmark-only -s``. Targets: with 3% random
429s (Retry-After 0.2 s) and 5% 500s, throughput >= 60% of the error-free run at the same
``--max-connections`` (32); under a sustained overload the limit settles (it does not fall to 1 and
climb back over and over), and every trial is answered exactly once.
"""

from __future__ import annotations

import random
import threading
import time

import pytest

from fastspe.bank.build import build_bank
from fastspe.bank.design import paper_design
from fastspe.runners import AdaptiveLimiter, RetryPolicy, engine, read_run_log, run_model
from tests.fake_llm_server import FakeLLMServer, ok, status

TRIALS = 3  # x 400 boards = 1,200 requests, as in the issue
CONNECTIONS = 32
KEY = "sk-fastspe-LOAD-0000000000000000"


def _run(tmp_path, script, name: str, trials: int = TRIALS) -> tuple[float, object, list]:
    bank = build_bank(paper_design())
    with FakeLLMServer(key=KEY) as server:
        server.script = script
        t = time.perf_counter()
        summary = run_model(bank, "openai:fake", tmp_path / f"{name}.jsonl", base_url=server.openai_url,
                            trials=trials, max_connections=CONNECTIONS, timeout=10, policy=RetryPolicy(), seed=1)
        seconds = time.perf_counter() - t
    records, _ = read_run_log(tmp_path / f"{name}.jsonl")
    return seconds, summary, records


def _latency(rng: random.Random) -> float:
    return rng.uniform(0.10, 0.15)


@pytest.fixture(autouse=True)
def key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def test_throughput_with_random_429s_and_500s(benchmark, tmp_path):
    rng, lock = random.Random(7), threading.Lock()

    def clean(seen):
        with lock:
            return ok(delay=_latency(rng))

    def noisy(seen):
        with lock:
            u, delay = rng.random(), _latency(rng)
        if u < 0.03:
            return status(429, retry_after=0.2)
        if u < 0.08:
            return status(500)
        return ok(delay=delay)

    clean_s, clean_summary, _ = _run(tmp_path, clean, "clean")
    noisy_s, noisy_summary, records = benchmark.pedantic(lambda: _run(tmp_path, noisy, "noisy"), rounds=1,
                                                          iterations=1)
    share = clean_s / noisy_s
    benchmark.extra_info.update(clean_rps=1200 / clean_s, noisy_rps=1200 / noisy_s, share=share)
    print(f"\n1,200 trials, {CONNECTIONS} connections: clean {clean_s:.1f} s ({1200 / clean_s:.0f} trials/s); with 3% "
          f"429s and 5% 500s {noisy_s:.1f} s ({1200 / noisy_s:.0f} trials/s) = {share:.0%} of clean")
    assert clean_summary.completed == noisy_summary.completed == 1200
    assert sum(r["status"] == "ok" for r in records) == 1200  # every trial answered once
    assert share >= 0.6


class RecordingLimiter(AdaptiveLimiter):
    """The limiter, keeping the limit after every window."""

    history: list = []

    def _end_window(self) -> None:
        super()._end_window()
        RecordingLimiter.history.append(self.limit)


def test_sustained_overload_settles(benchmark, tmp_path, monkeypatch):
    """The server takes 8 requests at a time and 429s the rest: the limit must settle near 8."""
    monkeypatch.setattr(engine, "AdaptiveLimiter", RecordingLimiter)
    RecordingLimiter.history = []
    rng, lock, active = random.Random(3), threading.Lock(), [0]

    def overloaded(seen):
        with lock:
            busy = active[0] >= 8
            if not busy:
                active[0] += 1
            delay = _latency(rng)
        if busy:
            return status(429, retry_after=0.05)
        time.sleep(delay)
        with lock:
            active[0] -= 1
        return ok()

    seconds, summary, records = benchmark.pedantic(lambda: _run(tmp_path, overloaded, "over"), rounds=1,
                                                   iterations=1)
    answered = [(r["board_id"], r["trial"]) for r in records if r["status"] == "ok"]
    rate_limited = sum(r["status"] != "ok" for r in records)
    benchmark.extra_info.update(seconds=seconds, rate_limited=rate_limited)
    print(f"\nsustained overload (8 at a time): {seconds:.1f} s for 1,200 trials ({1200 / seconds:.0f}/s; the "
          f"server's ceiling is about {8 / 0.125:.0f}/s), {rate_limited} 429s")
    settled = RecordingLimiter.history[len(RecordingLimiter.history) // 4:]  # after the first cuts
    print(f"limit after each window, from the first quarter on: min {min(settled)}, max {max(settled)}, "
          f"median {sorted(settled)[len(settled) // 2]}")
    assert len(answered) == len(set(answered)) == 1200  # no trial answered (paid) twice
    assert min(settled) >= 3 and max(settled) <= 16  # near the server's 8, never down to 1 and back
    assert 1200 / seconds >= 0.5 * 8 / 0.125


def test_a_429_burst_costs_one_cut(benchmark, tmp_path):
    """Requests 200-263 all come back 429 (a provider hiccup): the run loses a moment, not its pace."""
    rng, lock = random.Random(5), threading.Lock()

    def burst(seen):
        with lock:
            delay = _latency(rng)
        return status(429, retry_after=0.2) if 200 <= seen.n < 264 else ok(delay=delay)

    seconds, summary, _ = benchmark.pedantic(lambda: _run(tmp_path, burst, "burst"), rounds=1, iterations=1)
    benchmark.extra_info.update(seconds=seconds, trials_per_s=1200 / seconds)
    print(f"\n429 burst (64 requests): 1,200 trials in {seconds:.1f} s ({1200 / seconds:.0f}/s)")
    assert summary.completed == 1200


def test_drain_10000_requests(benchmark, tmp_path):
    rng, lock = random.Random(9), threading.Lock()

    def clean(seen):
        with lock:
            return ok(delay=_latency(rng))

    seconds, summary, _ = benchmark.pedantic(lambda: _run(tmp_path, clean, "drain", trials=25), rounds=1,
                                              iterations=1)
    benchmark.extra_info.update(seconds=seconds, requests_per_s=10_000 / seconds)
    print(f"\n10,000 requests, {CONNECTIONS} connections, 0.10-0.15 s each: drained in {seconds:.1f} s "
          f"({10_000 / seconds:.0f}/s; the ceiling is {CONNECTIONS / 0.125:.0f}/s)")
    assert summary.completed == 10_000
