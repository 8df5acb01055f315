"""`fastspe show` and the trace model behind it: the replay agrees with every verdict of a scored baseline run,
the trace on a pipe, the grid on a terminal, the choice of one answer, errors that name the option, the page."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from fastspe.domains.sliding.bank.build import build_bank
from fastspe.boundary.banks import write_bank
from fastspe.domains.sliding.bank.design import design_from_dict
from fastspe.boundary.verdict_files import read_verdicts, write_verdicts
from fastspe.domains.sliding.planners.baselines import PLANNERS, baseline_responses
from fastspe.domains.sliding.viewer import plan_trace
from fastspe.report.trace import trace_lines
from fastspe.report.viewer_html import trace_page
from fastspe.scoring.score import score_responses

REPO = Path(__file__).resolve().parents[1]
EVIL = 'x</script><b onclick="1">&amp;'  # a condition name that would break an unescaped page
DESIGN = {
    "seed": 11,
    "cells": [
        {"cohort": "primary", "depth": 6, "count": 4},
        {"cohort": "primary", "blocks": [5], "depth": 10, "count": 4},
    ],
}


def hand_answers(bank: pd.DataFrame) -> pd.DataFrame:
    """Answers the baselines never give: a token that is not a move, no move list, a condition with markup."""
    ids = bank["board_id"].tolist()
    rows = [
        (ids[0], "hand", 0, "MOVES: U, X, D"),
        (ids[1], "hand", 0, "MOVES: L, jump"),
        (ids[2], "hand", 0, "I cannot solve this puzzle."),
        (ids[-1], "hand", 0, "MOVES: U, U, U, U, U"),
        (ids[0], EVIL, 0, "MOVES: " + ", ".join(bank["certificate"].iloc[0])),
    ]
    return pd.DataFrame(
        [
            dict(board_id=b, condition=c, trial=t, response=r, finish_reason="stop", status="ok", attempt=1)
            for b, c, t, r in rows
        ]
    )


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("show")
    bank = build_bank(design_from_dict(DESIGN))
    answers = pd.concat(
        [baseline_responses(bank, p, trials=2) for p in PLANNERS] + [hand_answers(bank)], ignore_index=True
    )
    write_bank(bank, out / "bank.parquet")
    write_verdicts(score_responses(bank, answers), out / "verdicts.parquet")
    return out / "bank.parquet", out / "verdicts.parquet", bank


def show(run, *args, env=None):
    bank, verdicts, _ = run
    cmd = [sys.executable, "-m", "fastspe", "show", "--bank", str(bank), "--verdicts", str(verdicts), *args]
    env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO, timeout=300)


def test_the_replay_agrees_with_every_verdict(run):
    frame = read_verdicts(run[1]).frame
    boards = run[2].set_index("board_id")
    assert {"complete", "legal_noncompletion", "illegal"} <= set(frame["status"])
    assert {"boundary", "obstacle", "invalid_action", "format"} <= set(frame["error_kind"])
    assert (frame["revisits"] > 0).any()
    for row in frame.to_dict("records"):
        trace = plan_trace(boards.loc[row["board_id"]].to_dict(), row)
        assert trace.disagreements() == [], row
        assert (trace.status, trace.first_error, len(trace.moves)) == (row["status"], row["first_error"], row["L"])
        assert trace.closest.h == row["min_h"] and trace.final.h == row["final_h"]


def _row(run, condition, kind=None):
    frame = read_verdicts(run[1]).frame
    part = frame[frame["condition"] == condition]
    if kind is not None:
        part = part[part["error_kind"] == kind]
    return part.iloc[0].to_dict()


def test_a_pipe_gets_one_line_per_move(run):
    row = _row(run, "hand", "invalid_action")
    proc = show(run, "--board", row["board_id"], "--condition", "hand", "--trial", "0")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "status illegal · L = 3" in lines[1]
    # the verdict keeps a token that is not a move as "?"
    assert "first illegal: move 2 ('?'): invalid action (first_error = 1)" in proc.stdout
    table = lines[[line.split() for line in lines].index(["step", "move", "tile", "h", "note"]) + 1 :]
    assert [line.split()[:2] for line in table] == [["0", "-"], ["1", "U"], ["2", "?"]]
    assert table[-1].endswith("illegal: invalid action")
    assert "[" not in "".join(table)  # no grid on a pipe


def test_revisits_and_the_closest_step_are_marked(run):
    frame = read_verdicts(run[1]).frame
    row = frame[frame["revisits"] > 0].iloc[0].to_dict()
    proc = show(run, "--board", row["board_id"], "--condition", row["condition"], "--trial", str(row["trial"]))
    assert proc.returncode == 0, proc.stderr
    assert f"revisits: {row['revisits']} (step " in proc.stdout
    marked = [line for line in proc.stdout.splitlines() if "revisits step" in line]
    assert len(marked) == row["revisits"]
    step, earlier = re.match(r"\s*(\d+) .*revisits step (\d+)", marked[0]).groups()
    assert int(earlier) < int(step)
    assert sum("closest to the goal" in line for line in proc.stdout.splitlines()) == 2  # summary and its step


def test_a_terminal_gets_the_board_after_every_move(run):
    row = _row(run, "baseline:oracle")
    bank, verdicts, _ = run
    master, slave = pty.openpty()
    cmd = [
        sys.executable,
        "-m",
        "fastspe",
        "show",
        "--bank",
        str(bank),
        "--verdicts",
        str(verdicts),
        "--board",
        row["board_id"],
        "--condition",
        "baseline:oracle",
        "--trial",
        "0",
    ]
    proc = subprocess.Popen(
        cmd,
        stdout=slave,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "100"},
        cwd=REPO,
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    assert proc.wait(timeout=300) == 0, proc.stderr.read()
    os.close(master)
    lines = re.sub(r"\x1b\[[0-9;]*m", "", b"".join(chunks).decode()).splitlines()
    assert sum(line.startswith("step ") for line in lines) == row["L"] + 1
    assert any(re.search(r"\[\d+\]", line) for line in lines)  # the moved tile, marked
    goal_at = lines.index("goal:")
    cells = lambda grid: [re.findall(r"\d+|#+|\.", line) for line in grid]  # noqa: E731
    assert cells(lines[-4:]) == cells(lines[goal_at + 1 : goal_at + 5])  # the oracle's last board is the goal


def test_format_grid_is_the_terminal_view_on_a_pipe(run):
    row = _row(run, "hand", "format")
    proc = show(run, "--board", row["board_id"], "--condition", "hand", "--format", "grid")
    assert proc.returncode == 0, proc.stderr
    assert "goal:" in proc.stdout and "no move list in the answer" in proc.stdout


@pytest.mark.slow
def test_several_answers_are_listed_and_exit_2(run):
    row = _row(run, "baseline:greedy")
    proc = show(run, "--board", row["board_id"])
    assert proc.returncode == 2
    assert "--condition baseline:greedy --trial 1" in proc.stderr
    assert "give --condition and --trial" in proc.stderr
    one = show(run, "--board", row["board_id"], "--condition", "baseline:greedy")
    assert one.returncode == 2 and "--condition baseline:greedy --trial 0" in one.stderr


def test_one_matching_answer_is_shown_without_choosing(run, tmp_path):
    proc = show(run, "--board", _row(run, "hand", "format")["board_id"], "--condition", "hand")  # one trial each
    assert proc.returncode == 0 and "condition hand · trial 0" in proc.stdout, proc.stderr
    frame = read_verdicts(run[1]).frame
    write_verdicts(frame.iloc[[5]], tmp_path / "one.parquet")
    alone = show((run[0], tmp_path / "one.parquet", run[2]), "--board", frame["board_id"].iat[5])
    assert alone.returncode == 0 and f"trial {frame['trial'].iat[5]}" in alone.stdout, alone.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    "args, message",
    [
        (["--board", "nope"], "--board 'nope': no verdict of this board"),
        (["--condition", "nope"], "--condition 'nope': board"),
        (["--condition", "hand", "--trial", "7"], "--trial 7: board"),
        (["--trial", "-1"], "--trial: must be a whole number"),
    ],
)
def test_errors_name_the_option(run, args, message):
    board = _row(run, "hand")["board_id"]
    proc = show(run, *(["--board", board] if args[0] != "--board" else []), *args)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr


def test_the_page_escapes_user_text_and_embeds_the_steps(run, tmp_path):
    row = _row(run, EVIL)
    out = tmp_path / "one.html"
    proc = show(run, "--board", row["board_id"], "--condition", EVIL, "--html", str(out))
    assert proc.returncode == 0, proc.stderr
    page = out.read_text()
    assert EVIL not in page and "x&lt;/script&gt;" in page
    assert "http://" not in page and "https://" not in page and "@import" not in page  # nothing from a network
    data = re.search(r'<script type="application/json" id="trace-data">(.*?)</script>', page, re.S).group(1)
    assert "</" not in data
    steps = json.loads(data)["steps"]
    trace = plan_trace(run[2].set_index("board_id").loc[row["board_id"]].to_dict(), row)
    assert [s["board"] for s in steps] == [list(s.board) for s in trace.steps]
    assert trace_page(trace) == page


def test_trace_lines_of_a_format_failure():
    row = {
        "board_id": "b",
        "condition": "c",
        "trial": 0,
        "moves": "",
        "error_kind": "format",
        "status": "illegal",
        "first_error": -1,
        "L": 0,
    }
    trace = plan_trace({"rows": 2, "cols": 2, "blocks": [], "initial": [1, 2, 3, 0], "depth": 0}, row)
    assert trace.disagreements() == [] and trace.first_error == -1
    assert "first illegal: none taken, no move list in the answer" in trace_lines(trace)


def test_the_report_links_example_pages_per_condition_and_depth(run, tmp_path):
    from fastspe.report.examples import KINDS, MAX_DEPTHS
    from fastspe.report.write import write_report

    bank, verdicts = run[2], read_verdicts(run[1], run[2])
    write_report(bank, verdicts, tmp_path / "report", draws=20, seed=1, figures=False)
    page = (tmp_path / "report" / "report.html").read_text()
    links = re.findall(r'<a href="(examples/[^"]+\.html)" title="[^"]*">([^<]+)</a>', page)
    frame = verdicts.frame
    cells = frame.groupby(["condition", "depth"])["status"]
    expected = sum(int((s != "complete").any()) + int((s == "complete").any()) for _, s in cells)
    assert len(links) == expected and len({href for href, _ in links}) == expected
    assert {kind for _, kind in links} == set(KINDS)
    assert frame["depth"].nunique() <= MAX_DEPTHS
    for href, kind in links:
        example = (tmp_path / "report" / href).read_text()
        data = json.loads(re.search(r'id="trace-data">(.*?)</script>', example, re.S).group(1))
        assert ("status complete" in example) == (kind == "best completion"), href
        assert data["steps"]
    again = tmp_path / "again"
    write_report(bank, verdicts, again, draws=20, seed=1, figures=False)
    assert sorted(p.name for p in (again / "examples").iterdir()) == sorted(Path(h).name for h, _ in links)
    assert (again / "report.html").read_text() == page  # the choice is deterministic
