"""Answers bound to their prompts: a recorded prompt hash that is not the hash of the prompt the bank gives the
board is refused (file, line, board, how many more), ``--ignore-prompt-hash`` scores it and the verdicts say so,
answers without a hash are scored with one warning; sliding, Sokoban and the Hanoi plugin."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pyarrow.parquet as pq
import pytest

from fastspe.boundary.banks import load_bank, write_bank
from fastspe.boundary.prompt_hashes import CHECK_KEY
from fastspe.boundary.verdict_files import read_verdicts
from fastspe.cli import main
from fastspe.domains.contract import prompt_hash
from fastspe.domains.registry import domain_named
from fastspe.domains.sliding.layout import Layout
from fastspe.errors import UserError
from fastspe.scoring.rewards import RewardScorer
from fastspe.scoring.score import score_responses

from .test_score import _board, tiny_bank

SOKOBAN_LEVEL = "#####\n#@$.#\n#####"  # one push right: "R", as the sliding board "near" is solved


def rebuilt_bank():
    """``tiny_bank`` with the ids kept and the boards changed, as a rebuild with another seed does: "near" is now
    solved by D (the blank below the tile), "blk" is as before."""
    bank = tiny_bank()
    bank.at[0, "initial"] = _board(Layout(4, 4, ()), 11)
    bank.at[0, "certificate"] = "D"
    return bank


def log_lines(bank, answers: dict, hashed: bool = True) -> list[dict]:
    """Run-log lines answering each board of ``bank`` (trials 0 and 1), recording its prompt's hash."""
    domain = domain_named("sliding")
    prompts = dict(zip(bank["board_id"], domain.prompts(bank)))
    lines = []
    for board_id in bank["board_id"]:
        for trial in (0, 1):
            line = {
                "board_id": board_id,
                "condition": "m",
                "trial": trial,
                "response": answers[board_id],
                "status": "ok",
                "attempt": 1,
            }
            if hashed:
                line["prompt_text_sha256"] = prompt_hash(prompts[board_id])
            lines.append(line)
    return lines


def write_lines(path, lines) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


@pytest.fixture()
def banks(tmp_path):
    old, new = tmp_path / "old.parquet", tmp_path / "new.parquet"
    write_bank(tiny_bank(), old)
    write_bank(rebuilt_bank(), new)
    log = tmp_path / "log.jsonl"
    write_lines(log, log_lines(tiny_bank(), {"near": "MOVES: R", "blk": "MOVES: D"}))
    return tmp_path, old, new, log


@pytest.mark.parametrize("out", ["v.parquet", "v.csv"])  # the streamed path and the in-memory one
def test_a_rebuilt_bank_refuses_the_old_log_naming_file_line_and_board(banks, capsys, out):
    d, old, new, log = banks
    assert main(["score", "--bank", str(new), "--responses", str(log), "--out", str(d / out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error:")
    assert f"{log}: line 1 (board_id 'near')" in err and "1 other line does not match either" in err
    assert "--ignore-prompt-hash" in err and not (d / out).exists()
    assert main(["score", "--bank", str(old), "--responses", str(log), "--out", str(d / out)]) == 0
    assert "warning" not in capsys.readouterr().err


def test_ignore_prompt_hash_scores_it_and_the_verdicts_record_it(banks, capsys):
    d, old, new, log = banks
    out, fine = d / "v.parquet", d / "fine.parquet"
    assert main(["score", "--bank", str(new), "--responses", str(log), "--out", str(out), "--ignore-prompt-hash"]) == 0
    assert "2 answers made for another prompt" in capsys.readouterr().err
    assert pq.read_schema(out).metadata[CHECK_KEY.encode()] == b"ignored"
    verdicts = read_verdicts(out).frame
    assert verdicts.attrs[CHECK_KEY] == "ignored"
    assert (verdicts.set_index("board_id")["status"].loc["near"] == "illegal").all()  # R is not D's plan
    assert main(["score", "--bank", str(old), "--responses", str(log), "--out", str(fine)]) == 0
    assert pq.read_schema(fine).metadata[CHECK_KEY.encode()] == b"checked"
    # report: the checked verdicts are refused against the other bank, the ignored ones pass, saying so
    assert main(["report", "--bank", str(new), "--verdicts", str(fine), "--out", str(d / "r1")]) == 2
    err = capsys.readouterr().err
    assert "fine.parquet: row" in err and "'near'" in err and "prompt_text_sha256" in err
    assert main(["report", "--bank", str(new), "--verdicts", str(out), "--out", str(d / "r2")]) == 0
    assert "scored with --ignore-prompt-hash: 2 answers" in capsys.readouterr().err


def test_a_log_without_hashes_is_scored_with_one_warning_that_counts(tmp_path, capsys):
    bank, log = tmp_path / "bank.parquet", tmp_path / "log.jsonl"
    write_bank(tiny_bank(), bank)
    write_lines(log, log_lines(tiny_bank(), {"near": "MOVES: R", "blk": "MOVES: D"}, hashed=False))
    assert main(["score", "--bank", str(bank), "--responses", str(log), "--out", str(tmp_path / "v.parquet")]) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if "prompt hash" in line]
    assert len(warned) == 1 and "4 answers record no prompt hash" in warned[0]


def test_history_add_checks_the_bank_too(banks, capsys):
    d, old, new, log = banks
    verdicts = d / "v.parquet"
    assert main(["score", "--bank", str(old), "--responses", str(log), "--out", str(verdicts)]) == 0
    assert (
        main(
            [
                "history",
                "add",
                "--store",
                str(d / "store"),
                "--bank",
                str(new),
                "--verdicts",
                str(verdicts),
                "--label",
                "a",
            ]
        )
        == 2
    )
    assert "'near'" in capsys.readouterr().err
    assert (
        main(
            [
                "history",
                "add",
                "--store",
                str(d / "store2"),
                "--bank",
                str(old),
                "--verdicts",
                str(verdicts),
                "--label",
                "a",
            ]
        )
        == 0
    )


def test_the_python_api_refuses_naming_the_row():
    lines = log_lines(tiny_bank(), {"near": "MOVES: R", "blk": "MOVES: D"})
    import pandas as pd

    with pytest.raises(UserError, match=r"answers: row 1 \(board_id 'near'\).*1 other row"):
        score_responses(rebuilt_bank(), pd.DataFrame(lines), source="answers")
    frame = score_responses(rebuilt_bank(), pd.DataFrame(lines), ignore_prompt_hash=True)
    assert frame.attrs[CHECK_KEY] == "ignored" and len(frame) == 4
    with pytest.warns(UserWarning, match="4 answer"):
        score_responses(tiny_bank(), pd.DataFrame(lines).drop(columns=["prompt_text_sha256"]))


def test_rewards_check_prompt_hashes_when_given():
    lines = log_lines(tiny_bank(), {"near": "MOVES: R", "blk": "MOVES: D"})
    ids, texts = [x["board_id"] for x in lines], [x["response"] for x in lines]
    hashes = [x["prompt_text_sha256"] for x in lines]
    assert RewardScorer(tiny_bank())(ids, texts, hashes).complete.all()
    with pytest.raises(UserError, match=r"prompt_hashes\[0\].*'near' \(2 such"):
        RewardScorer(rebuilt_bank())(ids, texts, hashes)
    assert RewardScorer(rebuilt_bank())(ids, texts).status.tolist() == [2, 2, 0, 0]  # unchecked without hashes


def test_sliding_answers_on_a_sokoban_bank_with_the_same_id_are_refused(tmp_path, capsys):
    levels, bank, log = tmp_path / "levels.jsonl", tmp_path / "sokoban.parquet", tmp_path / "log.jsonl"
    levels.write_text(json.dumps({"id": "near", "level": SOKOBAN_LEVEL}) + "\n")
    assert main(["bank", "build", "--domain", "sokoban", "--levels", str(levels), "--out", str(bank)]) == 0
    write_lines(
        log,
        [
            line
            for line in log_lines(tiny_bank(), {"near": "MOVES: R", "blk": "MOVES: D"})
            if line["board_id"] == "near"
        ],
    )
    capsys.readouterr()
    assert main(["score", "--bank", str(bank), "--responses", str(log), "--out", str(tmp_path / "v.parquet")]) == 2
    err = capsys.readouterr().err
    assert f"{log}: line 1 (board_id 'near')" in err and "1 other line does not" in err
    # the same answer with the Sokoban level's own prompt is scored (and is complete)
    sokoban = load_bank(bank)
    own = prompt_hash(sokoban.domain.prompts(sokoban.frame)[0])
    write_lines(
        log, [{"board_id": "near", "condition": "m", "trial": 0, "response": "MOVES: R", "prompt_text_sha256": own}]
    )
    assert main(["score", "--bank", str(bank), "--responses", str(log), "--out", str(tmp_path / "v.parquet")]) == 0
    assert "1 complete" in capsys.readouterr().out


@pytest.mark.parametrize("domain", ["sliding", "sokoban", "hanoi"])
def test_baselines_record_the_hash_of_their_boards_prompt(tmp_path, domain):
    chosen = domain_named(domain)
    if domain == "sokoban":
        levels = tmp_path / "levels.jsonl"
        levels.write_text(json.dumps({"id": "a", "level": SOKOBAN_LEVEL}) + "\n")
        args = ["--levels", str(levels)]
    else:
        args = [] if domain == "hanoi" else ["--design", "smoke"]
    bank_path = tmp_path / "bank.parquet"
    if domain == "sliding":
        write_bank(tiny_bank(), bank_path)
    else:
        assert main(["bank", "build", "--domain", domain, *args, "--out", str(bank_path)]) == 0
    bank = load_bank(bank_path)
    answers = chosen.baseline_responses(bank.frame, chosen.planners[0], trials=2, seed=1)
    expected = np.repeat([prompt_hash(p) for p in chosen.prompts(bank.frame)], 2)
    assert answers["prompt_text_sha256"].tolist() == expected.tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "record no prompt hash" warning: every answer is bound
        verdicts = score_responses(bank, answers)
    assert len(verdicts) == len(answers)


@pytest.mark.parametrize("out", ["v.parquet", "v.csv"])
def test_a_csv_with_an_empty_hash_cell_counts_it_as_unhashed_not_a_mismatch(tmp_path, capsys, out):
    import pandas as pd

    bank, responses = tmp_path / "bank.parquet", tmp_path / "r.csv"
    write_bank(tiny_bank(), bank)
    frame = pd.DataFrame(log_lines(tiny_bank(), {"near": "MOVES: R", "blk": "MOVES: D"}))
    frame.loc[1, "prompt_text_sha256"] = None  # written as an empty cell
    frame.to_csv(responses, index=False)
    assert main(["score", "--bank", str(bank), "--responses", str(responses), "--out", str(tmp_path / out)]) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if "prompt hash" in line]
    assert len(warned) == 1 and "1 answer records no prompt hash" in warned[0]
