"""`fastspe show` shows the model's answer as received, from the responses file the verdicts were scored from: a
format failure's text, hostile text escaped on the terminal and on the page, a long answer cut with a note."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from fastspe.boundary.banks import write_bank
from fastspe.boundary.verdict_files import write_verdicts
from fastspe.cli import main
from fastspe.domains.sliding.bank.build import build_bank
from fastspe.domains.sliding.bank.design import design_from_dict
from fastspe.report.answer import MOST_SHOWN, answer_lines
from fastspe.scoring.score import score_responses

DESIGN = {"seed": 3, "cells": [{"cohort": "primary", "depth": 6, "count": 3}]}
HOSTILE = "MOVES: U\x1b[31m <script>alert(1)</script> \u202eRLD\u2066 done"
REFUSAL = "I cannot solve this puzzle; the\ntiles look stuck."


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    out = tmp_path_factory.mktemp("answer")
    bank = build_bank(design_from_dict(DESIGN))
    ids = bank["board_id"].tolist()
    answers = [(ids[0], REFUSAL), (ids[1], HOSTILE), (ids[2], "x" * (MOST_SHOWN + 500))]
    lines = [
        json.dumps(
            {
                "board_id": b,
                "condition": "m",
                "trial": 0,
                "response": r,
                "finish_reason": "stop",
                "status": "ok",
                "attempt": 1,
            }
        )
        for b, r in answers
    ]
    (out / "log.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    write_bank(bank, out / "bank.parquet")
    frame = pd.DataFrame([json.loads(line) for line in lines])
    write_verdicts(score_responses(bank, frame), out / "verdicts.parquet")
    return out, ids


def show(capsys, files, board, *extra):
    out, _ = files
    code = main(
        [
            "show",
            "--bank",
            str(out / "bank.parquet"),
            "--verdicts",
            str(out / "verdicts.parquet"),
            "--board",
            board,
            "--format",
            "trace",
            *extra,
        ]
    )
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_format_failure_shows_its_text(capsys, files):
    out, ids = files
    code, text, _ = show(capsys, files, ids[0], "--responses", str(out / "log.jsonl"))
    assert code == 0
    assert "no move list in the answer" in text
    assert "I cannot solve this puzzle; the" in text and "tiles look stuck." in text
    assert f"answer as received ({len(REFUSAL)} characters)" in text


def test_without_the_responses_a_format_failure_says_where_the_text_is(capsys, files):
    _, ids = files
    code, text, err = show(capsys, files, ids[0])
    assert code == 0
    assert "I cannot solve" not in text
    assert "--responses" in err


def test_hostile_text_is_escaped_on_the_terminal_and_the_page(capsys, files, tmp_path):
    out, ids = files
    page = tmp_path / "p.html"
    code, text, _ = show(capsys, files, ids[1], "--responses", str(out / "log.jsonl"), "--html", str(page))
    assert code == 0
    for raw in ("\x1b", "\u202e", "\u2066"):
        assert raw not in text
    assert "\\x1b[31m" in text and "\\u202eRLD\\u2066" in text
    html = page.read_text(encoding="utf-8")
    for raw in ("\x1b", "\u202e", "\u2066", "<script>alert"):
        assert raw not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "\\u202eRLD" in html
    assert '<pre id="answer"' in html


def test_a_long_answer_is_cut_on_the_terminal_with_a_note_and_whole_on_the_page(capsys, files, tmp_path):
    out, ids = files
    page = tmp_path / "p.html"
    code, text, _ = show(capsys, files, ids[2], "--responses", str(out / "log.jsonl"), "--html", str(page))
    assert code == 0
    assert "cut here: 500 more characters" in text
    assert max(len(line) for line in text.splitlines()) <= 102
    assert "x" * (MOST_SHOWN + 500) in page.read_text(encoding="utf-8")


def test_an_answer_missing_from_the_responses_names_the_option(capsys, files, tmp_path):
    out, ids = files
    other = tmp_path / "other.jsonl"
    other.write_text(
        json.dumps({"board_id": ids[1], "condition": "m", "trial": 0, "response": "MOVES: U"}) + "\n", encoding="utf-8"
    )
    code, _, err = show(capsys, files, ids[0], "--responses", str(other))
    assert code == 2
    assert err.count("error:") == 1 and "--responses" in err and ids[0] in err


def test_answer_lines_wrap_and_mark_an_empty_answer():
    assert answer_lines("")[1] == "  (empty)"
    lines = answer_lines("ab " * 100, width=20)
    assert len(lines) > 10 and all(len(line) <= 22 for line in lines[1:])
    assert answer_lines("one", width=20)[0] == "answer as received (3 characters):"
