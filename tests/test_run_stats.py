"""Run statistics (fastspe.report.run_stats, `fastspe runs stats`) checked against plain-Python sums over the records
that fastspe.runners.read_run_log (the precise line reader) reads from the same logs."""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastspe.boundary import run_log_attempts
from fastspe.report import run_stats as rs
from fastspe.cli import main
from fastspe.runners import Pricing, RetryPolicy, read_run_log, run_baseline, run_model
from fastspe.report.render import to_latex, to_markdown
from tests.fake_llm_server import ok, status
from tests.test_runners import bank, keys, paper_bank, server  # noqa: F401 (fixtures)
from tests.test_startup import HEAVY, PROBE, REPO

FAST = RetryPolicy(max_retries=3, max_rate_limit_retries=3, base_delay=0.01, max_delay=0.02, retry_after_cap=0.05)
TORN = '{"board_id": "b0", "condition": "m:a", "tri'


def attempt(condition, board, trial, ok_=True, **fields):
    """One attempt record as fastspe.runners.engine writes it (the fields the statistics read)."""
    rec = {
        "board_id": board,
        "condition": condition,
        "trial": trial,
        "status": "ok" if ok_ else "error",
        "error_type": None,
        "http_status": 200 if ok_ else 500,
        "input_tokens": None,
        "output_tokens": None,
        "reasoning_tokens": None,
        "latency_s": 0.5,
        "cost_usd": None,
        "response": "MOVES: U" if ok_ else None,
    }
    rec.update(fields)
    return rec


def write_log(path, lines, newline_at_end=True) -> Path:
    """``lines`` (dicts as JSON, strings as they are) one per line."""
    text = "\n".join(json.dumps(x) if isinstance(x, dict) else x for x in lines)
    Path(path).write_text(text + ("\n" if newline_at_end else ""), encoding="utf-8")
    return Path(path)


# -- the reference: plain Python over read_run_log's records ----------------------------------------------


def _numbers(records, name):
    values = [r.get(name) for r in records]
    return [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool) and v == v]


def reference(paths, verdicts=None) -> dict:
    records = [rec for p in paths for rec in read_run_log(p)[0]]
    complete = {} if verdicts is None else verdicts[verdicts["status"] == "complete"]["condition"].value_counts()
    out = {}
    for cond in sorted({r["condition"] for r in records}):
        mine = [r for r in records if r["condition"] == cond]
        oks = [r for r in mine if r["status"] == "ok"]
        trials = {(r["board_id"], r["trial"]) for r in mine}
        answered = {(r["board_id"], r["trial"]) for r in oks}
        costs = _numbers(mine, "cost_usd")
        cost = math.fsum(costs) if costs else math.nan
        out_tokens, latency = _numbers(oks, "output_tokens"), _numbers(oks, "latency_s")
        plans = complete.get(cond, 0) if verdicts is not None else 0
        out[cond] = {
            "answers": len(answered),
            "attempts": len(mine),
            "retries_per_answer": (len(mine) - len(trials)) / len(trials),
            "failed_attempts": len(mine) - len(oks),
            "rate_limited": sum(
                r["status"] != "ok" and (r.get("error_type") == "rate_limit" or r.get("http_status") == 429)
                for r in mine
            ),
            "trials_without_answer": len(trials - answered),
            "input_tokens_mean": _fmean(_numbers(oks, "input_tokens")),
            "output_tokens_mean": _fmean(out_tokens),
            "output_tokens_p95": float(np.percentile(out_tokens, 95)) if out_tokens else math.nan,
            "reasoning_tokens_mean": _fmean(_numbers(oks, "reasoning_tokens")),
            "latency_p50_s": statistics.median(latency) if latency else math.nan,
            "latency_p95_s": float(np.percentile(latency, 95)) if latency else math.nan,
            "cost_usd": cost,
            "cost_per_answer_usd": cost / len(answered) if answered else math.nan,
            "cost_per_completed_plan_usd": cost / plans if plans else math.nan,
        }
    return out


def _fmean(values):
    return statistics.fmean(values) if values else math.nan


def assert_matches(stats: pd.DataFrame, want: dict) -> None:
    assert list(stats.columns) == rs.COLUMNS
    assert list(stats["condition"]) == list(want)
    for row in stats.to_dict("records"):
        expected = want[row.pop("condition")]
        assert row == pytest.approx(expected, nan_ok=True, rel=1e-12, abs=1e-12), row
    assert all(stats[c].dtype == np.int64 for c in rs.COUNT_COLUMNS)


# -- statistics by hand ------------------------------------------------------------------------------------


def test_every_statistic_on_a_hand_made_log(tmp_path):
    log = write_log(
        tmp_path / "r.jsonl",
        [
            attempt(
                "m:a", "b0", 0, input_tokens=100, output_tokens=10, reasoning_tokens=4, latency_s=1.0, cost_usd=0.01
            ),
            attempt("m:a", "b1", 0, False, error_type="rate_limit", http_status=429, latency_s=9.0),
            attempt("m:a", "b1", 0, False, error_type="server_error", http_status=503, latency_s=9.0),
            attempt("m:a", "b1", 0, input_tokens=120, output_tokens=30, latency_s=2.0, cost_usd=0.02),  # no reasoning
            attempt("m:a", "b2", 0, False, error_type="server_error", http_status=500),
            attempt("m:a", "b2", 0, False, error_type="timeout", http_status=None),
            attempt(
                "m:a", "b0", 1, input_tokens=None, output_tokens=50, latency_s=4.0, cost_usd=0.03
            ),  # tokens missing
            attempt("m:b", "b0", 0, input_tokens=7, output_tokens=7, latency_s=0.25),  # never priced
        ],
    )
    stats = rs.run_stats(log)
    a, b = stats.to_dict("records")
    assert (
        a["condition"],
        a["answers"],
        a["attempts"],
        a["failed_attempts"],
        a["rate_limited"],
        a["trials_without_answer"],
    ) == ("m:a", 3, 7, 4, 1, 1)
    assert a["retries_per_answer"] == pytest.approx((7 - 4) / 4)  # four trials had an attempt
    assert a["input_tokens_mean"] == pytest.approx(110.0)  # the missing count is left out, not a 0
    assert a["output_tokens_mean"] == pytest.approx(30.0)
    assert a["output_tokens_p95"] == pytest.approx(10 + 0.95 * 2 * 20)  # linear between ranks 2 and 3: 48
    assert a["reasoning_tokens_mean"] == pytest.approx(4.0)
    assert a["latency_p50_s"] == pytest.approx(2.0)  # completed attempts only: 1, 2, 4
    assert a["latency_p95_s"] == pytest.approx(2.0 + 0.9 * 2.0)
    assert a["cost_usd"] == pytest.approx(0.06) and a["cost_per_answer_usd"] == pytest.approx(0.02)
    assert math.isnan(a["cost_per_completed_plan_usd"])
    assert (b["condition"], b["answers"], b["attempts"], b["retries_per_answer"]) == ("m:b", 1, 1, 0.0)
    assert math.isnan(b["reasoning_tokens_mean"]) and math.isnan(b["cost_usd"]) and math.isnan(b["cost_per_answer_usd"])
    assert_matches(stats, reference([log]))
    assert stats.attrs["skipped_lines"] == {str(log): 0}


def test_verdicts_give_the_cost_per_completed_plan(tmp_path):
    log = write_log(
        tmp_path / "r.jsonl",
        [attempt("m:a", f"b{i}", 0, cost_usd=0.01) for i in range(4)]
        + [attempt("m:b", "b0", 0, cost_usd=0.5)]
        + [attempt("m:c", "b0", 0, cost_usd=0.0)],
    )
    verdicts = pd.DataFrame(
        {
            "condition": ["m:a", "m:a", "m:a", "m:a", "m:b", "other"],
            "status": ["complete", "complete", "illegal", "legal_noncompletion", "illegal", "complete"],
        }
    )
    stats = rs.run_stats(log, verdicts=verdicts).set_index("condition")
    assert stats.loc["m:a", "cost_per_completed_plan_usd"] == pytest.approx(0.04 / 2)
    assert math.isnan(stats.loc["m:b", "cost_per_completed_plan_usd"])  # no plan completed
    assert math.isnan(stats.loc["m:c", "cost_per_completed_plan_usd"])  # no verdicts for it
    assert_matches(rs.run_stats(log, verdicts=verdicts), reference([log], verdicts))
    with pytest.raises(ValueError, match="status"):
        rs.run_stats(log, verdicts=verdicts.drop(columns="status"))


def test_conditions_choose_and_order_rows(tmp_path):
    log = write_log(tmp_path / "r.jsonl", [attempt(c, "b0", 0) for c in ("m:c", "m:a", "m:b")])
    assert list(rs.run_stats(log)["condition"]) == ["m:a", "m:b", "m:c"]
    assert list(rs.run_stats(log, conditions=["m:c", "gone", "m:a"])["condition"]) == ["m:c", "m:a"]
    with pytest.raises(ValueError, match=r"none of the conditions \['gone'\].*'m:a', 'm:b', 'm:c'"):
        rs.run_stats(log, conditions=["gone"])


def test_two_logs_are_one_set_of_trials(tmp_path):
    """A trial's attempts count together across logs; an answer in both logs is one answer (two completed
    attempts for the token, latency and cost statistics)."""
    first = write_log(
        tmp_path / "one.jsonl",
        [
            attempt("m:a", "b0", 0, False, error_type="rate_limit", http_status=429, cost_usd=None),
            attempt("m:a", "b1", 0, output_tokens=10, cost_usd=0.1),
            attempt("m:b", "b0", 0, output_tokens=5),
        ],
    )
    second = write_log(
        tmp_path / "two.jsonl",
        [
            attempt("m:a", "b0", 0, output_tokens=20, cost_usd=0.2),
            attempt("m:a", "b1", 0, output_tokens=30, cost_usd=0.3),
        ],
    )
    stats = rs.run_stats([first, second])
    a = stats.set_index("condition").loc["m:a"]
    assert (a["answers"], a["attempts"], a["rate_limited"], a["trials_without_answer"]) == (2, 4, 1, 0)
    assert a["retries_per_answer"] == pytest.approx(1.0) and a["cost_usd"] == pytest.approx(0.6)
    assert_matches(stats, reference([first, second]))
    assert stats.attrs["skipped_lines"] == {str(first): 0, str(second): 0}


# -- reading exactly what read_run_log reads ---------------------------------------------------------------


def test_torn_lines_markers_and_blank_lines_are_skipped(tmp_path):
    lines = [
        attempt("m:a", "b0", 0, output_tokens=10, cost_usd=0.5),
        TORN,
        {"event": "torn_line", "line": 2},
        "",
        "   ",
        "[1, 2]",
        '"text"',
        attempt("m:a", "b0", 1, output_tokens=20, latency_s=3.0),
        TORN,
    ]
    log = write_log(tmp_path / "r.jsonl", lines, newline_at_end=False)  # the last line torn too
    records, skipped = read_run_log(log)
    stats = rs.run_stats(log)
    assert stats.attrs["skipped_lines"] == {str(log): skipped} and skipped == 4
    assert (stats["answers"].item(), stats["attempts"].item()) == (2, 2) == (len(records), len(records))
    assert_matches(stats, reference([log]))


def test_values_of_an_unexpected_type_count_as_missing(tmp_path):
    log = write_log(
        tmp_path / "r.jsonl",
        [
            attempt("m:a", "b0", 0, input_tokens="12", output_tokens=True, latency_s=None, cost_usd=0.25),
            attempt(
                "m:a", "b1", 0, input_tokens=30, output_tokens=40.0, latency_s=2, cost_usd="free", extra={"a": [1]}
            ),
            attempt("m:a", "b2", 0, input_tokens=2**70, error_type=7),
        ],
    )
    stats = rs.run_stats(log)
    assert stats["input_tokens_mean"].item() == pytest.approx((30 + 2**70) / 2)
    assert (stats["output_tokens_mean"].item(), stats["latency_p50_s"].item()) == (40.0, pytest.approx(1.25))
    assert_matches(stats, reference([log]))


def test_a_chunk_arrow_refuses_is_read_line_by_line_alone(tmp_path, monkeypatch):
    """Small chunks: most are read by Arrow, the one holding the torn line by json.loads; same numbers."""
    lines = [attempt("m:a", f"b{i}", i % 3, output_tokens=i, latency_s=i / 10, cost_usd=i / 100) for i in range(60)]
    lines.insert(31, TORN)
    log = write_log(tmp_path / "r.jsonl", lines)
    monkeypatch.setattr(run_log_attempts, "CHUNK_BYTES", 700)
    calls = []
    real = run_log_attempts._line_attempts
    monkeypatch.setattr(run_log_attempts, "_line_attempts", lambda *a: calls.append(a[1]) or real(*a))
    stats = rs.run_stats(log)
    assert len(calls) == 1 and stats.attrs["skipped_lines"] == {str(log): 1}
    assert_matches(stats, reference([log]))


JUNK = st.sampled_from(
    [
        "",
        "  ",
        TORN,
        '{"event": "torn_line", "line": 1}',
        "[1]",
        "null",
        "{}{}",
        "\x0b",
        '{"event": "other", "board_id": "b9", "condition": "m:z", "trial": 0, "status": "error"}',
    ]
)
RECORDS = st.builds(
    attempt,
    st.sampled_from(["m:a", "m:b", "[bold]x[/bold]"]),
    st.sampled_from(["b0", "b1", "b2"]),
    st.integers(0, 2),
    st.booleans(),
    error_type=st.sampled_from([None, "rate_limit", "server_error"]),
    http_status=st.sampled_from([None, 200, 429, 503]),
    input_tokens=st.none() | st.integers(0, 10**6),
    output_tokens=st.none() | st.integers(0, 5000),
    reasoning_tokens=st.none() | st.integers(0, 5000),
    latency_s=st.none() | st.floats(0, 100, allow_nan=False),
    cost_usd=st.none() | st.floats(0, 1, allow_nan=False),
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(RECORDS | JUNK, min_size=1, max_size=40).filter(lambda xs: any(isinstance(x, dict) for x in xs)),
    st.booleans(),
    st.sampled_from([64, 500, 1 << 20]),
)
def test_random_logs_match_the_reference(lines, torn_tail, chunk):
    with tempfile.TemporaryDirectory() as folder, mock.patch.object(run_log_attempts, "CHUNK_BYTES", chunk):
        log = write_log(Path(folder) / "r.jsonl", lines + ([TORN] if torn_tail else []), newline_at_end=not torn_tail)
        stats = rs.run_stats(log)
        assert stats.attrs["skipped_lines"] == {str(log): read_run_log(log)[1]}
        assert_matches(stats, reference([log]))


# -- real runs: the fake server and a baseline ---------------------------------------------------------------


def test_a_run_against_the_fake_server(server, bank, tmp_path):
    out = tmp_path / "r.jsonl"
    server.push(status(429, retry_after=0.01), status(503), ok(), status(429, retry_after=0.01))
    run_model(
        bank,
        "openai:fake-gpt",
        out,
        base_url=server.openai_url,
        trials=2,
        max_connections=1,
        timeout=5,
        policy=FAST,
        pricing=Pricing(1.0, 4.0),
    )
    stats = rs.run_stats(out)
    row = stats.iloc[0]
    assert (row["answers"], row["attempts"], row["rate_limited"], row["failed_attempts"]) == (8, 11, 2, 3)
    assert row["reasoning_tokens_mean"] == 5 and row["cost_usd"] > 0 and row["latency_p95_s"] > 0
    assert_matches(stats, reference([out]))


def test_a_baseline_log_costs_nothing_and_reports_no_tokens(bank, tmp_path):
    out = tmp_path / "r.jsonl"
    run_baseline(bank, "greedy", out, trials=3)
    row = rs.run_stats(out).iloc[0]
    assert (row["condition"], row["answers"], row["attempts"]) == ("baseline:greedy", 12, 12)
    assert row["retries_per_answer"] == 0
    assert (row["cost_usd"], row["cost_per_answer_usd"], row["latency_p50_s"], row["latency_p95_s"]) == (0, 0, 0, 0)
    assert all(math.isnan(row[c]) for c in ("input_tokens_mean", "output_tokens_p95", "reasoning_tokens_mean"))
    assert_matches(rs.run_stats(out), reference([out]))


# -- not run logs --------------------------------------------------------------------------------------------


def test_files_that_are_not_run_logs_are_refused(tmp_path, bank):
    from fastspe.boundary.banks import write_bank

    with pytest.raises(ValueError, match="no such file"):
        rs.run_stats(tmp_path / "missing.jsonl")
    write_bank(bank, tmp_path / "bank.jsonl")
    with pytest.raises(ValueError, match=r"bank.jsonl: line 1 is not an attempt record \(condition is missing"):
        rs.run_stats(tmp_path / "bank.jsonl")
    responses = write_log(
        tmp_path / "responses.jsonl",
        [attempt("m:a", "b0", 0)] * 2 + [{"board_id": "b0", "condition": "m:a", "trial": 1, "response": "MOVES: U"}],
    )
    with pytest.raises(ValueError, match=r"line 3 is not an attempt record \(status is missing or not text\)"):
        rs.run_stats(responses)
    (tmp_path / "junk.jsonl").write_bytes(b"\x00\xff binary\nnot json\n")
    with pytest.raises(ValueError, match=r"none of its lines is a JSON object \(2 skipped\); not a run log"):
        rs.run_stats(tmp_path / "junk.jsonl")
    (tmp_path / "empty.jsonl").write_bytes(b"")
    assert rs.run_stats(tmp_path / "empty.jsonl").empty  # a run that sent nothing


# -- the table and the command line --------------------------------------------------------------------------


def test_table_names_columns_and_formats_numbers(tmp_path):
    log = write_log(
        tmp_path / "r.jsonl",
        [
            attempt("m:a", f"b{i}", 0, input_tokens=1234 + i, output_tokens=10, latency_s=0.123, cost_usd=0.00012)
            for i in range(2)
        ]
        + [attempt("m_b", "b0", 0)],
    )
    table = rs.run_stats_table(rs.run_stats(log), labels={"m:a": "Model A"})
    text = table.formatted()
    assert list(text.columns)[:3] == ["condition", "answers", "attempts"] and "USD/completed plan" in text.columns
    first = text.iloc[0]
    assert (
        first["condition"],
        first["in tokens"],
        first["latency p50 (s)"],
        first["cost (USD)"],
        first["USD/answer"],
        first["reasoning tokens"],
    ) == ("Model A", "1,234", "0.12", "0.0002", "0.0001", "n/a")
    assert text.iloc[1]["condition"] == "m_b" and text.iloc[1]["cost (USD)"] == "n/a"
    assert "Run cost, tokens and latency per condition" in to_markdown(table) and r"m\_b" in to_markdown(table)
    assert r"m\_b" in to_latex(table) and table.name == "run_stats"


def test_cli_prints_the_table_and_writes_csv(tmp_path, capsys):
    name = "[bold red]m:a[/bold red]\x1b[31m"
    log = write_log(
        tmp_path / "r.jsonl", [attempt(name, "b0", 0, output_tokens=12, cost_usd=0.5), TORN], newline_at_end=False
    )
    out = tmp_path / "stats.csv"
    assert main(["runs", "stats", str(log), "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "[bold red]m:a[/bold red]\\x1b[31m" in captured.out  # plain text, the escape shown, no markup
    assert "USD/completed plan" in captured.out and "0.5000" in captured.out  # no column squeezed out
    assert "skipped 1 line that is not" in captured.err
    written = pd.read_csv(out)
    assert list(written.columns) == rs.COLUMNS and written["cost_usd"].item() == 0.5


def test_cli_verdicts_from_score(bank, tmp_path, capsys):
    log = tmp_path / "r.jsonl"
    run_baseline(bank, "oracle", log, trials=1)
    from fastspe.boundary.banks import write_bank

    write_bank(bank, tmp_path / "bank.parquet")
    assert (
        main(
            [
                "score",
                "--bank",
                str(tmp_path / "bank.parquet"),
                "--responses",
                str(log),
                "--out",
                str(tmp_path / "v.parquet"),
            ]
        )
        == 0
    )
    assert (
        main(["runs", "stats", str(log), "--verdicts", str(tmp_path / "v.parquet"), "--out", str(tmp_path / "s.csv")])
        == 0
    )
    assert pd.read_csv(tmp_path / "s.csv")["cost_per_completed_plan_usd"].item() == 0.0  # oracle plans all complete


@pytest.mark.parametrize(
    "argv, message",
    [
        (["runs", "stats", "missing.jsonl"], "missing.jsonl: no such file"),
        (["runs", "stats", "BANK"], "not an attempt record"),
        (["runs", "stats", "LOG", "--out", "stats.txt"], "unknown file type '.txt'"),
        (["runs", "stats", "LOG", "--out", "LOG"], "is the same file as"),
        (["runs", "stats", "LOG", "--verdicts", "missing.parquet"], "missing.parquet"),
        (["runs", "stats"], "required"),
        (["runs"], "required"),
    ],
)
def test_cli_errors_exit_2(tmp_path, bank, capsys, monkeypatch, argv, message):
    from fastspe.boundary.banks import write_bank

    monkeypatch.chdir(tmp_path)
    write_bank(bank, tmp_path / "bank.jsonl")
    log = write_log(tmp_path / "r.jsonl", [attempt("m:a", "b0", 0)])
    argv = [{"BANK": "bank.jsonl", "LOG": str(log)}.get(a, a) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err


def test_runs_help_imports_no_heavy_module():
    for argv in (["runs", "--help"], ["runs", "stats", "--help"]):
        proc = subprocess.run(
            [sys.executable, "-c", PROBE.format(argv=argv, heavy=HEAVY)],
            env={**os.environ, "PYTHONPATH": str(REPO)},
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 0 and "AssertionError" not in proc.stderr, proc.stderr


def test_a_conversation_left_unfinished_counts_no_negative_retry(tmp_path):
    """A conversation stopped after an answered turn (the budget, a kill) sent no next turn: none of its requests
    was a retry, so retries per trial is never negative."""
    turn = dict(status="turn", protocol="tools", max_turns=20)
    log = write_log(
        tmp_path / "r.jsonl",
        [
            attempt("m:t", "b0", 0, turn=1, **turn),  # stopped here
            attempt("m:t", "b1", 0, turn=1, **turn),
            attempt("m:t", "b1", 0, False, error_type="server_error", turn=2),
            attempt("m:t", "b1", 0, turn=2, turns=2, tool_call_count=1, end_reason="answer"),  # one retry of turn 2
        ],
    )
    row = rs.run_stats(log).iloc[0]
    assert (row["attempts"], row["answers"], row["trials_without_answer"]) == (4, 1, 1)
    assert row["retries_per_answer"] == pytest.approx(1 / 2)
