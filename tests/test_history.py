"""The run history: add, trend, compare between stored runs; one bank per store; an append-only index."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from fastspe.cli import main
from fastspe.compare import compare


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    """A bank and three 'checkpoints' of one model (baseline planners renamed), and another bank."""
    from fastspe.bank import build_bank, write_bank
    from fastspe.baselines import baseline_responses
    from fastspe.boundary.verdicts import write_verdicts
    from fastspe.design import paper_design
    from fastspe.score import score_responses

    folder = tmp_path_factory.mktemp("history")
    bank = build_bank(paper_design()).iloc[::4].reset_index(drop=True)
    write_bank(bank, folder / "bank.parquet")
    write_bank(build_bank(paper_design(), ).iloc[1::4].reset_index(drop=True), folder / "other.parquet")
    paths = []
    for i, planner in enumerate(("oracle", "detour", "noisy")):
        answers = baseline_responses(bank, planner).assign(condition="my-model")
        path = folder / f"ck{i}.parquet"
        write_verdicts(score_responses(bank, answers), path)
        paths.append(path)
    return folder, paths


def test_add_show_compare(checkpoints, tmp_path, capsys):
    folder, paths = checkpoints
    store = str(tmp_path / "store")
    for i, path in enumerate(paths):
        assert main(["history", "add", "--store", store, "--bank", str(folder / "bank.parquet"), "--verdicts",
                     str(path), "--label", f"step-{i}", "--meta", "lr=1e-4", "--draws", "300"]) == 0
    index = [json.loads(line) for line in (tmp_path / "store" / "index.jsonl").read_text().splitlines()]
    assert [r["label"] for r in index] == ["step-0", "step-1", "step-2"] and index[0]["meta"] == {"lr": "1e-4"}
    assert len({r["bank_hash"] for r in index}) == 1
    capsys.readouterr()
    assert main(["history", "show", "--store", store, "--metric", "E", "--out", str(tmp_path / "trend")]) == 0
    shown = capsys.readouterr().out
    assert shown.index("step-0") < shown.index("step-1") < shown.index("step-2")
    trend = pd.read_csv(tmp_path / "trend" / "trend.csv")
    primary = trend[trend["cohort"] == "primary"].set_index("label")["estimate"]
    assert primary["step-0"] == 1.0 and primary["step-1"] < 1.0  # oracle, then detours
    assert {p.suffix for p in (tmp_path / "trend").iterdir()} == {".csv", ".pdf", ".png", ".svg"}
    # history compare = fastspe compare on the two stored runs
    assert main(["history", "compare", "step-0", "step-1", "--store", store, "--draws", "300",
                 "--fail-on-regression"]) == 1
    assert "step-1/my-model vs step-0/my-model" in capsys.readouterr().out
    assert main(["history", "compare", "step-1", "step-0", "--store", store, "--draws", "300",
                 "--fail-on-regression"]) == 0


def test_one_label_one_run_one_bank(checkpoints, tmp_path, capsys, monkeypatch):
    folder, paths = checkpoints
    monkeypatch.setenv("FASTSPE_HISTORY", str(tmp_path / "env-store"))
    add = ["history", "add", "--bank", str(folder / "bank.parquet"), "--verdicts", str(paths[0]), "--draws", "200"]
    assert main(add + ["--label", "a"]) == 0
    assert (tmp_path / "env-store" / "index.jsonl").is_file()  # $FASTSPE_HISTORY is the default store
    before = (tmp_path / "env-store" / "index.jsonl").read_bytes()
    assert main(add + ["--label", "a"]) == 2
    assert "label 'a' is already in the history" in capsys.readouterr().err
    assert main(add[:2] + ["--bank", str(folder / "other.parquet"), "--verdicts", str(paths[1]), "--label", "b"]) == 2
    err = capsys.readouterr().err
    assert "is not the bank of the stored runs" in err or "board" in err
    assert (tmp_path / "env-store" / "index.jsonl").read_bytes() == before  # nothing appended
    assert main(add + ["--label", " padded"]) == 2


def test_damaged_index_and_unknown_labels_are_named(checkpoints, tmp_path, capsys):
    folder, paths = checkpoints
    store = tmp_path / "store"
    assert main(["history", "add", "--store", str(store), "--bank", str(folder / "bank.parquet"), "--verdicts",
                 str(paths[0]), "--label", "x", "--draws", "200"]) == 0
    assert main(["history", "compare", "x", "nope", "--store", str(store)]) == 2
    assert "no run labelled 'nope' (runs: 'x')" in capsys.readouterr().err
    with open(store / "index.jsonl", "a") as fh:
        fh.write("{not json\n")
    assert main(["history", "show", "--store", str(store)]) == 2
    assert "index.jsonl: line 2 is not a history entry" in capsys.readouterr().err
    assert main(["history", "show", "--store", str(tmp_path / "empty")]) == 2


def test_history_compare_equals_fastspe_compare(checkpoints, tmp_path):
    from fastspe.boundary.verdicts import read_verdicts
    from fastspe.history import History, paired_runs

    folder, paths = checkpoints
    history = History(tmp_path / "s")
    from fastspe.boundary.banks import bank_frame, read_bank_table

    table = read_bank_table(folder / "bank.parquet")
    for i in (0, 2):
        history.add(table, read_verdicts(paths[i], bank=bank_frame(table)), f"r{i}", draws=200)
    named, pairs = paired_runs(history, "r0", "r2")
    assert pairs == [("r0/my-model", "r2/my-model")]
    direct = pd.concat([read_verdicts(paths[0]).assign(condition="r0/my-model"),
                        read_verdicts(paths[2]).assign(condition="r2/my-model")], ignore_index=True)
    a = compare(named, *pairs[0][:1], [pairs[0][1]], draws=300).table
    b = compare(direct, "r0/my-model", ["r2/my-model"], draws=300).table
    pd.testing.assert_frame_equal(a, b)
