"""Runners against a real HTTP server on 127.0.0.1 (tests/fake_llm_server.py), not mocks.

Both wire formats (OpenAI chat completions, Anthropic messages) go through the official SDKs.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.fake_llm_server import FakeLLMServer, drop, ok, slow, status, truncated
from fastspe.domains.sliding.bank.build import build_bank
from fastspe.boundary.banks import write_bank
from fastspe.cli import main
from fastspe.domains.sliding.prompt import PROMPT_SHA256, render_prompt
from fastspe.boundary.responses import read_responses
from fastspe.runners import (
    AdaptiveLimiter,
    GenerationSettings,
    Pricing,
    RetryPolicy,
    RunLog,
    completed_trial_ids,
    estimate_run,
    plan_trials,
    read_run_log,
    run_model,
    trial_id,
)
from fastspe.runners.retry import RATE_LIMIT, SERVER, TIMEOUT, AttemptError, parse_retry_after

KEY = "sk-fastspe-TEST-d1st1nct1ve-k3y-0042"
REPO = Path(__file__).resolve().parents[1]
FAST = RetryPolicy(max_retries=3, max_rate_limit_retries=3, base_delay=0.01, max_delay=0.05, retry_after_cap=2.0)
ATTEMPT_FIELDS = {
    "board_id",
    "condition",
    "trial",
    "response",
    "trial_id",
    "attempt",
    "status",
    "error_type",
    "http_status",
    "requested_model",
    "returned_model",
    "base_url",
    "temperature",
    "max_tokens",
    "request_id",
    "finish_reason",
    "input_tokens",
    "output_tokens",
    "reasoning_tokens",
    "latency_s",
    "cost_usd",
    "fastspe_version",
    "prompt_sha256",
    "timestamp",
}


@pytest.fixture(scope="module")
def paper_bank():
    from fastspe.domains.sliding.bank.design import paper_design

    return build_bank(paper_design())


@pytest.fixture
def bank(paper_bank):
    # Four boards: both cohorts, with and without blocks.
    return paper_bank.iloc[[0, 150, 300, 399]].reset_index(drop=True)


@pytest.fixture
def keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


@pytest.fixture
def server(keys):
    with FakeLLMServer(key=KEY) as srv:
        yield srv


def target(server, wire):
    return (
        ("openai:fake-gpt", server.openai_url) if wire == "openai" else ("anthropic:fake-claude", server.anthropic_url)
    )


def lines_of(path):
    records, skipped = read_run_log(path)
    assert skipped == 0
    return records


def oks(records):
    return [r for r in records if r["status"] == "ok"]


# --- plain success --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_plain_success(server, bank, tmp_path, wire):
    model, url = target(server, wire)
    out = tmp_path / "r.jsonl"
    summary = run_model(
        bank,
        model,
        out,
        base_url=url,
        trials=2,
        max_connections=3,
        timeout=5,
        policy=FAST,
        settings=GenerationSettings(temperature=0.0, max_tokens=64),
        pricing=Pricing(1.0, 4.0),
    )
    records = lines_of(out)
    assert summary.completed == 8 and summary.remaining == 0 and len(records) == 8
    assert all(ATTEMPT_FIELDS <= set(r) for r in records)
    assert {(r["board_id"], r["trial"]) for r in records} == {(b, t) for b in bank["board_id"] for t in range(2)}
    assert len({r["trial_id"] for r in records}) == 8
    prompts = {
        b: render_prompt(i, g, r, c)
        for b, i, g, r, c in bank[["board_id", "initial", "goal", "rows", "cols"]].itertuples(index=False)
    }
    by_tid = {s.trial_id: s for s in server.seen}
    for r in records:
        seen = by_tid[r["trial_id"]]  # the server saw the trial id header
        assert seen.wire == wire and seen.prompt == prompts[r["board_id"]]
        assert len(seen.body["messages"]) == 1  # a fresh context: one user message, nothing else
        assert seen.body["max_tokens"] == 64 and seen.body["temperature"] == 0.0
        assert r["condition"] == model and r["status"] == "ok" and r["attempt"] == 1
        assert r["response"] == "MOVES: U,L" and r["finish_reason"] == "stop" and r["http_status"] == 200
        assert r["returned_model"] == model.split(":")[1] and r["base_url"] == url
        assert r["request_id"] == f"req-{seen.n}" and r["input_tokens"] == 100 + seen.n
        assert r["cost_usd"] == pytest.approx((r["input_tokens"] * 1.0 + r["output_tokens"] * 4.0) / 1e6)
        assert r["prompt_sha256"] == PROMPT_SHA256
    if wire == "openai":
        assert all(r["reasoning_tokens"] == 5 for r in records)
    assert server.max_in_flight <= 3


# --- retries ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_429_with_retry_after_then_success(server, bank, tmp_path, wire):
    model, url = target(server, wire)
    out = tmp_path / "r.jsonl"
    server.push(status(429, retry_after=0.4))
    summary = run_model(bank.head(1), model, out, base_url=url, trials=1, max_connections=1, timeout=5, policy=FAST)
    first, second = lines_of(out)
    assert (first["status"], first["error_type"], first["http_status"], first["attempt"]) == (
        "error",
        "rate_limit",
        429,
        1,
    )
    assert (second["status"], second["attempt"], second["trial_id"]) == ("ok", 2, first["trial_id"])
    assert server.seen[1].at - server.seen[0].at >= 0.4  # Retry-After honoured, not the 10 ms backoff
    assert summary.failures == {RATE_LIMIT: 1}


@pytest.mark.parametrize("n429, answered", [(2, True), (3, True), (4, False)])
def test_429s_have_their_own_bound(server, bank, tmp_path, n429, answered):
    model, url = target(server, "openai")
    server.push(*[status(429, retry_after=0.01)] * n429)
    policy = RetryPolicy(max_retries=0, max_rate_limit_retries=3, base_delay=0.01)
    summary = run_model(
        bank.head(1), model, tmp_path / "r.jsonl", base_url=url, trials=1, max_connections=1, timeout=5, policy=policy
    )
    records = lines_of(tmp_path / "r.jsonl")
    assert [r["error_type"] for r in records if r["status"] == "error"] == [RATE_LIMIT] * n429
    assert (summary.remaining == 0) == answered and len(records) == min(n429, 3) + 1
    assert summary.failures == {RATE_LIMIT: n429}


def test_insufficient_quota_stops_the_run(server, bank, tmp_path):
    model, url = target(server, "openai")
    server.push(status(429, error_code="insufficient_quota"))
    summary = run_model(
        bank, model, tmp_path / "r.jsonl", base_url=url, trials=3, max_connections=1, timeout=5, policy=FAST
    )
    assert len(server.seen) == 1 and summary.fatal_error and summary.remaining == 12


def test_retry_after_is_capped(server, bank, tmp_path):
    model, url = target(server, "openai")
    server.push(status(429, retry_after=30))
    policy = RetryPolicy(max_retries=0, max_rate_limit_retries=1, base_delay=0.01, retry_after_cap=0.2)
    t0 = time.monotonic()
    run_model(
        bank.head(1), model, tmp_path / "r.jsonl", base_url=url, trials=1, max_connections=1, timeout=5, policy=policy
    )
    assert time.monotonic() - t0 < 10
    assert [r["status"] for r in lines_of(tmp_path / "r.jsonl")] == ["error", "ok"]


@pytest.mark.parametrize("retries, answered", [(2, False), (3, True)])
def test_three_503s(server, bank, tmp_path, retries, answered):
    model, url = target(server, "openai")
    out = tmp_path / "r.jsonl"
    server.push(status(503), status(503), status(503))
    policy = RetryPolicy(max_retries=retries, base_delay=0.01, max_delay=0.05)
    summary = run_model(bank.head(1), model, out, base_url=url, trials=1, max_connections=1, timeout=5, policy=policy)
    records = lines_of(out)
    assert [r["http_status"] for r in records[:3]] == [503, 503, 503]
    assert [r["error_type"] for r in records[:3]] == [SERVER] * 3
    assert [r["attempt"] for r in records] == list(range(1, len(records) + 1))
    assert len(server.seen) == len(records) == (4 if answered else 3)
    assert (summary.remaining == 0) == answered and (records[-1]["status"] == "ok") == answered
    if not answered:
        # The same command again resumes: attempt numbers go on, the error lines stay.
        again = run_model(bank.head(1), model, out, base_url=url, trials=1, max_connections=1, timeout=5, policy=policy)
        records = lines_of(out)
        assert again.completed == 1 and [r["attempt"] for r in records] == [1, 2, 3, 4]
        assert records[-1]["status"] == "ok"


def test_slower_than_timeout(server, bank, tmp_path):
    model, url = target(server, "openai")
    server.push(slow(2.0))
    policy = RetryPolicy(max_retries=1, base_delay=0.01)
    run_model(
        bank.head(1), model, tmp_path / "r.jsonl", base_url=url, trials=1, max_connections=1, timeout=0.4, policy=policy
    )
    first, second = lines_of(tmp_path / "r.jsonl")
    assert first["error_type"] == TIMEOUT and first["http_status"] is None and 0.3 < first["latency_s"] < 1.9
    assert second["status"] == "ok"


@pytest.mark.parametrize("action, kind", [(drop, "connection"), (truncated, "bad_response")])
@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_dropped_connection_and_truncated_json(server, bank, tmp_path, wire, action, kind):
    model, url = target(server, wire)
    server.push(action())
    summary = run_model(
        bank.head(1), model, tmp_path / "r.jsonl", base_url=url, trials=1, max_connections=1, timeout=5, policy=FAST
    )
    first, second = lines_of(tmp_path / "r.jsonl")
    assert (first["status"], first["error_type"], first["response"]) == ("error", kind, None)
    assert second["status"] == "ok" and summary.failures == {kind: 1}


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_finish_reason_length_is_recorded(server, bank, tmp_path, wire):
    model, url = target(server, wire)
    server.push(ok("MOVES: U,L,D,R,U,", finish_reason="length"))
    run_model(
        bank.head(1),
        model,
        tmp_path / "r.jsonl",
        base_url=url,
        trials=1,
        max_connections=1,
        timeout=5,
        policy=FAST,
        settings=GenerationSettings(max_tokens=8),
    )
    (line,) = lines_of(tmp_path / "r.jsonl")
    assert line["status"] == "ok" and line["finish_reason"] == "length" and line["response"] == "MOVES: U,L,D,R,U,"
    if wire == "anthropic":
        assert line["raw_finish_reason"] == "max_tokens"


def test_client_error_is_not_retried(server, bank, tmp_path):
    model, url = target(server, "openai")
    server.push(status(400))
    summary = run_model(
        bank.head(1), model, tmp_path / "r.jsonl", base_url=url, trials=2, max_connections=1, timeout=5, policy=FAST
    )
    records = lines_of(tmp_path / "r.jsonl")
    assert [r["status"] for r in records] == ["error", "ok"] and summary.remaining == 1
    assert records[0]["trial"] != records[1]["trial"]


# --- keys ------------------------------------------------------------------------------------------------------


def test_wrong_key_stops_the_run_and_is_never_written(keys, bank, tmp_path, monkeypatch, capsys):
    wrong = "sk-wrong-KEY-that-must-not-leak-777"
    monkeypatch.setenv("OPENAI_API_KEY", wrong)
    with FakeLLMServer(key=KEY) as srv:  # answers 401 and echoes the key it got
        out = tmp_path / "r.jsonl"
        code = main(
            [
                "run",
                "--bank",
                str(_bank_file(bank, tmp_path)),
                "--model",
                "openai:fake",
                "--out",
                str(out),
                "--base-url",
                srv.openai_url,
                "--max-connections",
                "1",
                "--timeout",
                "5",
            ]
        )
        assert len(srv.seen) == 1  # a fatal error stops the run instead of failing every trial
    captured = capsys.readouterr()
    assert code == 2 and "401" in captured.err
    assert wrong not in captured.out + captured.err
    (line,) = lines_of(out)
    assert line["http_status"] == 401 and line["error_type"] == "fatal"
    _assert_key_in_no_file(tmp_path, wrong)


def test_missing_key(monkeypatch, bank, tmp_path):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ValueError, match="OPENAI_API_KEY is not set"):
        run_model(bank.head(1), "openai:gpt-x", tmp_path / "r.jsonl", trials=1)
    with pytest.raises(ValueError, match="ANTHROPIC_API_KEY is not set"):
        run_model(bank.head(1), "anthropic:claude-x", tmp_path / "r.jsonl", trials=1)
    with FakeLLMServer() as srv:  # a local OpenAI-compatible server without a key
        run_model(bank.head(1), "openai:local", tmp_path / "r.jsonl", base_url=srv.openai_url, trials=1)
        assert srv.seen[0].headers["authorization"] == "Bearer not-needed"


# --- log, resume, kill -----------------------------------------------------------------------------------------


def test_resume_sends_nothing_twice(server, bank, tmp_path):
    model, url = target(server, "anthropic")
    out = tmp_path / "r.jsonl"
    server.push(status(503), status(503), status(503), status(503))
    policy = RetryPolicy(max_retries=0, base_delay=0.01)
    first = run_model(bank, model, out, base_url=url, trials=2, max_connections=1, timeout=5, policy=policy)
    assert first.remaining == 4
    before = out.read_bytes()
    done = completed_trial_ids(lines_of(out))
    n = len(server.seen)
    second = run_model(bank, model, out, base_url=url, trials=2, max_connections=2, timeout=5, policy=policy)
    assert second.already_complete == 4 and second.completed == 4 and second.remaining == 0
    assert len(server.seen) - n == 4 and not {s.trial_id for s in server.seen[n:]} & done
    assert out.read_bytes().startswith(before)  # appended, never rewritten
    n = len(server.seen)
    third = run_model(bank, model, out, base_url=url, trials=2, max_connections=2, timeout=5, policy=policy)
    assert third.requested == 0 and len(server.seen) == n


def test_trial_id_is_condition_board_prompt_and_trial(bank):
    base = dict(condition="openai:m", board_id="b", prompt_hash="p", trial=0)
    tid = trial_id(**base)
    assert tid == trial_id(**base) and len(tid) == 32
    for key, value in [("condition", "openai:n"), ("board_id", "c"), ("prompt_hash", "q"), ("trial", 1)]:
        assert trial_id(**{**base, key: value}) != tid, key
    planned = plan_trials(bank, "openai:m", 3)
    assert len({t.trial_id for t in planned}) == len(bank) * 3


def test_torn_last_line(tmp_path):
    out = tmp_path / "r.jsonl"
    out.write_bytes(b'{"trial_id": "a", "status": "ok"}\n{"trial_id": "b", "sta')
    before = out.read_bytes()
    with RunLog(out) as log:
        log.append({"trial_id": "c", "status": "ok"})
    assert out.read_bytes().startswith(before)
    tail = out.read_bytes()[len(before) :].split(b"\n")
    assert tail[0] == b"" and json.loads(tail[1]) == {"event": "torn_line", "line": 2}
    assert tail[2:] == [b'{"trial_id": "c", "status": "ok"}', b""]
    records, skipped = read_run_log(out)
    assert skipped == 1 and completed_trial_ids(records) == {"a", "c"} and len(records) == 2


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(["trial_id", "status", "response", "x"]),
            st.text(max_size=12) | st.integers() | st.none(),
            max_size=4,
        ),
        min_size=1,
        max_size=6,
    ),
    st.floats(0.0, 1.0, exclude_max=True),
    st.integers(0, 3),
)
def test_torn_tail_never_loses_or_rewrites(tmp_path_factory, records, cut, extra):
    out = tmp_path_factory.mktemp("log") / "r.jsonl"
    with RunLog(out) as log:
        for rec in records:
            log.append(rec)
    data = out.read_bytes()
    last_start = data.rstrip(b"\n").rfind(b"\n") + 1
    torn = data[: last_start + int(cut * (len(data) - 1 - last_start))]  # the last line cut short
    out.write_bytes(torn)
    for i in range(extra + 1):
        with RunLog(out) as log:
            log.append({"trial_id": f"new{i}", "status": "ok"})
    assert out.read_bytes().startswith(torn)
    got, skipped = read_run_log(out)
    # The complete lines, then the new ones; a proper prefix of a JSON object never parses.
    assert got == records[:-1] + [{"trial_id": f"new{i}", "status": "ok"} for i in range(extra + 1)]
    assert skipped == (0 if len(torn) == last_start else 1)


def test_error_text_is_scrubbed():
    import openai
    from fastspe.runners.base import classify_sdk_error

    err = classify_sdk_error(
        ValueError(f"Incorrect API key provided: sk-ab***yz; also {KEY}; Bearer abc.def"), openai, secrets=[KEY]
    )
    assert "sk-ab" not in err.message and KEY not in err.message and "abc.def" not in err.message
    assert err.kind == "bad_response"


def test_log_scrubs_secrets_and_is_exclusive(tmp_path):
    out = tmp_path / "r.jsonl"
    with RunLog(out, secrets=[KEY]) as log:
        log.append({"error": f"bad key {KEY}!"})
        with pytest.raises(OSError, match="another fastspe run"):
            RunLog(out)
    assert KEY not in out.read_text() and "[redacted]" in out.read_text()


def _run_either(mode, srv, out, bank, **kw):
    from fastspe.runners import run_batch

    kw = {"trials": 2, "settings": GenerationSettings(max_tokens=64, temperature=1.0), "policy": FAST, **kw}
    if mode == "online":
        return run_model(bank, "openai:fake-gpt", out, base_url=srv.openai_url, **kw)
    return run_batch(bank, "openai:fake-gpt", out, base_url=srv.openai_url, poll_interval=0.01, **kw)


@pytest.mark.parametrize("mode", ["online", "batch"])
@pytest.mark.parametrize("key", ["U", "-", "1", "x"])
def test_a_short_key_is_warned_about_and_never_rewrites_the_log(monkeypatch, bank, tmp_path, key, mode):
    """Answers, ids, field names and the JSON itself stay as they are whatever the key; resuming finds them."""
    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    out = tmp_path / "r.jsonl"
    with FakeLLMServer(key=key) as srv:
        srv.push(status(500, message="max_tokens too large for 127.0.0.1-x"))
        with pytest.warns(UserWarning, match="OPENAI_API_KEY is only 1 character.*too short to be a secret"):
            summary = _run_either(mode, srv, out, bank)
        assert summary.remaining == 0
        sent = len(srv.seen)
        for raw in out.read_bytes().splitlines():
            json.loads(raw)  # every line strict JSON
        records = lines_of(out)
        assert {r["response"] for r in oks(records)} == {"MOVES: U,L"}
        assert {r["trial_id"] for r in oks(records)} == {t.trial_id for t in plan_trials(bank, "openai:fake-gpt", 2)}
        for r in records:
            assert r["condition"] == "openai:fake-gpt" and r["max_tokens"] == 64 and r["base_url"] == srv.openai_url
            assert r["requested_model"] == "fake-gpt" and r["temperature"] == 1.0
        (failed,) = [r for r in records if r["status"] == "error"]
        assert "max_tokens too large for 127.0.0.1-x" in failed["error"]  # error texts are not rewritten either
        again = _run_either(mode, srv, out, bank)  # nothing to send: no key read, no warning
        assert again.already_complete == 8 and len(srv.seen) == sent  # nothing sent or paid for twice


@pytest.mark.parametrize("mode", ["online", "batch"])
@pytest.mark.parametrize("key", [KEY, "gw_live_4f8a1c9e2b7d6a3f5e0c"])  # key-shaped or not: the key is known
def test_a_realistic_key_in_an_error_text_is_redacted_there_only(monkeypatch, bank, tmp_path, key, mode):
    import urllib.parse

    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    out = tmp_path / "r.jsonl"
    with FakeLLMServer(key=key) as srv:
        srv.push(status(500, message=f"proxy: upstream refused key {key} (url ?k={urllib.parse.quote(key)})"))
        summary = _run_either(mode, srv, out, bank, trials=1)
    assert summary.remaining == 0
    body = out.read_text()
    assert key not in body and urllib.parse.quote(key) not in body and key[3:] not in body
    (failed,) = [r for r in lines_of(out) if r["status"] == "error"]
    assert "proxy: upstream refused key [redacted] (url ?k=[redacted])" in failed["error"]
    assert {r["response"] for r in oks(lines_of(out))} == {"MOVES: U,L"}


def test_log_scrubs_only_error_texts_and_urls(tmp_path):
    from fastspe.runners.base import public_url

    out = tmp_path / "r.jsonl"
    with RunLog(out, secrets=[KEY, "x"]) as log:  # "x" is too short to scrub: nothing changes for it
        log.append(
            {
                "error": f"echo {KEY}",
                "base_url": f"https://gw/{KEY}/v1",
                "response": "MOVES: U,L",
                "max_tokens": 1,
                "trial_id": "ab-x1",
            }
        )
    (line,) = lines_of(out)
    assert line == {
        "error": "echo [redacted]",
        "base_url": "https://gw/[redacted]/v1",
        "response": "MOVES: U,L",
        "max_tokens": 1,
        "trial_id": "ab-x1",
    }
    assert public_url("https://me:s3cret-pass@host:8443/v1") == "https://me:[redacted]@host:8443/v1"
    assert public_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"


def _signal_after(cmd, env, out, answers: int, sig):
    """Start ``cmd``, send ``sig`` once ``out`` holds ``answers`` completed answers; (process, (stdout, stderr))."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(oks(read_run_log(out)[0])) < answers:
        time.sleep(0.02)
    proc.send_signal(sig)
    return proc, proc.communicate(timeout=30)


@pytest.mark.slow
def test_kill_mid_run_then_resume(keys, bank, tmp_path):
    bank_file = _bank_file(bank, tmp_path)
    out = tmp_path / "responses.jsonl"
    env = {**os.environ, "OPENAI_API_KEY": KEY, "PYTHONPATH": str(REPO), "FASTSPE_NUMBA_CACHE": "1"}
    with FakeLLMServer(key=KEY, delay=0.15) as srv:
        cmd = [
            sys.executable,
            "-m",
            "fastspe",
            "run",
            "--bank",
            str(bank_file),
            "--model",
            "openai:fake",
            "--out",
            str(out),
            "--base-url",
            srv.openai_url,
            "--trials",
            "3",
            "--max-connections",
            "2",
            "--timeout",
            "5",
            "--backoff",
            "0.01",
        ]
        proc, (stdout1, stderr1) = _signal_after(cmd, env, out, answers=4, sig=signal.SIGKILL)
        first = read_run_log(out)[0]
        done = completed_trial_ids(first)
        assert 4 <= len(done) < 12, "the kill should land mid-run"
        with open(out, "ab") as fh:  # as if the kill had torn a line in half
            fh.write(b'{"board_id": "primary-k0')
        before = out.read_bytes()
        n = len(srv.seen)
        again = subprocess.run(cmd, env=env, capture_output=True, timeout=120)
        assert again.returncode == 0, again.stderr.decode()
        later = srv.seen[n:]
    records, skipped = read_run_log(out)
    assert skipped == 1 and out.read_bytes().startswith(before)
    completed = oks(records)
    assert sorted((r["board_id"], r["trial"]) for r in completed) == sorted(
        (b, t) for b in bank["board_id"] for t in range(3)
    )  # exactly one completed answer per trial
    assert not {s.trial_id for s in later} & done  # a completed trial is never sent again
    answered_later = [s.trial_id for s in later if s.answered]
    assert len(answered_later) == len(set(answered_later)) == 12 - len(done)
    for text in (stdout1, stderr1, again.stdout, again.stderr):
        assert KEY.encode() not in text
    _assert_key_in_no_file(tmp_path, KEY)
    # the scorer reads the resumed log: the marked torn line is skipped with a warning, one answer per trial
    with pytest.warns(UserWarning, match="torn line"):
        answers = read_responses(out, bank=bank)
    assert len(answers) == 12


@pytest.mark.slow
def test_ctrl_c_stops_cleanly(keys, bank, tmp_path):
    out = tmp_path / "responses.jsonl"
    env = {**os.environ, "OPENAI_API_KEY": KEY, "PYTHONPATH": str(REPO)}
    with FakeLLMServer(key=KEY, delay=0.3) as srv:
        cmd = [
            sys.executable,
            "-m",
            "fastspe",
            "run",
            "--bank",
            str(_bank_file(bank, tmp_path)),
            "--model",
            "openai:fake",
            "--out",
            str(out),
            "--base-url",
            srv.openai_url,
            "--max-connections",
            "2",
            "--timeout",
            "5",
        ]
        proc, (_, err) = _signal_after(cmd, env, out, answers=2, sig=signal.SIGINT)
        answered = [s.trial_id for s in srv.seen if s.answered]
    assert proc.returncode == 130, err.decode()
    assert b"resume" in err and b"stopping" in err
    records = lines_of(out)  # no torn line: the log was closed cleanly
    assert 2 <= len(records) < 12
    # Answers already on their way when Ctrl-C came were waited for and logged: nothing paid for is lost.
    assert sorted(r["trial_id"] for r in records) == sorted(answered)


# --- concurrency, budget, dry run ------------------------------------------------------------------------------


def test_connections_bounded_and_lowered_on_429(server, bank, tmp_path):
    model, url = target(server, "openai")
    server.delay = 0.05
    summary = run_model(
        bank, model, tmp_path / "r.jsonl", base_url=url, trials=3, max_connections=3, timeout=5, policy=FAST
    )
    assert summary.completed == 12 and 2 <= server.max_in_flight <= 3


def test_only_as_many_trials_in_flight_as_slots(server, paper_bank, tmp_path, monkeypatch):
    """Bounded submission: a trial reaches the thread pool only with a slot, so with no retries nobody but the
    feeding thread waits for a slot, and the trials alive are those in flight and those still logging their answer
    (a slot is freed before the line is written): at most twice the connections, not all 120 at once."""
    from fastspe.runners.sender import Sender

    model, url = target(server, "openai")
    server.delay = 0.01
    alive, peak, waiting, lock, real = [0], [0], [0], threading.Lock(), Sender.run_trial

    def counted(self, trial, slot=None):
        with lock:
            alive[0] += 1
            peak[0] = max(peak[0], alive[0])
            waiting[0] = max(waiting[0], self.limiter.waiting)
        try:
            return real(self, trial, slot)
        finally:
            with lock:
                alive[0] -= 1

    monkeypatch.setattr(Sender, "run_trial", counted)
    bank = paper_bank.iloc[:40].reset_index(drop=True)
    summary = run_model(
        bank, model, tmp_path / "r.jsonl", base_url=url, trials=3, max_connections=4, timeout=5, policy=FAST
    )
    assert summary.completed == 120 and len(lines_of(tmp_path / "r.jsonl")) == 120
    assert 2 <= server.max_in_flight <= 4 and 2 <= peak[0] <= 8 and waiting[0] <= 1


def test_limiter_cuts_once_per_window_and_grows_by_one_per_window():
    limiter = AdaptiveLimiter(8)
    slots = [limiter.acquire() for _ in range(8)]  # 8 in flight, all sent in epoch 0
    for slot in slots[:6]:  # overload: six of the window's eight come back 429
        limiter.release(slot, RATE_LIMIT)
    limiter.release(slots[6], SERVER)  # other failures neither count nor move the limit
    limiter.release(slots[7], None)
    assert limiter.limit == 8 and limiter.cuts == 0  # the window is not over: 7 of 8 counted
    more = [limiter.acquire() for _ in range(2)]
    limiter.release(more[0], RATE_LIMIT)
    assert limiter.limit == 4 and limiter.cuts == 1  # one window, one cut
    limiter.release(more[1], RATE_LIMIT)  # sent before the cut: not news, no second cut
    assert limiter.limit == 4 and limiter.cuts == 1
    for _ in range(4):  # a clean window of `limit` completions adds one
        limiter.release(limiter.acquire(), None)
    assert limiter.limit == 5
    occasional = [RATE_LIMIT] + [None] * 4  # one 429 in five (20%): occasional, not overload
    for failure in occasional:
        limiter.release(limiter.acquire(), failure)
    assert limiter.limit == 6 and limiter.cuts == 1
    for _ in range(6 + 7):
        limiter.release(limiter.acquire(), None)
    assert limiter.limit == 8  # never above --max-connections
    for _ in range(40):
        limiter.release(limiter.acquire(), RATE_LIMIT)
    assert limiter.limit == 1  # never below 1
    stop = threading.Event()
    stop.set()
    limiter._active = 1
    assert limiter.acquire(stop) is None


def test_limiter_holds_under_threads():
    limiter = AdaptiveLimiter(3)
    active, peak, lock = [0], [0], threading.Lock()

    def work(i):
        slot = limiter.acquire()
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.005)
        with lock:
            active[0] -= 1
        limiter.release(slot, RATE_LIMIT if i == 5 else None)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert 1 <= peak[0] <= 3


def test_backoff_and_retry_after():
    policy = RetryPolicy(max_retries=3, max_rate_limit_retries=2, base_delay=1.0, max_delay=5.0, retry_after_cap=7.0)
    rng = random.Random(1)
    err = AttemptError(SERVER, "x")
    for r in range(6):
        d = policy.delay(err, r, rng)
        assert 0.5 * min(5.0, 2**r) <= d <= min(5.0, 2**r)
    assert len({policy.delay(err, 2, rng) for _ in range(20)}) > 1  # jittered
    assert 3.0 <= policy.delay(AttemptError(RATE_LIMIT, "x", retry_after=3.0), 0, rng) <= 3.1
    assert 7.0 <= policy.delay(AttemptError(RATE_LIMIT, "x", retry_after=300.0), 0, rng) <= 7.1
    rate = AttemptError(RATE_LIMIT, "x")
    assert policy.allows(rate, 1, 3) and not policy.allows(rate, 2, 0)  # 429s have their own bound
    assert policy.allows(err, 2, 2) and not policy.allows(err, 0, 3)
    assert not policy.allows(AttemptError("client_error", "x"), 0, 0)
    assert parse_retry_after({"retry-after": "2.5"}) == 2.5
    assert parse_retry_after({"retry-after-ms": "1500"}) == 1.5
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, now=1445412470.0) == 10.0
    assert parse_retry_after({"retry-after": "soon"}) is None and parse_retry_after({}) is None


def test_budget_stops_before_it_is_exceeded(server, bank, tmp_path):
    model, url = target(server, "openai")
    out = tmp_path / "r.jsonl"
    pricing = Pricing(price_in=1000.0, price_out=1000.0)  # $1 per thousand tokens
    settings = GenerationSettings(max_tokens=50)
    bounds = [pricing.cost(len(t.prompt.encode()) + 32, 50) for t in plan_trials(bank, model, 1)]
    budget = 3.5 * max(bounds)  # room for three worst-case requests, not four
    summary = run_model(
        bank,
        model,
        out,
        base_url=url,
        trials=3,
        max_connections=2,
        timeout=5,
        policy=FAST,
        settings=settings,
        pricing=pricing,
        budget=budget,
    )
    records = lines_of(out)
    assert summary.budget_exhausted and 3 <= len(records) < 12 and len(server.seen) == len(records)
    assert sum(r["cost_usd"] for r in records) <= budget
    # Again: real costs were below the worst cases, so a few more fit; the total still stays within.
    again = run_model(
        bank,
        model,
        out,
        base_url=url,
        trials=3,
        max_connections=2,
        timeout=5,
        policy=FAST,
        settings=settings,
        pricing=pricing,
        budget=budget,
    )
    records = lines_of(out)
    assert sum(r["cost_usd"] for r in records) <= budget and again.budget_exhausted
    assert len(server.seen) == len(records) < 12
    with pytest.raises(ValueError, match="^budget needs max_tokens, so that"):
        run_model(bank, model, out, base_url=url, pricing=pricing, budget=1.0)


def test_api_errors_name_parameters_the_cli_its_options(bank, tmp_path, capsys):
    from fastspe.cli import main
    from fastspe.runners import plan_trials

    with pytest.raises(ValueError, match=r"^trials must be >= 1, got 0$"):
        plan_trials(bank, "c", 0)
    with pytest.raises(ValueError, match=r"^timeout must be a finite number of seconds > 0, got 0$"):
        run_model(bank, "openai:m", tmp_path / "r.jsonl", timeout=0)
    with pytest.raises(ValueError, match=r"^model 'nope:m': unknown provider 'nope'"):
        run_model(bank, "nope:m", tmp_path / "r.jsonl")
    bank_file = _bank_file(bank, tmp_path)
    run = ["run", "--bank", str(bank_file), "--out", str(tmp_path / "r.jsonl")]
    assert main(run + ["--model", "openai:m", "--price-out", "1", "--budget", "1"]) == 2
    assert "error: --budget needs --max-tokens, so that" in capsys.readouterr().err
    assert main(run + ["--model", "nope:m"]) == 2
    assert "error: --model 'nope:m': unknown provider 'nope'" in capsys.readouterr().err


def test_dry_run(server, bank, tmp_path, capsys):
    bank_file = _bank_file(bank, tmp_path)
    out = tmp_path / "r.jsonl"
    model, url = target(server, "openai")
    run_model(
        bank.head(2),
        model,
        out,
        base_url=url,
        trials=3,
        max_connections=2,
        timeout=5,
        policy=FAST,
        settings=GenerationSettings(max_tokens=100),
    )
    n = len(server.seen)
    os.environ.pop("OPENAI_API_KEY")  # a dry run needs no key (monkeypatch restores it)
    code = main(
        [
            "run",
            "--bank",
            str(bank_file),
            "--model",
            model,
            "--out",
            str(out),
            "--base-url",
            url,
            "--dry-run",
            "--price-in",
            "2",
            "--price-out",
            "8",
            "--max-tokens",
            "100",
        ]
    )
    text = capsys.readouterr().out
    assert code == 0 and len(server.seen) == n
    assert "6 requests to send (6 of 12 trials already complete)" in text
    est = estimate_run(
        bank, model, out, base_url=url, trials=3, settings=GenerationSettings(max_tokens=100), pricing=Pricing(2, 8)
    )
    assert est.requests == 6 and est.output_tokens_upper == 600
    assert est.cost_upper_usd == pytest.approx((est.input_tokens_upper * 2 + 600 * 8) / 1e6)
    assert f"${est.cost_upper_usd:.4f}" in text
    # Other generation settings under the same condition are refused; under a new condition nothing is complete.
    with pytest.raises(ValueError, match="max_tokens 100, this run asks for max_tokens None"):
        estimate_run(bank, model, out, base_url=url, trials=3)
    assert estimate_run(bank, model, out, base_url=url, trials=3, condition="no-limit").requests == 12


def test_cli_run_succeeds_and_reports(server, bank, tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    model, url = target(server, "anthropic")
    server.push(status(503))
    code = main(
        [
            "run",
            "--bank",
            str(_bank_file(bank, tmp_path)),
            "--model",
            model,
            "--out",
            str(out),
            "--base-url",
            url,
            "--trials",
            "1",
            "--limit",
            "2",
            "--backoff",
            "0.01",
            "--temperature",
            "0.7",
        ]
    )
    text = capsys.readouterr().out
    assert code == 0 and "2 answered" in text and "server_error: 1" in text
    records = lines_of(out)
    assert len(oks(records)) == 2 and all(r["temperature"] == 0.7 for r in records)
    assert all(r["max_tokens"] == 8192 for r in records)  # Anthropic's required max_tokens, recorded


def test_cli_checks_arguments(bank, tmp_path, capsys):
    bank_file = str(_bank_file(bank, tmp_path))
    out = str(tmp_path / "r.jsonl")
    assert main(["run", "--bank", bank_file, "--model", "gpt-x", "--out", out]) == 2
    assert "PROVIDER:MODEL" in capsys.readouterr().err
    assert main(["run", "--bank", bank_file, "--model", "mystery:x", "--out", out]) == 2
    assert "unknown provider" in capsys.readouterr().err
    assert main(["run", "--bank", bank_file, "--model", "openai:x", "--out", out, "--trials", "0"]) == 2
    assert main(["run", "--bank", bank_file, "--model", "openai:x", "--out", out, "--budget", "1"]) == 2
    assert (
        main(
            [
                "run",
                "--bank",
                bank_file,
                "--model",
                "openai:x",
                "--out",
                str(tmp_path / "r.csv"),
                "--base-url",
                "http://127.0.0.1:9/v1",
            ]
        )
        == 2
    )
    assert ".jsonl" in capsys.readouterr().err
    assert not Path(out).exists()


def test_run_log_scores(server, bank, tmp_path):
    from fastspe.scoring import score

    model, url = target(server, "anthropic")
    cert = bank["certificate"].iloc[0]
    server.push(status(503), ok("MOVES: " + ",".join(cert)), ok("MOVES: U,", finish_reason="length"))
    out = tmp_path / "r.jsonl"
    run_model(bank.head(1), model, out, base_url=url, trials=2, max_connections=1, timeout=5, policy=FAST)
    table = read_responses(out, bank=bank)
    assert len(table) == 2  # the failed attempt is not an output
    verdicts = score.score_responses(bank, table)
    # one connection, but a trial in backoff after the 503 holds none: which trial gets which answer varies
    assert sorted(verdicts["truncated"]) == [False, True]
    whole = verdicts[~verdicts["truncated"]].iloc[0]
    assert whole["status"] == "complete" and whole["optimal"]


# --- baseline provider -----------------------------------------------------------------------------------------


def test_baseline_provider(bank, tmp_path, capsys):
    pytest.importorskip("fastspe.domains.sliding.planners.baselines")
    bank_file = str(_bank_file(bank, tmp_path))
    out = tmp_path / "b.jsonl"
    args = ["run", "--bank", bank_file, "--model", "baseline:oracle", "--out", str(out), "--trials", "2"]
    assert main(args) == 0
    records = lines_of(out)
    assert len(records) == 8 and all(r["status"] == "ok" and r["condition"] == "baseline:oracle" for r in records)
    assert len({r["trial_id"] for r in records}) == 8
    before = out.read_bytes()
    assert main(args) == 0  # resumes: nothing new
    assert out.read_bytes() == before


# --- helpers ---------------------------------------------------------------------------------------------------


def _bank_file(bank, tmp_path) -> Path:
    path = tmp_path / "bank.jsonl"
    if not path.exists():
        write_bank(bank, path)
    return path


def _assert_key_in_no_file(root: Path, key: str) -> None:
    for path in root.rglob("*"):
        if path.is_file():
            assert key.encode() not in path.read_bytes(), f"the API key was written to {path}"


def test_progress_has_the_total_at_once_and_live_counts(server, bank, tmp_path):
    model, url = target(server, "openai")
    server.push(status(429, retry_after=0.01), status(429, retry_after=0.01), status(503))
    policy = RetryPolicy(max_retries=0, max_rate_limit_retries=3, base_delay=0.01)
    calls = []
    summary = run_model(
        bank,
        model,
        tmp_path / "r.jsonl",
        base_url=url,
        trials=2,
        max_connections=1,
        timeout=5,
        policy=policy,
        pricing=Pricing(1.0, 2.0),
        progress=lambda done, total, **counts: calls.append((done, total, counts)),
    )
    assert calls[0][:2] == (0, 8) and calls[0][2]["answered"] == 0  # before the first answer
    done, total, counts = calls[-1]
    assert (done, total) == (8, 8) and counts["answered"] == summary.completed == 7
    assert counts["failed"] == 1 and counts["rate_limited"] == 2 and counts["retried"] == 2
    assert counts["spent_usd"] == pytest.approx(summary.spent_usd) and summary.spent_usd > 0
    assert [c[0] for c in calls] == sorted(c[0] for c in calls)
    assert "retried" not in summary.failures


# --- a base URL with /v1 too many or too few: the fatal 404 says so ---------------------------------------------


@pytest.mark.parametrize(
    "wire, suffix, hint",
    [
        ("anthropic", "/v1", "the base URL ends in /v1, which the Anthropic SDK adds itself"),
        ("openai", "", "base URL usually ends in /v1: --base-url http://HOST:PORT/v1"),
    ],
)
def test_a_404_from_a_base_url_that_looks_wrong_carries_a_hint(server, bank, tmp_path, capsys, wire, suffix, hint):
    model = "openai:fake-gpt" if wire == "openai" else "anthropic:fake-claude"
    url = f"http://127.0.0.1:{server.port}{suffix}"
    write_bank(bank, tmp_path / "bank.parquet")
    server.push(*[status(404)] * 8)
    assert (
        main(
            [
                "run",
                "--bank",
                str(tmp_path / "bank.parquet"),
                "--model",
                model,
                "--base-url",
                url,
                "--out",
                str(tmp_path / "r.jsonl"),
                "--max-connections",
                "1",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "404" in err and hint in err and KEY not in err
    assert server.seen[0].path.startswith("/v1/v1/" if wire == "anthropic" else "/chat/")


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_no_hint_when_the_path_is_the_usual_one(server, bank, tmp_path, capsys, wire):
    from fastspe.runners.base import base_url_hint

    assert base_url_hint(wire, "/v1/messages" if wire == "anthropic" else "/v1/chat/completions") == ""
    model, right = target(server, wire)
    write_bank(bank, tmp_path / "bank.parquet")
    server.push(*[status(404)] * 8)
    assert (
        main(
            [
                "run",
                "--bank",
                str(tmp_path / "bank.parquet"),
                "--model",
                model,
                "--base-url",
                right,
                "--out",
                str(tmp_path / "r.jsonl"),
                "--max-connections",
                "1",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "404" in err and "base URL" not in err  # (the SDK's own text may quote the path: no hint is added)
