"""``score`` and ``verdicts verify`` take several ``--responses`` files (scored as one, a repeated file or an
output in two files refused) and read the same kinds, inspect_ai ``.eval`` logs included; errors name the file."""

from __future__ import annotations

import sys
import types

import pandas as pd
import pytest

from fastspe.domains.sliding.bank.build import build_bank
from fastspe.boundary.banks import write_bank
from fastspe.domains.sliding.bank.design import paper_design
from fastspe.boundary.verdict_files import read_verdicts
from fastspe.cli import main
from fastspe.domains.sliding.planners.baselines import baseline_responses


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("several")
    bank = build_bank(paper_design()).iloc[:12].reset_index(drop=True)
    write_bank(bank, folder / "bank.parquet")
    a = baseline_responses(bank, "greedy", trials=2, seed=0)
    b = baseline_responses(bank, "oracle", trials=1, seed=0)
    a.to_json(folder / "a.jsonl", orient="records", lines=True)
    b.to_json(folder / "b.jsonl", orient="records", lines=True)
    a.to_json(folder / "copy-of-a.jsonl", orient="records", lines=True)
    return folder, a, b


def score(folder, *responses, out="verdicts.parquet"):
    args = ["score", "--bank", str(folder / "bank.parquet")]
    for r in responses:
        args += ["--responses", str(r)]
    return main(args + ["--out", str(folder / out)])


def test_two_files_are_scored_as_one_and_verified_as_one(files, capsys):
    folder, a, b = files
    assert score(folder, folder / "a.jsonl", folder / "b.jsonl", out="both.parquet") == 0
    verdicts = read_verdicts(folder / "both.parquet").frame
    assert len(verdicts) == len(a) + len(b)
    assert set(verdicts["condition"]) == {"baseline:greedy", "baseline:oracle"}
    assert (
        main(
            [
                "verdicts",
                "verify",
                "--bank",
                str(folder / "bank.parquet"),
                "--responses",
                str(folder / "a.jsonl"),
                "--responses",
                str(folder / "b.jsonl"),
                "--verdicts",
                str(folder / "both.parquet"),
            ]
        )
        == 0
    )
    assert f"all {len(a) + len(b)} verdicts" in capsys.readouterr().out
    # one file is not enough: the other's verdicts have no response
    assert (
        main(
            [
                "verdicts",
                "verify",
                "--bank",
                str(folder / "bank.parquet"),
                "--responses",
                str(folder / "a.jsonl"),
                "--verdicts",
                str(folder / "both.parquet"),
            ]
        )
        == 1
    )


@pytest.mark.parametrize("out", ["v.parquet", "v.csv"])  # the streamed path and the line reader
def test_an_output_in_two_files_is_refused_naming_both(files, capsys, out):
    folder, *_ = files
    assert score(folder, folder / "a.jsonl", folder / "copy-of-a.jsonl", out=out) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {folder / 'copy-of-a.jsonl'}: duplicate output (condition 'baseline:greedy'")
    assert err.rstrip().endswith(f"also in {folder / 'a.jsonl'}")
    assert not (folder / out).exists()


def test_a_file_given_twice_is_refused_by_any_name(files, capsys, monkeypatch):
    folder, *_ = files
    monkeypatch.chdir(folder)
    assert score(folder, "a.jsonl", "a.jsonl") == 2
    assert capsys.readouterr().err == "error: --responses a.jsonl is given twice; give each file once\n"
    assert score(folder, "a.jsonl", "./a.jsonl") == 2
    assert "given twice (as a.jsonl and ./a.jsonl)" in capsys.readouterr().err
    assert (
        main(
            [
                "verdicts",
                "verify",
                "--bank",
                "bank.parquet",
                "--responses",
                "a.jsonl",
                "--responses",
                "a.jsonl",
                "--verdicts",
                "none.parquet",
            ]
        )
        == 2
    )
    assert "given twice" in capsys.readouterr().err


def test_verify_reads_an_eval_log_as_score_does_without_inspect_ai(files, capsys, monkeypatch):
    folder, *_ = files
    monkeypatch.setitem(sys.modules, "inspect_ai", None)
    monkeypatch.delitem(sys.modules, "fastspe.inspect_task", raising=False)
    log = folder / "run.eval"
    log.write_bytes(b"PK")
    assert (
        main(
            [
                "verdicts",
                "verify",
                "--bank",
                str(folder / "bank.parquet"),
                "--responses",
                str(log),
                "--verdicts",
                str(folder / "none.parquet"),
            ]
        )
        == 2
    )
    assert capsys.readouterr().err == (
        f"error: {log}: scoring an inspect_ai .eval log needs inspect_ai: pip install 'fastspe[inspect]'\n"
    )


@pytest.fixture
def fake_inspect(files, monkeypatch):
    """inspect_ai's reading stood in for: the log's samples as responses (row 2 on no board of the bank)."""
    folder, a, _ = files
    samples = a[["board_id", "condition", "trial", "response"]].copy()
    samples.loc[1, "board_id"] = "nope"
    module = types.SimpleNamespace(samples=samples)
    module.responses_from_log = lambda path: module.samples.copy()
    module.log_prompt_specs = lambda path: []  # the paper prompt's answers: no variant to check them against
    monkeypatch.setattr("fastspe.cli.score.inspect_task", lambda: module)
    log = folder / "log.eval"
    log.write_bytes(b"PK")
    return folder, log, module


def test_errors_in_an_eval_log_name_the_log(fake_inspect, capsys):
    folder, log, _ = fake_inspect
    assert score(folder, log) == 2
    assert capsys.readouterr().err.startswith(f"error: {log}: row 2: unknown board_id 'nope'")
    assert (
        main(
            [
                "verdicts",
                "verify",
                "--bank",
                str(folder / "bank.parquet"),
                "--responses",
                str(log),
                "--verdicts",
                str(folder / "none.parquet"),
            ]
        )
        == 2
    )
    assert capsys.readouterr().err.startswith(f"error: {log}: row 2: unknown board_id 'nope'")


def test_an_eval_log_and_a_file_are_scored_and_verified_together(fake_inspect, capsys):
    folder, log, module = fake_inspect
    module.samples = module.samples.drop(index=1).assign(condition="inspect:model")
    assert score(folder, log, folder / "b.jsonl", out="mixed.parquet") == 0
    verdicts = read_verdicts(folder / "mixed.parquet").frame
    assert set(verdicts["condition"]) == {"inspect:model", "baseline:oracle"}
    assert (
        main(
            [
                "verdicts",
                "verify",
                "--bank",
                str(folder / "bank.parquet"),
                "--responses",
                str(log),
                "--responses",
                str(folder / "b.jsonl"),
                "--verdicts",
                str(folder / "mixed.parquet"),
            ]
        )
        == 0
    )


def test_score_responses_names_its_source():
    bank = build_bank(paper_design()).iloc[:2]
    frame = pd.DataFrame({"board_id": [bank.board_id[0], "nope"], "condition": "c", "trial": 0, "response": "x"})
    from fastspe.errors import UserError
    from fastspe.scoring.score import score_responses

    with pytest.raises(UserError, match=r"^log.eval: row 2: unknown board_id"):
        score_responses(bank, frame, source="log.eval")
