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
from fastspe.cli.run import EXIT_INCOMPLETE
from fastspe.boundary.responses import read_responses
from fastspe.report.run_stats import run_stats
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
    kw = {
        "trials": 3,
        "poll_interval": 0.01,
        "pricing": PRICES,
        "settings": SETTINGS,
        "policy": RetryPolicy(max_retries=2, max_rate_limit_retries=2, base_delay=0.01),
        **kw,
    }
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
        kill_when(
            m,
            before=lambda records: (
                any("batch_id" in r and "event" not in r for r in records) and (written.append(1) or len(written) > 3)
            ),
        )
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
    run_model(
        paper_bank.head(1), MODEL, online, base_url=server.openai_url, trials=1, settings=SETTINGS, pricing=PRICES
    )
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
    assert (
        main(["score", "--bank", str(_bank_file(paper_bank, tmp_path)), "--responses", str(out), "--out", str(scored)])
        == 0
    )
    assert len(pd.read_parquet(scored)) == 1200


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_each_provider_killed_twice_and_resumed(server, bank, tmp_path, monkeypatch, wire):
    model, url = (MODEL, server.openai_url) if wire == "openai" else ("anthropic:fake-claude", server.anthropic_url)
    out = tmp_path / "r.jsonl"
    server.batch_polls = 2
    server.push(status(500), status(429), status(400), drop())
    monkeypatch.setattr(batch_mod, "WRITE_CHUNK", 4)

    def run(**kw):
        return run_batch(
            bank,
            model,
            out,
            base_url=url,
            trials=3,
            poll_interval=0.01,
            pricing=PRICES,
            settings=SETTINGS,
            policy=RetryPolicy(max_retries=2, base_delay=0.01),
            **kw,
        )

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
        "server_error": 2,
        "rate_limit": 1,
        "client_error": 1,
    }
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
    client.messages.batches.create(
        requests=[
            {
                "custom_id": f"x{i}",
                "params": {"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": "hi"}]},
            }
            for i in range(4)
        ]
    )
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
    assert [e["event"] for e in markers(out)] == [
        "batch_pending",
        "batch_done",
        "batch_pending",
        "batch_submitted",
        "batch_done",
    ]


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
    base = [
        "run",
        "--bank",
        bank_file,
        "--model",
        MODEL,
        "--out",
        str(out),
        "--base-url",
        server.openai_url,
        "--price-in",
        "2",
        "--price-out",
        "8",
        "--max-tokens",
        "64",
        "--dry-run",
    ]
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
        cmd = [
            sys.executable,
            "-m",
            "fastspe",
            "run",
            "--bank",
            str(bank_file),
            "--model",
            MODEL,
            "--out",
            str(out),
            "--base-url",
            srv.openai_url,
            "--trials",
            "3",
            "--batch",
            "--poll-interval",
            "0.05",
        ]
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
            # (a request of the SDK's own HTTP library: openai 3.x reads its headers, and uses httpx2, not httpx)
            with openai.DefaultHttpxClient() as http:
                request = http.build_request("GET", f"{server.openai_url}/batches/{batch_id}")
            raise openai.APIConnectionError(request=request)
        return real(self, batch_id, **kw)

    monkeypatch.setattr(openai.resources.batches.Batches, "retrieve", flaky)
    summary = batch(server, out, bank)
    assert failed and summary.completed == 12 and server.batch_creations == 1


# --- damaged results, answers against error lines, servers without batch endpoints ----------------------------


def damage_first_batch(server, damage):
    """Make the first finished batch's output lines pass through ``damage(lines)``; later batches are intact."""
    hits = []

    def edit(kind, lines):
        if kind in ("output", "results") and not hits:
            hits.append(kind)
            return damage(lines)
        return lines

    server.edit_batch_file = edit


def test_damaged_output_lines_fail_only_their_requests_and_a_rerun_sends_those_once(server, bank, tmp_path, capsys):
    """Each sort of damaged line costs only its own request: the good lines' paid answers are all logged."""
    cid = lambda line: json.loads(line)["custom_id"]  # noqa: E731
    damaged, named = [], []

    def damage(lines):
        damaged.extend(cid(x) for x in lines[:8])
        named.extend(cid(x) for x in lines[2:6])
        status_abc = json.loads(lines[2])
        status_abc["response"]["status_code"] = "abc"
        string_body = {"custom_id": cid(lines[3]), "response": {"status_code": 500, "body": "upstream exploded"}}
        string_error = {"custom_id": cid(lines[4]), "response": None, "error": "worker lost"}
        no_id = json.loads(lines[6])
        del no_id["custom_id"]
        return [
            b"{not json",
            b"[1, 2]",
            json.dumps(status_abc).encode(),
            json.dumps(string_body).encode(),
            json.dumps(string_error).encode(),
            lines[5][: len(lines[5]) // 2],  # cut short: its id still shows
            json.dumps(no_id).encode(),
            b'{"custom_id": "\xff\xfe"}',
            *lines[8:],
        ]

    damage_first_batch(server, damage)
    bank_file = str(_bank_file(bank, tmp_path))
    out = tmp_path / "r.jsonl"
    cmd = [
        "run",
        "--bank",
        bank_file,
        "--model",
        MODEL,
        "--out",
        str(out),
        "--base-url",
        server.openai_url,
        "--max-tokens",
        "64",
        "--batch",
        "--poll-interval",
        "0.01",
        "--max-retries",
        "0",
    ]
    assert main(cmd) == EXIT_INCOMPLETE  # 8 trials have no answer yet; no stop, no traceback
    err = capsys.readouterr().err
    records = read_run_log(out)[0]
    good = {r["trial_id"] for r in records if r["status"] == "ok"}
    assert len(good) == 4 and not good & set(damaged)  # every intact line's answer is in the log
    failed = {r["trial_id"]: r for r in records if r["status"] == "error"}
    assert set(failed) == set(damaged) and all(
        r["error_type"] in ("bad_response", "server_error") for r in failed.values()
    )
    # A line whose request can be told is a failed attempt naming the file and line ...
    output_file = server.batches["batch-2"]["output_file_id"]
    assert f"output file {output_file}: line 3: status_code 'abc' is not an HTTP status" in failed[named[0]]["error"]
    assert failed[named[1]]["error"] == "upstream exploded" and failed[named[1]]["http_status"] == 500
    assert failed[named[2]]["error"] == "worker lost"
    assert f"{output_file}: line 6: not JSON" in failed[named[3]]["error"]
    # ... one that cannot is a warning naming them (the request counts as failed: no readable result).
    for line in (1, 2, 7, 8):
        assert f"output file {output_file}: line {line}:" in err.replace("\n", " ")
    assert main(cmd) == 0  # the rerun sends only the 8 trials without an answer, in one batch
    assert server.batch_creations == 2
    sent = Counter(server.answered_trials())
    assert {t for t, n in sent.items() if n == 2} == set(damaged) and set(sent.values()) == {1, 2}
    done = [r for r in read_run_log(out)[0] if r["status"] == "ok"]
    assert len(done) == 12 == len({r["trial_id"] for r in done})
    assert main(cmd) == 0 and server.batch_creations == 2  # nothing left to send


@pytest.mark.parametrize("order", ["error file after output", "error line before answer", "anthropic"])
def test_a_delivered_answer_wins_over_an_error_line_for_the_same_request(server, bank, tmp_path, order):
    out = tmp_path / "r.jsonl"
    twice = []

    def edit(kind, lines):
        if kind == "error" and order == "error file after output":
            return [
                *lines,
                json.dumps(
                    {
                        "custom_id": twice[0],
                        "response": {
                            "status_code": 500,
                            "body": {"error": {"message": "lost", "code": "server_error"}},
                        },
                    }
                ).encode(),
            ]
        if kind in ("output", "results"):
            twice.append(json.loads(lines[0])["custom_id"])
            error = (
                {"custom_id": twice[0], "result": {"type": "errored", "error": {"error": {"type": "api_error"}}}}
                if kind == "results"
                else {"custom_id": twice[0], "response": {"status_code": 500, "body": {"error": {"message": "x"}}}}
            )
            return [json.dumps(error).encode(), *lines] if order != "error file after output" else lines
        return lines

    server.edit_batch_file = edit
    if order == "anthropic":
        summary = run_batch(
            bank, "anthropic:fake-claude", out, base_url=server.anthropic_url, trials=3, poll_interval=0.01
        )
    else:
        summary = batch(server, out, bank)
    records = read_run_log(out)[0]
    assert [r["status"] for r in records if r["trial_id"] == twice[0]] == ["ok"]
    assert summary.completed == 12 and summary.remaining == 0 and summary.failures == {}
    assert server.batch_creations == 1  # the answered request was never sent again
    assert sorted(Counter(server.answered_trials()).values()) == [1] * 12


def test_anthropic_damaged_result_lines_fail_only_their_requests(server, bank, tmp_path, recwarn):
    out = tmp_path / "r.jsonl"
    lost = []

    def damage(lines):
        lost.extend(json.loads(x)["custom_id"] for x in lines[:3])
        odd = json.loads(lines[2])
        odd["result"] = {"type": "mystery"}
        return [b"{not json", b"null", json.dumps(odd).encode(), *lines[3:]]

    damage_first_batch(server, damage)
    summary = run_batch(
        bank,
        "anthropic:fake-claude",
        out,
        base_url=server.anthropic_url,
        trials=3,
        poll_interval=0.01,
        policy=RetryPolicy(max_retries=0),
    )
    assert summary.completed == 9 and summary.remaining == 3
    failed = {r["trial_id"]: r["error"] for r in read_run_log(out)[0] if r["status"] == "error"}
    assert set(failed) == set(lost) and "line 3: result type 'mystery'" in failed[lost[2]]
    assert [str(w.message).split(": line")[1][:3] for w in recwarn if "results: line" in str(w.message)] == [
        " 1:",
        " 2:",
    ]
    summary = run_batch(bank, "anthropic:fake-claude", out, base_url=server.anthropic_url, trials=3, poll_interval=0.01)
    assert summary.completed == 3 and summary.remaining == 0 and server.batch_creations == 2


@pytest.mark.parametrize(
    "wire, route, code",
    [
        ("openai", "POST /v1/files", 404),
        ("openai", "POST /v1/batches", 405),
        ("anthropic", "POST /v1/messages/batches", 404),
    ],
)
def test_a_server_without_batch_endpoints_gets_one_clear_error_and_no_open_marker(
    server, bank, tmp_path, capsys, wire, route, code
):
    model, url = (MODEL, server.openai_url) if wire == "openai" else ("anthropic:fake-claude", server.anthropic_url)
    server.refuse[route] = code
    out = tmp_path / "r.jsonl"
    cmd = [
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
        "--batch",
        "--poll-interval",
        "0.01",
    ]
    for _ in range(2):  # the same again: no batch to look up, the same one error
        assert main(cmd) == 2
        captured = capsys.readouterr()
        errors = [line for line in captured.err.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and url in errors[0] and route in errors[0] and f"HTTP {code}" in errors[0]
        assert "no batch API" in errors[0] and "without --batch" in errors[0]
        assert "0 sent" in captured.out and "0 answered" in captured.out
        assert server.batch_creations == 0 and not read_run_log(out)[0]
        events = [m["event"] for m in markers(out)]
        if route == "POST /v1/files":  # refused before any marker
            assert events == []
        else:  # the pending marker, written before the create, is closed at once with the reason
            assert events[-2:] == ["batch_pending", "batch_done"] and markers(out)[-1]["batch_id"] is None
            assert route in markers(out)[-1]["error"]
        assert batch_mod._open_batches(out, model)[0] == {}


def test_a_stale_pending_marker_on_a_server_without_batch_endpoints_is_closed(server, bank, tmp_path):
    out = tmp_path / "r.jsonl"
    with RunLog(out) as log:  # left by an older fastspe that wrote the marker before a refused upload
        log.append(
            {
                "event": "batch_pending",
                "condition": MODEL,
                "batch_provider": "openai",
                "token": "t0",
                "created_after": time.time(),
                "custom_ids": [],
                "timestamp": "x",
            }
        )
    server.refuse.update({"GET /v1/batches": 404, "POST /v1/files": 404})
    summary = batch(server, out, bank, trials=1)
    assert "no batch API" in summary.fatal_error and summary.requested == 0
    assert [m["event"] for m in markers(out)] == ["batch_pending", "batch_done"]
