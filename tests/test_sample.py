"""`fastspe run --sample N`: a seeded sample stratified by cohort, stratum and depth, and reports and `score`
summaries of a run that covers part of the bank saying how much of it they cover."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from fastspe._text import count, coverage_text, maybe, plural
from fastspe.boundary.banks import as_bank, write_bank
from fastspe.cli import main
from fastspe.domains.sliding.bank.build import build_bank
from fastspe.domains.sliding.bank.design import design_from_dict
from fastspe.report.page import method_text
from fastspe.runners.sample import cell_quotas, sample_bank

DESIGN = {
    "seed": 5,
    "cells": [
        {"cohort": "primary", "depth": 6, "count": 12},
        {"cohort": "primary", "depth": 10, "count": 6},
        {"cohort": "primary", "blocks": [5], "depth": 6, "count": 3},
        {"cohort": "retreat", "depth": 8, "count": 3},
    ],
}
CELLS = ["cohort", "k", "depth"]


@pytest.fixture(scope="module")
def bank():
    return as_bank(build_bank(design_from_dict(DESIGN)))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 40), min_size=1, max_size=12), st.integers(1, 300), st.integers(0, 2**31))
def test_quotas_are_proportional_capped_and_give_every_cell_one_when_they_can(sizes, n, seed):
    sizes = np.array(sizes)
    tie = np.random.default_rng(seed).random(len(sizes))
    quota = cell_quotas(sizes, n, tie)
    assert quota.sum() == min(n, sizes.sum())
    assert (quota >= 0).all() and (quota <= sizes).all()
    if n >= np.count_nonzero(sizes):
        assert (quota[sizes > 0] >= 1).all()
    share = min(n, sizes.sum()) * sizes / max(sizes.sum(), 1)
    # no cell is more than one board from its share, except where the floor of one per cell moved boards
    if n >= np.count_nonzero(sizes) and (share[sizes > 0] >= 1).all():
        assert (np.abs(quota - share) < 1 + 1e-9).all()


def test_a_sample_is_stratified_seeded_and_in_bank_order(bank):
    frame = bank.frame
    cells = frame.groupby(CELLS).size()
    picked = sample_bank(bank, 8, seed=1)
    again = sample_bank(bank, 8, seed=1)
    other = sample_bank(bank, 8, seed=2)
    ids = picked.board_ids.to_pylist()
    assert len(ids) == 8 and ids == again.board_ids.to_pylist()
    assert ids != other.board_ids.to_pylist()
    order = {b: i for i, b in enumerate(frame["board_id"])}
    assert [order[b] for b in ids] == sorted(order[b] for b in ids)
    got = picked.frame.groupby(CELLS).size()
    assert set(got.index) == set(cells.index)  # every cell, where the first 8 rows are one cell
    assert (got == cells // 3).all()  # 8 of 24: a third of each cell
    few = sample_bank(bank, 5, seed=1).frame.groupby(CELLS).size()
    assert few.to_dict() == {("primary", 0, 6): 2, ("primary", 0, 10): 1, ("primary", 1, 6): 1, ("retreat", 0, 8): 1}
    assert picked.domain is bank.domain


def test_a_sample_of_the_whole_bank_is_the_bank(bank):
    assert sample_bank(bank, len(bank) + 5) is bank


def test_run_sample_answers_a_stratified_sample_and_the_summaries_say_what_it_covers(bank, tmp_path, capsys):
    write_bank(bank.frame, tmp_path / "bank.parquet")
    log = tmp_path / "log.jsonl"
    argv = [
        "run",
        "--bank",
        str(tmp_path / "bank.parquet"),
        "--model",
        "baseline:oracle",
        "--out",
        str(log),
        "--trials",
        "1",
        "--sample",
        "6",
        "--sample-seed",
        "3",
    ]
    assert main(argv) == 0
    assert "sample: 6 boards of 24" in capsys.readouterr().err
    answered = [json.loads(line)["board_id"] for line in log.read_text().splitlines()]
    assert answered == sample_bank(bank, 6, seed=3).board_ids.to_pylist()
    assert main(argv) == 0  # the same seed: a resume, nothing new
    assert len(log.read_text().splitlines()) == 6
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
    out = capsys.readouterr().out
    assert "covers 6 of 24 boards (25%), not the whole bank" in out
    assert f"{tmp_path / 'v.parquet'} covers 6 of 24 boards" in out  # one verdicts file: "covers", not "answers covers"


def test_sample_and_limit_are_one_or_the_other(tmp_path, capsys):
    code = main(
        [
            "run",
            "--bank",
            "b.parquet",
            "--model",
            "baseline:oracle",
            "--out",
            str(tmp_path / "l.jsonl"),
            "--sample",
            "3",
            "--limit",
            "3",
        ]
    )
    assert code == 2 and "not allowed with argument" in capsys.readouterr().err


def test_the_report_method_text_says_what_part_of_the_bank_it_covers(bank):
    frame = bank.frame
    verdicts = pd.DataFrame({"board_id": frame["board_id"].iloc[:3], "condition": "m"})
    text = method_text(frame, bank.domain, verdicts, 100, 0)
    assert text.startswith("**Part of the bank.** This report covers 3 of 24 boards (12%)")
    assert "1 condition on 3" in text and "1 stratum (" in text
    whole = pd.DataFrame({"board_id": frame["board_id"], "condition": "m"})
    assert "Part of the bank" not in method_text(frame, bank.domain, whole, 100, 0)


def test_words():
    assert [plural(1, "stratum"), plural(2, "stratum"), plural(0, "board"), plural(2, "entry")] == [
        "stratum",
        "strata",
        "boards",
        "entries",
    ]
    assert count(1, "condition") == "1 condition" and count(1200, "board") == "1,200 boards"
    assert maybe(float("nan")) == "n/a" and maybe(None) == "n/a" and maybe(0.5, "+.3f") == "+0.500"
    assert coverage_text(5, 5) == "" and "1 of 400 boards (0.2%)" in coverage_text(1, 400)
