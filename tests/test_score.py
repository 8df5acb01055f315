"""Verdicts end to end: hand-worked examples, bad input naming the line, run logs, and the CLI."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from fastspe.boundary.banks import write_bank
from fastspe.domains.sliding.bank.table import BANK_COLUMNS
from fastspe.cli import main
from fastspe.domains.sliding.layout import Layout
from fastspe.boundary.responses import read_responses
from fastspe.boundary.verdicts import verdict_columns
from fastspe.boundary.verdict_files import read_verdicts
from fastspe.scoring.score import score_responses

VERDICT_COLUMNS = verdict_columns("sliding")  # the shared columns as the sliding puzzle names them


def _board(layout: Layout, swap_with_blank: int) -> list[int]:
    """The layout's goal with the blank swapped with the tile on cell ``swap_with_blank``."""
    b = layout.goal.astype(int).tolist()
    blank = b.index(0)
    b[blank], b[swap_with_blank] = b[swap_with_blank], 0
    return b


def tiny_bank() -> pd.DataFrame:
    """Two boards one move from their goal: "near" (no blocks, solved by R), "blk" (block 10, by D)."""
    open_, blk = Layout(4, 4, ()), Layout(4, 4, (10,))
    rows = [("near", open_, _board(open_, 14), "R"), ("blk", blk, _board(blk, 11), "D")]
    return pd.DataFrame(
        [
            {
                "board_id": bid,
                "cohort": "primary",
                "k": lay.k,
                "blocks": list(lay.blocks),
                "rows": 4,
                "cols": 4,
                "depth": 1,
                "h": 1,
                "initial": board,
                "goal": lay.goal.astype(int).tolist(),
                "certificate": cert,
                "proposal_index": 0,
                "seed": 0,
            }
            for bid, lay, board, cert in rows
        ],
        columns=BANK_COLUMNS,
    )


def score_one(board_id: str, response: str, **kw) -> dict:
    resp = pd.DataFrame({"board_id": [board_id], "condition": ["m"], "trial": [0], "response": [response]})
    return score_responses(tiny_bank(), resp, **kw).iloc[0].to_dict()


# ---- one hand-worked example per status, error kind and parse mode --------------------------------


def test_complete_optimal():
    v = score_one("near", "MOVES: R")
    assert (v["status"], v["L"], v["optimal"], v["economy"], v["excess"]) == ("complete", 1, True, 1.0, 0.0)
    assert (v["error_kind"], v["first_error"], v["parse_mode"], v["final_h"], v["min_h"]) == ("", -1, "exact", 0, 0)
    assert v["layout"] == "bnone" and v["moves"] == "R" and not v["goal_midway"]


def test_complete_with_detour_revisits_and_goal_midway():
    v = score_one("near", "MOVES: R,L,R")
    assert (v["status"], v["L"], v["optimal"]) == ("complete", 3, False)
    assert v["economy"] == pytest.approx(1 / 3) and v["excess"] == 2.0
    assert v["goal_midway"] and v["revisits"] == 2


def test_legal_noncompletion():
    v = score_one("near", "MOVES: L")
    # the blank goes left: tile 14 leaves its goal cell, h 1 -> 2
    assert (v["status"], v["error_kind"], v["final_h"], v["min_h"]) == ("legal_noncompletion", "", 2, 1)
    assert np.isnan(v["economy"]) and np.isnan(v["excess"]) and not v["optimal"]


def test_empty_plan_is_exact_legal_noncompletion():
    v = score_one("near", "MOVES:")
    assert (v["status"], v["parse_mode"], v["L"], v["error_kind"]) == ("legal_noncompletion", "exact", 0, "")


def test_boundary():
    v = score_one("near", "MOVES: D, R")  # the blank is on the bottom row
    assert (v["status"], v["error_kind"], v["first_error"], v["L"], v["final_h"]) == ("illegal", "boundary", 0, 2, 1)


def test_obstacle():
    v = score_one("blk", "MOVES: L")  # the blank on cell 11, cell 10 is blocked
    assert (v["status"], v["error_kind"], v["first_error"], v["L"]) == ("illegal", "obstacle", 0, 1)
    assert v["layout"] == "b10" and v["k"] == 1


def test_invalid_action_after_reaching_the_goal():
    v = score_one("blk", "MOVES: D, X")
    assert (v["status"], v["error_kind"], v["first_error"], v["L"]) == ("illegal", "invalid_action", 1, 2)
    assert v["goal_midway"] and v["final_h"] == 0 and v["moves"] == "D?"


def test_format_failure_both_ways():
    v = score_one("near", "Sorry, I cannot solve this.")
    assert (v["status"], v["error_kind"], v["parse_mode"], v["L"], v["first_error"]) == (
        "illegal",
        "format",
        "no_plan",
        0,
        -1,
    )
    v = score_one("near", "Sorry, I cannot solve this.", format_failure="noncompletion")
    assert (v["status"], v["error_kind"], v["parse_mode"], v["L"]) == ("legal_noncompletion", "", "no_plan", 0)


def test_normalized_and_strict():
    v = score_one("near", "moves: r")
    assert (v["status"], v["parse_mode"], v["normalization"]) == ("complete", "normalized", "case")
    v = score_one("near", "moves: r", parse="strict")
    assert (v["status"], v["parse_mode"], v["error_kind"], v["normalization"]) == (
        "illegal",
        "no_plan",
        "format",
        "case",
    )


def test_multiple_moves_and_truncated_flags():
    resp = pd.DataFrame(
        {
            "board_id": ["near", "near"],
            "condition": ["m", "m"],
            "trial": [0, 1],
            "response": ["MOVES: L\nMOVES: R", "MOVES: R, L, R, L"],
            "finish_reason": ["stop", "length"],
            "output_tokens": [10, 4000],
        }
    )
    v = score_responses(tiny_bank(), resp)
    assert v["multiple_moves"].tolist() == [True, False] and v["status"].iloc[0] == "complete"
    assert v["truncated"].tolist() == [False, True]
    assert v["output_tokens"].tolist() == [10, 4000]  # scalar metadata is carried along
    assert list(v.columns[: len(VERDICT_COLUMNS)]) == VERDICT_COLUMNS


def test_bad_options():
    with pytest.raises(ValueError, match="parse must be"):
        score_one("near", "MOVES: R", parse="loose")
    with pytest.raises(ValueError, match="format_failure must be"):
        score_one("near", "MOVES: R", format_failure="skip")


def test_plans_of_100000_moves_and_of_none():
    long = ",".join("LR" * 50_000)
    resp = pd.DataFrame(
        {
            "board_id": ["near", "near"],
            "condition": ["m", "m"],
            "trial": [0, 1],
            "response": ["MOVES: " + long, "MOVES:"],
        }
    )
    v = score_responses(tiny_bank(), resp)
    assert v["L"].tolist() == [100_000, 0]
    assert v["status"].tolist() == ["legal_noncompletion", "legal_noncompletion"]
    # L then R returns to the start: only the first move reaches a new state
    assert v["revisits"].tolist() == [99_999, 0]


def test_paper_bank_certificates_are_complete_and_optimal(paper_bank):
    resp = pd.DataFrame(
        {
            "board_id": paper_bank["board_id"],
            "condition": "oracle",
            "trial": 0,
            "response": ["MOVES: " + ",".join(c) for c in paper_bank["certificate"]],
        }
    )
    v = score_responses(paper_bank, resp)
    assert (v["status"] == "complete").all() and v["optimal"].all() and (v["economy"] == 1).all()
    assert (v["revisits"] == 0).all() and (v["min_h"] == 0).all()
    assert set(v["layout"]) == {
        "bnone",
        "b5",
        "b6",
        "b9",
        "b10",
        "b5.10",
        "b6.9",
        "b5.6.9",
        "b5.6.10",
        "b5.9.10",
        "b6.9.10",
    }


@pytest.fixture(scope="module")
def paper_bank():
    from fastspe.domains.sliding.bank.build import build_bank
    from fastspe.domains.sliding.bank.design import paper_design

    return build_bank(paper_design())


# ---- responses files: bad input names the line ----------------------------------------------------


def _jsonl(path, lines):
    path.write_bytes(b"".join(ln if isinstance(ln, bytes) else (json.dumps(ln) + "\n").encode() for ln in lines))
    return path


def _rec(board="near", trial=0, response="MOVES: R", **kw):
    return {"board_id": board, "condition": "m", "trial": trial, "response": response, **kw}


@pytest.mark.parametrize(
    "lines, pattern",
    [
        ([_rec(), _rec(trial=1), _rec(board="nope", trial=2)], r"line 3: unknown board_id 'nope'"),
        ([_rec(), _rec(trial=1), _rec()], r"line 3: duplicate output .* first seen at line 1"),
        ([_rec(), {"board_id": "near", "condition": "m", "trial": 1}], r"line 2: missing field 'response'"),
        ([_rec(), b"{not json\n", _rec(trial=2)], r"line 2: not valid JSON"),
        ([_rec(), b'{"board_id": "\xff"}\n', _rec(trial=2)], r"line 2: not UTF-8"),
        ([_rec(), _rec(trial="two")], r"line 2: trial two is not an integer"),
        ([_rec(), b"[1, 2]\n"], r"line 2: not a JSON object"),
        ([_rec(), b'{"board_id": "near", "condi'], r"line 2: not valid JSON"),  # torn, but not a run log
    ],
)
def test_bad_jsonl_names_file_and_line(tmp_path, lines, pattern):
    path = _jsonl(tmp_path / "r.jsonl", lines)
    with pytest.raises(ValueError, match=pattern) as err:
        read_responses(path, bank=tiny_bank())
    assert str(path) in str(err.value)


def test_skip_invalid_reports_and_keeps_the_rest(tmp_path):
    path = _jsonl(tmp_path / "r.jsonl", [_rec(), b"oops\n", _rec(board="nope", trial=1), _rec(), _rec(trial=3)])
    with pytest.warns(UserWarning, match="skipped 3 invalid"):
        df = read_responses(path, bank=tiny_bank(), skip_invalid=True)
    assert df["trial"].tolist() == [0, 3]
    assert [m.split(": ")[1] for m in df.attrs["invalid"]] == ["line 2", "line 3", "line 4"]


def test_run_log_attempts_and_torn_last_line(tmp_path):
    path = _jsonl(
        tmp_path / "run.jsonl",
        [
            _rec(response=None, status="error", attempt=0),
            _rec(response="MOVES: L", status="ok", attempt=1),
            _rec(trial=1, response=None, status="error", attempt=0),  # never completed
            _rec(trial=2, status="ok", attempt=0),
            b'{"board_id": "near", "condition": "m", "tri',  # the run was killed mid-write
        ],
    )
    with pytest.warns(UserWarning) as record:
        df = read_responses(path, bank=tiny_bank())
    text = " ".join(str(w.message) for w in record)
    assert "line 5 is a torn line" in text and "only failed attempts" in text
    assert df[["trial", "response"]].values.tolist() == [[0, "MOVES: L"], [2, "MOVES: R"]]
    v = score_responses(tiny_bank(), df)
    assert v["status"].tolist() == ["legal_noncompletion", "complete"]
    assert "attempt" in v.columns and "status" not in set(v.columns) - set(VERDICT_COLUMNS)


def test_torn_line_marked_by_a_resumed_run_is_skipped(tmp_path):
    lines = [
        _rec(status="ok", attempt=1),
        b'{"board_id": "near", "condi\n',
        {"event": "torn_line", "line": 2},
        _rec(trial=1, status="ok", attempt=1),
    ]
    with pytest.warns(UserWarning, match="line 2 is a torn line"):
        df = read_responses(_jsonl(tmp_path / "run.jsonl", lines), bank=tiny_bank())
    assert df["trial"].tolist() == [0, 1]
    # an unmarked bad line in the middle of a run log is still an error
    lines[2] = {"event": "torn_line", "line": 7}
    with pytest.raises(ValueError, match="line 2: not valid JSON"):
        read_responses(_jsonl(tmp_path / "run2.jsonl", lines), bank=tiny_bank())


def test_two_completed_attempts_are_a_duplicate(tmp_path):
    path = _jsonl(tmp_path / "run.jsonl", [_rec(status="ok"), _rec(status="ok")])
    with pytest.raises(ValueError, match="line 2: duplicate"):
        read_responses(path)


def test_csv_lines_count_multiline_answers(tmp_path):
    df = pd.DataFrame(
        {
            "board_id": ["near", "near", "ghost"],
            "condition": "m",
            "trial": [0, 1, 2],
            "response": ["Thinking...\nMOVES: R", "MOVES:\nR", "MOVES: R"],
        }
    )
    path = tmp_path / "r.csv"
    df.to_csv(path, index=False)
    # header line 1, then records spanning 2 lines each: the third record starts on line 6
    with pytest.raises(ValueError, match=r"r\.csv: line 6: unknown board_id 'ghost'"):
        read_responses(path, bank=tiny_bank())
    df.iloc[:2].to_csv(path, index=False)
    got = read_responses(path, bank=tiny_bank())
    assert got["response"].tolist() == df["response"].iloc[:2].tolist() and got["trial"].dtype == np.int64


def test_parquet_rows_and_dataframe_rows(tmp_path):
    df = pd.DataFrame({"board_id": ["near", "near"], "condition": "m", "trial": [0, 0], "response": "MOVES: R"})
    path = tmp_path / "r.parquet"
    df.to_parquet(path)
    with pytest.raises(ValueError, match=r"row 2: duplicate"):
        read_responses(path)
    with pytest.raises(ValueError, match=r"responses: row 2: duplicate"):
        score_responses(tiny_bank(), df)


# ---- the command line ------------------------------------------------------------------------------


def test_cli_score_and_metrics(tmp_path, capsys):
    bank_path = tmp_path / "bank.parquet"
    write_bank(tiny_bank(), bank_path)
    resp = _jsonl(
        tmp_path / "r.jsonl",
        [
            _rec(),
            _rec(trial=1, response="MOVES: L"),
            _rec(trial=2, response="?"),
            _rec(board="blk", response="moves: d"),
        ],
    )
    out = tmp_path / "verdicts.parquet"
    assert main(["score", "--bank", str(bank_path), "--responses", str(resp), "--out", str(out)]) == 0
    v = read_verdicts(out).frame
    assert v["status"].value_counts().to_dict() == {"complete": 2, "legal_noncompletion": 1, "illegal": 1}
    strict = tmp_path / "strict.csv"
    assert (
        main(
            [
                "score",
                "--bank",
                str(bank_path),
                "--responses",
                str(resp),
                "--out",
                str(strict),
                "--parse",
                "strict",
                "--format-failure",
                "noncompletion",
            ]
        )
        == 0
    )
    vs = read_verdicts(strict).frame
    assert vs["status"].value_counts().to_dict() == {"legal_noncompletion": 3, "complete": 1}
    assert vs["error_kind"].tolist() == ["", "", "", ""]  # CSV round trip keeps "" not NaN
    table = tmp_path / "metrics.csv"
    capsys.readouterr()
    assert main(["metrics", "--verdicts", str(out), "--by", "condition,k", "--out", str(table)]) == 0
    shown = capsys.readouterr().out
    assert "SPE" in shown
    m = pd.read_csv(table)
    assert list(m.columns) == ["condition", "k", "N", "C", "I", "R", "Q", "E", "G", "O", "SPE", "Dc"]
    assert m["N"].tolist() == [3, 1] and m["C"].tolist() == pytest.approx([1 / 3, 1.0])


def test_cli_failed_score_leaves_no_file(tmp_path, capsys):
    bank_path = tmp_path / "bank.parquet"
    write_bank(tiny_bank(), bank_path)
    resp = _jsonl(tmp_path / "r.jsonl", [_rec(), _rec(board="nope", trial=1)])
    out = tmp_path / "verdicts.parquet"
    assert main(["score", "--bank", str(bank_path), "--responses", str(resp), "--out", str(out)]) == 2
    assert "line 2" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bank.parquet", "r.jsonl"]
    # --skip-invalid scores the rest
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert (
            main(["score", "--bank", str(bank_path), "--responses", str(resp), "--out", str(out), "--skip-invalid"])
            == 0
        )
    assert len(read_verdicts(out).frame) == 1
    assert "line 2" in capsys.readouterr().err


def test_cli_metrics_rejects_unknown_group(tmp_path):
    out = tmp_path / "v.parquet"
    score_responses(tiny_bank(), pd.DataFrame([_rec()])).to_parquet(out)
    assert main(["metrics", "--verdicts", str(out), "--by", "model"]) == 2


def test_cli_score_with_nothing_to_score(tmp_path, capsys):
    bank_path = tmp_path / "bank.parquet"
    write_bank(tiny_bank(), bank_path)
    resp = _jsonl(tmp_path / "run.jsonl", [_rec(response=None, status="error", attempt=0)])
    out = tmp_path / "v.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["score", "--bank", str(bank_path), "--responses", str(resp), "--out", str(out)]) == 2
    assert "no completed outputs" in capsys.readouterr().err and not out.exists()


def test_cli_score_rejects_a_bad_output_name_before_work(tmp_path, capsys):
    bank_path = tmp_path / "bank.parquet"
    write_bank(tiny_bank(), bank_path)
    resp = _jsonl(tmp_path / "r.jsonl", [_rec()])
    assert main(["score", "--bank", str(bank_path), "--responses", str(resp), "--out", str(tmp_path / "v.txt")]) == 2
    assert "unknown file type" in capsys.readouterr().err
