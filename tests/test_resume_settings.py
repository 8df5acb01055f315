"""Resuming a run log: a trial is (condition, board_id, trial); settings of a condition never change;
damaged logs are reported; keys never reach the log in any form."""

from __future__ import annotations

import base64
import json
import threading
import urllib.parse

import pytest

from tests.fake_llm_server import status
from tests.test_runners import FAST, KEY, _bank_file, bank, keys, lines_of, paper_bank, server  # noqa: F401 (fixtures)
from fastspe.cli import main
from fastspe.boundary.responses import read_responses
from fastspe.runners import GenerationSettings, RetryPolicy, RunLog, estimate_run, read_run_log, run_baseline, run_model
from fastspe.runners import engine
from fastspe.runners.log import scrub

MODEL = "openai:fake-gpt"


def _run(server, bank, out, **kw):
    kw.setdefault("base_url", server.openai_url)
    kw.setdefault("policy", FAST)
    return run_model(bank, MODEL, out, trials=kw.pop("trials", 2), max_connections=2, timeout=5, **kw)


def test_other_settings_are_refused_before_sending(server, bank, tmp_path):
    out = tmp_path / "r.jsonl"
    _run(server, bank, out, settings=GenerationSettings(max_tokens=100))
    n, before = len(server.seen), out.read_bytes()
    for settings, message in [
        (GenerationSettings(max_tokens=200), "max_tokens 100, this run asks for max_tokens 200"),
        (GenerationSettings(max_tokens=100, temperature=0.5), "temperature None, this run asks for temperature 0.5"),
    ]:
        with pytest.raises(ValueError, match=f"line 1: condition '{MODEL}' was run with {message}.*--condition"):
            _run(server, bank, out, settings=settings)
    assert len(server.seen) == n and out.read_bytes() == before
    # Under its own condition the same model with other settings goes into the same log, and the log scores.
    again = _run(server, bank, out, settings=GenerationSettings(max_tokens=200), condition="fake-gpt-200")
    assert again.completed == 8 and len(server.seen) == n + 8
    table = read_responses(out, bank=bank)
    assert len(table) == 16 and sorted(table["condition"].unique()) == ["fake-gpt-200", MODEL]


def test_base_url_is_not_part_of_a_trial(server, bank, tmp_path):
    out = tmp_path / "r.jsonl"
    _run(server, bank, out)
    n = len(server.seen)
    again = _run(server, bank, out, base_url=server.openai_url.replace("127.0.0.1", "localhost") + "/")
    assert again.requested == 0 and again.already_complete == 8 and len(server.seen) == n


def test_logs_with_old_trial_ids_resume(server, bank, tmp_path):
    out = tmp_path / "r.jsonl"
    server.push(status(503))
    first = _run(server, bank, out, trials=1, policy=RetryPolicy(max_retries=0))
    assert first.remaining == 1
    # Ids of an older fastspe (they hashed settings and base URL): only (condition, board_id, trial) may count.
    records = read_run_log(out)[0]
    out.write_text("".join(json.dumps({**r, "trial_id": f"old{i:029d}"}) + "\n" for i, r in enumerate(records)))
    n = len(server.seen)
    second = _run(server, bank, out, trials=1)
    assert second.requested == 1 and second.already_complete == 3 and len(server.seen) == n + 1
    failed = next(r["board_id"] for r in records if r["status"] == "error")
    assert [(r["attempt"], r["status"]) for r in lines_of(out) if r["board_id"] == failed] == [(1, "error"), (2, "ok")]


def test_cli_names_the_setting_and_condition_option(server, bank, tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    args = [
        "run",
        "--bank",
        str(_bank_file(bank, tmp_path)),
        "--model",
        MODEL,
        "--out",
        str(out),
        "--base-url",
        server.openai_url,
        "--trials",
        "1",
        "--backoff",
        "0.01",
    ]
    assert main(args + ["--max-tokens", "100"]) == 0
    n = len(server.seen)
    capsys.readouterr()
    assert main(args + ["--max-tokens", "200"]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith(f"error: {out}: line 1: condition '{MODEL}' was run with max_tokens 100")
        and "--condition" in err
    )
    assert main(args + ["--max-tokens", "200", "--condition", "gpt-long"]) == 0 and len(server.seen) == n + 4
    assert {r["condition"] for r in lines_of(out)} == {MODEL, "gpt-long"}


def test_changed_board_prompt_is_refused(server, bank, tmp_path):
    out = tmp_path / "r.jsonl"
    _run(server, bank.head(1), out, trials=1)
    changed = bank.iloc[[1]].reset_index(drop=True)  # board 1's board under board 0's id
    changed["board_id"] = bank.loc[0, "board_id"]
    with pytest.raises(ValueError, match="asked with another prompt than this bank's board"):
        estimate_run(changed, MODEL, out, base_url=server.openai_url, trials=1)


def test_baseline_runs_on_one_log_write_each_trial_once(bank, tmp_path, monkeypatch):
    """Run A plans, then waits to open the log while run B writes every trial: A must write none again."""
    out = tmp_path / "b.jsonl"
    a_waits, b_done = threading.Event(), threading.Event()
    real = engine.RunLog

    def run_log(*args, **kw):
        if threading.current_thread().name == "run-a":
            a_waits.set()
            b_done.wait(30)
        return real(*args, **kw)

    monkeypatch.setattr(engine, "RunLog", run_log)
    summaries = {}
    a = threading.Thread(
        target=lambda: summaries.setdefault("a", run_baseline(bank, "oracle", out, trials=2)), name="run-a"
    )
    a.start()
    assert a_waits.wait(30)
    summaries["b"] = run_baseline(bank, "oracle", out, trials=2)
    b_done.set()
    a.join(30)
    records = lines_of(out)
    assert len(records) == 8 and len({(r["board_id"], r["trial"]) for r in records}) == 8
    assert summaries["b"].completed == 8 and summaries["a"].completed == 0 and summaries["a"].already_complete == 8
    with pytest.raises(ValueError, match="was run with seed 0, this run asks for seed 1"):
        run_baseline(bank, "oracle", out, trials=2, seed=1)


def test_corrupt_middle_line_is_an_error_a_torn_tail_is_not(server, bank, tmp_path):
    out = tmp_path / "r.jsonl"
    _run(server, bank, out, trials=1)
    lines = out.read_bytes().split(b"\n")
    damaged = b"\n".join(lines[:2] + [b'{"board_id": "x", "sta'] + lines[2:])
    out.write_bytes(damaged)
    n = len(server.seen)
    with pytest.raises(
        ValueError,
        match=rf"{out}: line 3 is not a JSON object .* append "
        r"\{\"event\": \"torn_line\", \"line\": 3\}",
    ):
        _run(server, bank, out, trials=1)
    assert len(server.seen) == n and out.read_bytes() == damaged
    with open(out, "ab") as fh:  # the user's way out, append-only: mark the line as known
        fh.write(b'{"event": "torn_line", "line": 3}\n')
    assert _run(server, bank, out, trials=2).completed == 4
    with open(out, "ab") as fh:  # a torn last line, as a killed run leaves it: resumed without fuss
        fh.write(b'{"board_id": "x", "sta')
    summary = _run(server, bank, out, trials=3)
    assert summary.completed == 4 and summary.skipped_log_lines == 2


def test_key_forms_are_redacted(tmp_path):
    bare = KEY[len("sk-") :]
    forms = [KEY, bare, base64.b64encode(KEY.encode()).decode(), base64.b64encode(KEY.encode()).decode().rstrip("=")]
    text = " | ".join(forms)
    assert scrub(text, [KEY]) == " | ".join(["[redacted]"] * 4)
    ant = "sk-ant-api03-" + "A1b2C3d4" * 4
    assert scrub(f"key {ant[len('sk-ant-') :]}.", [ant]) == "key [redacted]."
    odd = "k3y/with+chars=and-length"
    assert scrub(f"?key={urllib.parse.quote(odd, safe='')}&x", [odd]) == "?key=[redacted]&x"
    assert scrub("short words stay", ["sk-short"]) == "short words stay"  # a bare form under 16 characters is kept
    out = tmp_path / "r.jsonl"
    with RunLog(out, secrets=[KEY]) as log:
        log.append({"error": text})
    body = out.read_text()
    assert not any(form in body for form in forms) and body.count("[redacted]") == 4


def test_python_api_refuses_non_finite_values(bank, tmp_path):
    from fastspe.runners import Budget, Pricing

    for make in (
        lambda: RetryPolicy(base_delay=float("inf")),
        lambda: RetryPolicy(max_delay=float("nan")),
        lambda: Pricing(float("nan"), 0),
        lambda: Pricing(0, float("inf")),
        lambda: Budget(float("nan")),
        lambda: GenerationSettings(temperature=float("inf")),
        lambda: run_model(bank, MODEL, tmp_path / "r.jsonl", timeout=float("nan")),
    ):
        with pytest.raises(ValueError, match="finite"):
            make()
    assert not (tmp_path / "r.jsonl").exists()


def test_baseline_batches_a_crash_loses_only_the_batch_being_written(bank, tmp_path, monkeypatch):
    # Baselines sync once per batch; a crash mid-batch leaves whole earlier batches and at most a torn tail,
    # progress never counted the lost batch, and the resumed run fills exactly the missing trials.
    out = tmp_path / "r.jsonl"
    monkeypatch.setattr(engine, "BASELINE_BATCH", 3)
    real = RunLog.append_many
    calls, reported = [0], []

    def crash_on_third(self, records):
        calls[0] += 1
        if calls[0] == 3:
            data = json.dumps(records[0]).encode()
            self._write_bytes(data[: len(data) // 2])  # the kill lands mid-line
            raise KeyboardInterrupt
        return real(self, records)

    monkeypatch.setattr(RunLog, "append_many", crash_on_third)
    with pytest.raises(KeyboardInterrupt):
        run_baseline(bank, "greedy", out, trials=2, progress=lambda done, total: reported.append(done))
    assert reported == [2, 4]  # one board (two trials) per slice
    records, torn = read_run_log(out)
    assert len(records) == 4 and torn == 1 and not out.read_bytes().endswith(b"\n")
    monkeypatch.setattr(RunLog, "append_many", real)
    summary = run_baseline(bank, "greedy", out, trials=2)
    assert summary.already_complete == 4 and summary.completed == 4 and summary.skipped_log_lines == 1
    records, torn = read_run_log(out)
    assert len(records) == 8 and len({(r["board_id"], r["trial"]) for r in records}) == 8


@pytest.mark.parametrize("planner", ["oracle", "greedy", "detour", "noisy", "random"])
def test_baseline_slices_give_the_answers_of_one_pass(paper_bank, tmp_path, monkeypatch, planner):
    from fastspe.domains.sliding.planners.baselines import baseline_responses

    bank = paper_bank.iloc[::13].reset_index(drop=True)  # every layout size and depth, several cohorts
    monkeypatch.setattr(engine, "BASELINE_BATCH", 7)  # slices of 2 boards, cutting across layouts
    out = tmp_path / "r.jsonl"
    run_baseline(bank, planner, out, trials=3, seed=5)
    logged = {(r["board_id"], r["trial"]): r["response"] for r in read_run_log(out)[0]}
    whole = baseline_responses(bank, planner, trials=3, seed=5)
    assert logged == {(b, t): r for b, t, r in zip(whole["board_id"], whole["trial"], whole["response"])}
