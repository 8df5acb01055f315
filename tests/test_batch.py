"""``fastspe run --batch`` against the fake server's Batch API (tests/fake_llm_server.py), killed and resumed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pandas as pd
import pytest

from tests.fake_llm_server import FakeLLMServer, drop, ok, status
from tests.test_runners import KEY, REPO, _bank_file, bank, keys, paper_bank, server  # noqa: F401 (fixtures)
from fastspe.cli import main
from fastspe.responses import read_responses
from fastspe.run_stats import run_stats
from fastspe.runners import GenerationSettings, Pricing, RetryPolicy, RunLog, read_run_log, run_model
from fastspe.runners import batch as batch_mod
from fastspe.runners import batch_api
from fastspe.runners.batch import BATCH_DISCOUNT, run_batch

MODEL = "openai:fake-gpt"
PRICES = Pricing(2.0, 8.0)
SETTINGS = GenerationSettings(max_tokens=64)


class Killed(BaseException):
    """A process death: nothing in the runner catches it (as SIGKILL lets nothing run)."""


def kill_when(monkeypatch, before=lambda records: False, after=lambda records: False):
    """Make the run log die before (nothing written) or after writing the lines that match."""
    real = RunLog.append_many

    def append_many(self, records):
        records = list(records)
        if before(records):
            raise Killed
        real(self, records)
        if after(records):
            raise Killed
    monkeypatch.setattr(RunLog, "append_many", append_many)


def event_is(name):
    return lambda records: any(r.get("event") == name for r in records)


def batch(srv, out, bank, **kw):
    kw = {"trials": 3, "poll_interval": 0.01, "pricing": PRICES, "settings": SETTINGS,
          "policy": RetryPolicy(max_retries=2, max_rate_limit_retries=2, base_delay=0.01), **kw}
    return run_batch(bank, MODEL, out, base_url=srv.openai_url, **kw)


def markers(out):
    return [json.loads(line) for line in open(out, "rb") if b'"event"' in line]


def test_1200_trials_killed_three_times_each_answered_once(server, paper_bank, tmp_path, monkeypatch):
    out = tmp_path / "r.jsonl"
    server.batch_polls = 3
    # The first batch's first ten requests fail: 500s, 429s, dropped; they go again in a second batch.
    server.push(*[status(500)] * 5, *[status(429)] * 3, drop(), drop())
    monkeypatch.setattr(batch_mod, "WRITE_CHUNK", 100)

    # Kill 1: after the batch is created, before its id is in the log: the resumed run must look it up.
    with monkeypatch.context() as m:
        kill_when(m, before=event_is("batch_submitted"))
        with pytest.raises(Killed):
            batch(server, out, paper_bank)
    assert server.batch_creations == 1 and not read_run_log(out)[0]

    # Kill 2: mid-collection, after 300 of the 1,200 answers are on disk.
    written = []
    with monkeypatch.context() as m:
        kill_when(m, before=lambda records: any("batch_id" in r and "event" not in r for r in records)
                  and (written.append(1) or len(written) > 3))
        with pytest.raises(Killed):
            batch(server, out, paper_bank)
    assert server.batch_creations == 1 and len(read_run_log(out)[0]) == 300

    # Kill 3: right after the retry batch's id is in the log.
    with monkeypatch.context() as m:
        kill_when(m, after=event_is("batch_submitted"))
        with pytest.raises(Killed):
            batch(server, out, paper_bank)
    assert server.batch_creations == 2

    summary = batch(server, out, paper_bank)
    assert server.batch_creations == 2  # no batch was ever created twice
    assert summary.remaining == 0 and summary.completed == 10 and summary.batches["completed"] == 1

    records, skipped = read_run_log(out)
    assert skipped == 0 and len(records) == 1210
    done = [r for r in records if r["status"] == "ok"]
    assert len(done) == 1200 and len({(r["board_id"], r["trial"]) for r in done}) == 1200
    # The server answered each trial exactly once: a killed collection was never asked again.
    assert sorted(Counter(server.answered_trials()).values()) == [1] * 1200
    failed = [r for r in records if r["status"] == "error"]
    assert Counter(r["error_type"] for r in failed) == {"server_error": 7, "rate_limit": 3}
    assert all(r["attempt"] == 1 for r in failed)
    retried = {r["trial_id"] for r in failed}
    assert {r["attempt"] for r in done if r["trial_id"] in retried} == {2}
    assert len({r["batch_id"] for r in done if r["trial_id"] in retried}) == 1  # one new batch for them
    for r in done:
        assert r["custom_id"] == r["trial_id"] and r["batch_provider"] == "openai" and r["batch_id"]
        list_price = (r["input_tokens"] * PRICES.price_in + r["output_tokens"] * PRICES.price_out) / 1e6
        assert r["cost_usd"] == pytest.approx(BATCH_DISCOUNT * list_price)
    # What the online mode logs, the batch mode logs too (plus its provenance).
    online = tmp_path / "online.jsonl"
    run_model(paper_bank.head(1), MODEL, online, base_url=server.openai_url, trials=1, settings=SETTINGS,
              pricing=PRICES)
    assert set(read_run_log(online)[0][0]) | {"batch_id", "custom_id", "batch_provider"} == set(done[0])
    assert KEY.encode() not in out.read_bytes()
    events = Counter(m["event"] for m in markers(out))
    assert events == {"batch_pending": 2, "batch_submitted": 2, "batch_done": 2}

    # The readers skip the markers: responses, run statistics and `fastspe score`.
    responses = read_responses(out)
    assert len(responses[responses["status"] == "ok"]) == 1200
    stats = run_stats([out])
    assert int(stats.loc[stats["condition"] == MODEL, "answers"].iloc[0]) == 1200
    scored = tmp_path / "verdicts.parquet"
    assert main(["score", "--bank", str(_bank_file(paper_bank, tmp_path)), "--responses", str(out),
                 "--out", str(scored)]) == 0
    assert len(pd.read_parquet(scored)) == 1200


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_each_provider_killed_twice_and_resumed(server, bank, tmp_path, monkeypatch, wire):
    model, url = (MODEL, server.openai_url) if wire == "openai" else ("anthropic:fake-claude", server.anthropic_url)
    out = tmp_path / "r.jsonl"
    server.batch_polls = 2
    server.push(status(500), status(429), status(400), drop())
    monkeypatch.setattr(batch_mod, "WRITE_CHUNK", 4)

    def run(**kw):
        return run_batch(bank, model, out, base_url=url, trials=3, poll_interval=0.01, pricing=PRICES,
                         settings=SETTINGS, policy=RetryPolicy(max_retries=2, base_delay=0.01), **kw)
    with monkeypatch.context() as m:  # killed after creating the batch, before logging its id
        kill_when(m, before=event_is("batch_submitted"))
        with pytest.raises(Killed):
            run()
    with monkeypatch.context() as m:  # killed after the first 4 answers of the batch are logged
        kill_when(m, after=lambda records: any("batch_id" in r and "event" not in r for r in records))
        with pytest.raises(Killed):
            run()
    assert len(read_run_log(out)[0]) == 4 and server.batch_creations == 1
    summary = run()
    # The run that logged the four failures was killed: as online, a new run gives them a new try (the 400 too).
    assert server.batch_creations == 2 and summary.remaining == 0 and summary.completed == 12
    records = read_run_log(out)[0]
    done = [r for r in records if r["status"] == "ok"]
    assert len(done) == 12 == len({(r["board_id"], r["trial"]) for r in done})
    assert sorted(Counter(server.answered_trials()).values()) == [1] * 12
    assert Counter(r["error_type"] for r in records if r["status"] == "error") == {
        "server_error": 2, "rate_limit": 1, "client_error": 1}
    for r in done:
        assert r["batch_provider"] == wire and r["provider"] == wire and r["custom_id"] == r["trial_id"]
        list_price = (r["input_tokens"] * PRICES.price_in + r["output_tokens"] * PRICES.price_out) / 1e6
        assert r["cost_usd"] == pytest.approx(BATCH_DISCOUNT * list_price)
    assert KEY.encode() not in out.read_bytes()


def test_anthropic_look_up_refuses_to_guess(server, bank, tmp_path, monkeypatch):
    """Two batches of the right size since a killed creation: which is ours cannot be told, so none is taken."""
    out = tmp_path / "r.jsonl"
    with monkeypatch.context() as m:
        kill_when(m, before=event_is("batch_submitted"))
        with pytest.raises(Killed):
            run_batch(bank, "anthropic:fake-claude", out, base_url=server.anthropic_url, trials=1)
    import anthropic

    client = anthropic.Anthropic(api_key=KEY, base_url=server.anthropic_url)
    client.messages.batches.create(requests=[{"custom_id": f"x{i}", "params": {"model": "m", "max_tokens": 1,
                                   "messages": [{"role": "user", "content": "hi"}]}} for i in range(4)])
    with pytest.raises(ValueError, match="2 batches of that size"):
        run_batch(bank, "anthropic:fake-claude", out, base_url=server.anthropic_url, trials=1)
    assert server.batch_creations == 2


def test_failures_are_retried_within_the_policy_bounds(server, bank, tmp_path):
    out = tmp_path / "r.jsonl"
    doomed = {}

    def script(seen):  # one trial always fails with a 500, one with a 400 (not retryable)
        doomed.setdefault("500", seen.trial_id)
        if seen.trial_id == doomed["500"]:
            return status(500)
        doomed.setdefault("400", seen.trial_id)
        return status(400) if seen.trial_id == doomed["400"] else ok()
    server.script = script
    summary = batch(server, out, bank, policy=RetryPolicy(max_retries=2, base_delay=0.01))
    records = read_run_log(out)[0]
    by_trial = Counter(r["trial_id"] for r in records if r["status"] == "error")
    assert by_trial == {doomed["500"]: 3, doomed["400"]: 1}  # 1 + 2 retries; a 400 is not retried
    assert server.batch_creations == 3 and summary.failed == 2 and summary.remaining == 2
    assert summary.failures == {"server_error": 3, "client_error": 1}
    # Running again gives them a fresh set of retries, attempt numbers going on from the log's.
    summary = batch(server, out, bank, policy=RetryPolicy(max_retries=0, base_delay=0.01))
    attempts = [r["attempt"] for r in read_run_log(out)[0] if r["trial_id"] == doomed["500"]]
    assert attempts == [1, 2, 3, 4] and summary.remaining == 2


def test_a_pending_batch_that_was_never_created_is_sent_once(server, bank, tmp_path, monkeypatch):
    out = tmp_path / "r.jsonl"
    with monkeypatch.context() as m:
        def killed(self, prepared, token):  # after the upload and the pending marker, before the create
            raise Killed
        m.setattr(batch_api.OpenAIBatches, "create", killed)
        with pytest.raises(Killed):
            batch(server, out, bank)
    assert server.batch_creations == 0 and [e["event"] for e in markers(out)] == ["batch_pending"]
    summary = batch(server, out, bank)
    assert server.batch_creations == 1 and summary.completed == 12
    assert [e["event"] for e in markers(out)] == ["batch_pending", "batch_done", "batch_pending", "batch_submitted",
                                                  "batch_done"]


def test_budget_holds_and_costs_are_at_batch_prices(server, bank, tmp_path):
    out = tmp_path / "r.jsonl"
    summary = batch(server, out, bank, trials=1)
    assert summary.spent_usd == pytest.approx(sum(r["cost_usd"] for r in read_run_log(out)[0]))
    tight = tmp_path / "tight.jsonl"
    summary = batch(server, tight, bank, trials=3, budget=0.004)
    assert summary.budget_exhausted and 0 < summary.completed < 12 and summary.spent_usd <= 0.004


def test_cli_batch_dry_run_and_run(server, bank, tmp_path, capsys):
    bank_file = str(_bank_file(bank, tmp_path))
    out = tmp_path / "r.jsonl"
    base = ["run", "--bank", bank_file, "--model", MODEL, "--out", str(out), "--base-url", server.openai_url,
            "--price-in", "2", "--price-out", "8", "--max-tokens", "64", "--dry-run"]
    assert main(base) == 0
    online = capsys.readouterr().out
    assert main([*base, "--batch"]) == 0
    batched = capsys.readouterr().out
    assert "batch prices (0.5 x" in batched and server.batch_creations == 0 and not out.exists()

    def upper(text):
        return float(text.split("at most $")[1].split()[0])
    assert upper(batched) == pytest.approx(upper(online) * BATCH_DISCOUNT, abs=1e-4)

    code = main([*base[:-1], "--batch", "--poll-interval", "0.01", "--trials", "1"])
    text = capsys.readouterr().out
    assert code == 0 and "4 answered" in text and "batches" in text and "completed 1" in text
    assert KEY not in out.read_text()


def test_batch_refuses_baselines(bank, tmp_path, keys, capsys):  # noqa: F811
    bank_file = str(_bank_file(bank, tmp_path))
    out = str(tmp_path / "r.jsonl")
    assert main(["run", "--bank", bank_file, "--model", "baseline:oracle", "--out", out, "--batch"]) == 2
    assert "not supported" in capsys.readouterr().err
    with pytest.raises(ValueError, match="not supported"):
        run_batch(bank, "baseline:oracle", out)


def test_sigkill_mid_poll_then_the_same_command_collects(keys, bank, tmp_path):  # noqa: F811
    bank_file = _bank_file(bank, tmp_path)
    out = tmp_path / "r.jsonl"
    env = {**os.environ, "PYTHONPATH": str(REPO), "FASTSPE_NUMBA_CACHE": "1"}
    with FakeLLMServer(key=KEY) as srv:
        srv.batch_polls = 10**9  # the first process never sees its batch end
        cmd = [sys.executable, "-m", "fastspe", "run", "--bank", str(bank_file), "--model", MODEL, "--out", str(out),
               "--base-url", srv.openai_url, "--trials", "3", "--batch", "--poll-interval", "0.05"]
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not srv.batches.get("batch-2", {}).get("polls", 0) >= 2:
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
        assert [m["event"] for m in markers(out)] == ["batch_pending", "batch_submitted"]
        srv.batch_polls = 0
        again = subprocess.run(cmd, env=env, capture_output=True, timeout=120)
        assert again.returncode == 0, again.stderr.decode()
        assert srv.batch_creations == 1 and sorted(Counter(srv.answered_trials()).values()) == [1] * 12
    assert len([r for r in read_run_log(out)[0] if r["status"] == "ok"]) == 12
    assert KEY.encode() not in out.read_bytes() + again.stdout + again.stderr


def test_a_failed_poll_is_tried_again(server, bank, tmp_path, monkeypatch):
    import openai

    out = tmp_path / "r.jsonl"
    server.batch_polls = 2
    real, failed = openai.resources.batches.Batches.retrieve, []

    def flaky(self, batch_id, **kw):  # the first poll's connection drops
        if not failed:
            failed.append(batch_id)
            raise openai.APIConnectionError(request=None)
        return real(self, batch_id, **kw)
    monkeypatch.setattr(openai.resources.batches.Batches, "retrieve", flaky)
    summary = batch(server, out, bank)
    assert failed and summary.completed == 12 and server.batch_creations == 1
