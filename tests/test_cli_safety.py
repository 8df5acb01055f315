"""The CLI prints user text as plain text, refuses bad options at once and never overwrites its inputs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fastspe.domains.sliding.bank.build import build_bank
from fastspe.boundary.banks import write_bank
from fastspe.cli import main
from fastspe.cli._common import plain

REPO = Path(__file__).resolve().parents[1]
RED = "\x1b[31m"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A 4-board bank and oracle answers for it under two conditions, one holding an escape sequence."""
    from fastspe.domains.sliding.bank.design import paper_design

    root = tmp_path_factory.mktemp("cli")
    bank = build_bank(paper_design()).iloc[[0, 150, 300, 399]].reset_index(drop=True)
    write_bank(bank, root / "bank.jsonl")
    lines = [
        {"board_id": b, "condition": cond, "trial": 0, "response": "MOVES: " + ",".join(cert)}
        for b, cert in zip(bank["board_id"], bank["certificate"])
        for cond in ("openai:x", f"evil{RED}[/]")
    ]
    (root / "responses.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    return root


def _bank_args(files):
    return ["--bank", str(files / "bank.jsonl")]


# --- plain text ----------------------------------------------------------------------------------------------------


def test_plain_escapes_control_characters_only():
    assert plain("a[/]b:x:") == "a[/]b:x:"
    assert plain(f"{RED}x\x07\x7f\x9b\u202e\ty\nz") == "\\x1b[31mx\\x07\\x7f\\x9b\\u202e\ty\nz"
    assert plain("one\ntwo", keep_newlines=False) == "one\\x0atwo"


def test_markup_in_out_name_is_a_file_name(files, tmp_path, capsys):
    out = tmp_path / "[/].parquet"
    assert main(["score", *_bank_args(files), "--responses", str(files / "responses.jsonl"), "--out", str(out)]) == 0
    assert out.exists() and f"-> {out}" in capsys.readouterr().out


def test_markup_and_emoji_codes_in_errors_stay_text(files, tmp_path, capsys):
    assert main(["run", *_bank_args(files), "--model", "[/]", "--out", str(tmp_path / "r.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --model '[/]'") and "Traceback" not in err
    assert main(["bank", "build", "--out", str(tmp_path / "[redacted][nan].txt")]) == 2
    assert "[redacted][nan].txt: a bank file is .parquet or .jsonl" in capsys.readouterr().err
    assert (
        main(["run", *_bank_args(files), "--model", "openai:x", "--out", str(tmp_path / "r.jsonl"), "--dry-run"]) == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("openai:x: 12 requests") and "\u274c" not in out


def test_condition_with_escape_sequence_prints_escaped(files, tmp_path, capsys):
    verdicts = tmp_path / "v.parquet"
    assert (
        main(["score", *_bank_args(files), "--responses", str(files / "responses.jsonl"), "--out", str(verdicts)]) == 0
    )
    capsys.readouterr()
    assert main(["metrics", "--verdicts", str(verdicts), "--by", "condition"]) == 0
    out = capsys.readouterr().out
    assert "evil\\x1b[31m[/]" in out and "\x1b" not in out


def test_bank_show_title_is_plain(files, tmp_path, capsys):
    shown = tmp_path / "[bold]b\x1b]0;x.jsonl"
    shown.write_bytes((files / "bank.jsonl").read_bytes())
    assert main(["bank", "show", str(shown)]) == 0
    out = capsys.readouterr().out
    assert "[bold]b\\x1b]0;x.jsonl: 4 boards" in out and "\x1b" not in out


# --- option values ---------------------------------------------------------------------------------------------

RUN = ["run", "--bank", "b.jsonl", "--model", "openai:x", "--out", "r.jsonl"]


@pytest.mark.parametrize(
    "argv, option",
    [
        (RUN + ["--backoff", "inf"], "--backoff"),
        (RUN + ["--backoff", "nan"], "--backoff"),
        (RUN + ["--timeout", "nan"], "--timeout"),
        (RUN + ["--timeout", "0"], "--timeout"),
        (RUN + ["--price-in", "nan"], "--price-in"),
        (RUN + ["--price-out", "inf"], "--price-out"),
        (RUN + ["--price-out", "-1"], "--price-out"),
        (RUN + ["--budget", "nan"], "--budget"),
        (RUN + ["--budget", "0"], "--budget"),
        (RUN + ["--temperature", "nan"], "--temperature"),
        (RUN + ["--trials", str(10**30)], "--trials"),
        (RUN + ["--trials", "0"], "--trials"),
        (RUN + ["--limit", "0"], "--limit"),
        (RUN + ["--max-connections", "100000"], "--max-connections"),
        (RUN + ["--max-tokens", "1.5"], "--max-tokens"),
        (RUN + ["--seed", "-1"], "--seed"),
        (RUN + ["--condition", f"a{RED}"], "--condition"),
        (["report", "--bank", "b", "--verdicts", "v", "--out", "d", "--draws", "0"], "--draws"),
        (["report", "--bank", "b", "--verdicts", "v", "--out", "d", "--seed", str(2**63)], "--seed"),
        (["demo", "--draws", str(10**12)], "--draws"),
        (["demo", "--seed", "x"], "--seed"),
        (["bank", "build", "--out", "b.parquet", "--seed", "-5"], "--seed"),
    ],
)
def test_bad_option_values_fail_at_once(argv, option, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    start = time.perf_counter()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {option}") and err.count("\n") == 1 and "\x1b" not in err, err
    assert time.perf_counter() - start < 5 and not list(tmp_path.iterdir())


@pytest.mark.parametrize("value", ["0", "junk", "-3"])
def test_bad_numba_thread_count_is_one_error_line(value, tmp_path):
    env = {**os.environ, "NUMBA_NUM_THREADS": value, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-m", "fastspe", "bank", "build", "--out", str(tmp_path / "b.parquet")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and proc.stderr == (
        f"error: NUMBA_NUM_THREADS='{value}': must be a whole number of "
        f"threads in 1..4096; unset it to use every core\n"
    )


# --- outputs never overwrite inputs ----------------------------------------------------------------------------


def test_outputs_never_replace_inputs(files, tmp_path, capsys):
    bank, responses = str(files / "bank.jsonl"), files / "responses.jsonl"
    before = {p: p.read_bytes() for p in (files / "bank.jsonl", responses)}
    alias = tmp_path / "alias.jsonl"
    alias.symlink_to(files / "bank.jsonl")
    verdicts = tmp_path / "v.csv"
    assert main(["score", "--bank", bank, "--responses", str(responses), "--out", str(verdicts)]) == 0
    design = tmp_path / "design.jsonl"
    design.write_text(json.dumps({"seed": 1, "cells": [{"cohort": "a", "depth": 3, "count": 1}]}))
    cases = [
        (["score", "--bank", bank, "--responses", str(responses), "--out", str(responses)], "--out"),
        (["bank", "build", "--design", str(design), "--out", str(design)], "--out"),
        (["run", "--bank", bank, "--model", "baseline:oracle", "--out", str(alias)], "--out"),
        (["run", "--bank", str(alias), "--model", "baseline:oracle", "--out", bank], "--out"),
        (["metrics", "--verdicts", str(verdicts), "--out", str(verdicts)], "--out"),
        (["report", "--bank", bank, "--verdicts", str(verdicts), "--out", str(tmp_path)], "--out"),
        (["report", "--bank", bank, "--verdicts", str(verdicts), "--out", str(files)], "--out"),
    ]
    for argv, option in cases:
        capsys.readouterr()
        assert main(argv) == 2, argv
        assert capsys.readouterr().err.startswith(f"error: {option} "), argv
    assert (
        {p: p.read_bytes() for p in before} == before and verdicts.exists() and design.read_text().startswith('{"seed"')
    )


def test_run_refuses_to_append_to_a_prompt_export_or_a_prompts_sidecar(files, tmp_path, capsys):
    bank = str(files / "bank.jsonl")
    export = tmp_path / "prompts.jsonl"
    assert (
        main(["prompts", "export", "--bank", bank, "--model", "openai:m", "--trials", "1", "--out", str(export)]) == 0
    )
    sidecar = tmp_path / "prompts.prompts.jsonl"
    before = {p: p.read_bytes() for p in (export, sidecar)}
    for out, said in (
        (export, "is a prompt export"),
        (sidecar, "prompts sidecar"),
        (tmp_path / "new.prompts.jsonl", "prompts sidecar"),
    ):  # a new log there would be another's
        capsys.readouterr()
        assert main(["run", "--bank", bank, "--model", "baseline:oracle", "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and said in err and len(err.strip().splitlines()) == 1, err
    assert {p: p.read_bytes() for p in before} == before and not (tmp_path / "new.prompts.jsonl").exists()
    assert (
        main(["prompts", "export", "--bank", bank, "--model", "openai:m", "--trials", "1", "--out", str(export)]) == 0
    )  # an export still replaces an export


def test_run_refuses_to_append_to_a_bank(files, tmp_path, capsys):
    other = tmp_path / "other-bank.jsonl"
    other.write_bytes((files / "bank.jsonl").read_bytes())
    assert main(["run", "--bank", str(files / "bank.jsonl"), "--model", "baseline:oracle", "--out", str(other)]) == 2
    assert "is a bank (its first line has initial and certificate)" in capsys.readouterr().err
    assert other.read_bytes() == (files / "bank.jsonl").read_bytes()
