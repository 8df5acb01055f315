"""`fastspe show` on a Sokoban bank: the replay agrees with every verdict and with the independent replay, the
trace on a pipe (a push, a wall hit, a blocked push), the level in XSB after every move on a terminal, the page."""

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

from fastspe.boundary.banks import read_bank
from fastspe.boundary.verdict_files import read_verdicts, write_verdicts
from fastspe.cli import main
from fastspe.domains.sokoban.baselines import sokoban_baseline_responses
from fastspe.domains.sokoban.viewer import sokoban_trace
from fastspe.report.viewer_html import trace_page
from fastspe.scoring.score import score_responses
from fastspe.domains.sokoban.verify.replay import bank_levels, replay_sokoban

REPO = Path(__file__).resolve().parents[1]
ONE = "#####\n#@$.#\n#####"
TWO = "#######\n#@$ . #\n# $ . #\n#######"
EVIL = 'x</script><b onclick="1">&amp;'
# answers with known outcomes on TWO (player at row 1, col 1; boxes right of it and below-right of it)
HAND = [
    ("two", "hand", 0, "MOVES: D, U, R, R"),  # a step down and back (a revisit), then two pushes
    ("two", "hand", 1, "MOVES: R, R, U, L"),  # two pushes, then a step into the wall above
    ("two", "hand", 2, "MOVES: R, R, R, R"),  # the third push leaves the box against the wall: the 4th is blocked
    ("two", "hand", 3, "MOVES: R, jump"),  # a token that is not a move
    ("one", "hand", 0, "I cannot solve this level."),  # no move list
    ("one", EVIL, 0, "MOVES: R"),
]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("show-sokoban")
    levels = out / "levels.jsonl"
    levels.write_text("".join(json.dumps({"id": i, "level": t}) + "\n" for i, t in (("one", ONE), ("two", TWO))))
    assert (
        main(["bank", "build", "--domain", "sokoban", "--levels", str(levels), "--out", str(out / "bank.parquet")]) == 0
    )
    bank = read_bank(out / "bank.parquet")
    hand = pd.DataFrame(
        [
            dict(board_id=b, condition=c, trial=t, response=r, finish_reason="stop", status="ok", attempt=1)
            for b, c, t, r in HAND
        ]
    )
    answers = pd.concat(
        [sokoban_baseline_responses(bank, p, trials=2) for p in ("oracle", "greedy", "random")] + [hand],
        ignore_index=True,
    )
    write_verdicts(score_responses(bank, answers), out / "verdicts.parquet")
    return out / "bank.parquet", out / "verdicts.parquet", bank


def show(run, *args):
    bank, verdicts, _ = run
    cmd = [sys.executable, "-m", "fastspe", "show", "--bank", str(bank), "--verdicts", str(verdicts), *args]
    return subprocess.run(
        cmd, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=REPO, timeout=300
    )


def _trace(run, board, condition, trial):
    frame = read_verdicts(run[1]).frame
    row = frame[(frame["board_id"] == board) & (frame["condition"] == condition) & (frame["trial"] == trial)]
    return sokoban_trace(run[2].set_index("board_id").loc[board].to_dict(), row.iloc[0].to_dict())


def test_the_replay_agrees_with_every_verdict_and_the_independent_replay(run):
    frame = read_verdicts(run[1]).frame
    boards = run[2].set_index("board_id")
    independent = bank_levels(run[2])
    assert {"complete", "legal_noncompletion", "illegal"} <= set(frame["status"])
    assert {"wall", "box_blocked", "invalid_action", "format"} <= set(frame["error_kind"])
    for row in frame.to_dict("records"):
        trace = sokoban_trace(boards.loc[row["board_id"]].to_dict(), row)
        assert trace.disagreements() == [], row
        if row["error_kind"] != "format":
            theirs = replay_sokoban(independent[row["board_id"]], trace.moves)
            mine = {
                "status": trace.status,
                "error_kind": trace.illegal.kind if trace.illegal else "",
                "first_error": trace.first_error,
                "final_h": trace.final.h,
                "min_h": trace.closest.h,
                "revisits": len(trace.revisits),
            }
            assert mine == {k: theirs[k] for k in mine}, row


def test_the_steps_are_the_levels_the_rules_give(run):
    trace = _trace(run, "two", "hand", 0)
    texts = [trace.text(s) for s in trace.steps]
    assert texts[0] == TWO
    assert texts[1] == "#######\n# $ . #\n#@$ . #\n#######"  # the player steps down
    assert texts[2] == TWO and trace.steps[2].revisit_of == 0
    assert texts[4] == "#######\n#  @* #\n# $ . #\n#######"  # two pushes: the first box on its goal
    assert [s.pushed >= 0 for s in trace.steps[1:]] == [False, False, True, True]
    assert [s.h for s in trace.steps] == [4, 4, 4, 3, 2] and trace.status == "legal_noncompletion"


@pytest.mark.slow
def test_a_pipe_gets_one_line_per_move_and_the_first_illegal_move(run):
    proc = show(run, "--board", "two", "--condition", "hand", "--trial", "1")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # the replay agrees with the verdict: no warning
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("level two (4x7, 2 boxes, d* = ") and "condition hand · trial 1" in lines[0]
    assert "first illegal: move 3 ('U'): into a wall (first_error = 2)" in proc.stdout
    assert "pushes: 2 of 2 legal moves" in proc.stdout
    table = lines[[line.split() for line in lines].index(["step", "move", "push", "h", "note"]) + 1 :]
    assert [line.split()[:3] for line in table] == [
        ["0", "-", "-"],
        ["1", "R", "box"],
        ["2", "R", "box"],
        ["3", "U", "-"],
    ]
    assert table[-1].endswith("illegal: into a wall") and "closest to the goal" in table[2]
    assert "#" not in "".join(table)  # no level drawn on a pipe
    blocked = show(run, "--board", "two", "--condition", "hand", "--trial", "2")
    assert "first illegal: move 4 ('R'): pushes a box into a wall or another box (first_error = 3)" in blocked.stdout
    revisit = show(run, "--board", "two", "--condition", "hand", "--trial", "0")
    assert "revisits: 1 (step 2 = step 0)" in revisit.stdout and "revisits step 0" in revisit.stdout
    nothing = show(run, "--board", "one", "--condition", "hand")
    assert "first illegal: none taken, no move list in the answer" in nothing.stdout


def test_a_terminal_gets_the_level_after_every_move(run):
    bank, verdicts, _ = run
    trace = _trace(run, "two", "baseline:oracle", 0)
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
        "two",
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
    raw = b"".join(chunks).decode()
    assert "\x1b[" in raw  # the pushed box, reversed
    text = re.sub(r"\x1b\[[0-9;]*m", "", raw).replace("\r\n", "\n")
    assert trace.status == "complete" and text.count("\nstep ") == len(trace.moves) + 1
    for step in trace.steps:  # each step's heading, then the level as the replay has it
        assert f") · h = {step.h}" in text and "\n" + trace.text(step) + "\n" in text
    assert text.rstrip().endswith(trace.text(trace.final))
    assert "$" not in trace.text(trace.final)  # every box on a goal after the oracle's last move


def test_the_page_embeds_the_replayed_levels_and_escapes_user_text(run, tmp_path):
    out = tmp_path / "one.html"
    proc = show(run, "--board", "two", "--condition", "hand", "--trial", "2", "--html", str(out))
    assert proc.returncode == 0, proc.stderr
    page = out.read_text()
    assert "http://" not in page and "https://" not in page and "@import" not in page  # nothing from a network
    data = json.loads(re.search(r'<script type="application/json" id="trace-data">(.*?)</script>', page, re.S).group(1))
    trace = _trace(run, "two", "hand", 2)
    assert [s["text"] for s in data["steps"]] == [trace.text(s) for s in trace.steps]
    assert [(s["move"], s["push"], s["h"], s["player"], s["boxes"]) for s in data["steps"]] == [
        (s.move, s.pushed, s.h, s.player, list(s.boxes)) for s in trace.steps
    ]  # the picture's cells
    assert data["illegal"] == "move 4 (R): pushes a box into a wall or another box"
    assert trace_page(trace) == page
    assert '<li class="bad"' in page and 'id="board" class="grid sk"' in page
    evil = tmp_path / "evil.html"
    assert show(run, "--board", "one", "--condition", EVIL, "--html", str(evil)).returncode == 0
    text = evil.read_text()
    assert EVIL not in text and "x&lt;/script&gt;" in text


def test_the_report_has_sokoban_example_pages(run, tmp_path):
    from fastspe.report.write import write_report

    bank, verdicts = run[2], read_verdicts(run[1], run[2])
    write_report(bank, verdicts, tmp_path / "report", draws=20, seed=1, figures=False)
    page = (tmp_path / "report" / "report.html").read_text()
    links = re.findall(r'<a href="(examples/[^"]+\.html)"', page)
    assert links
    for href in links:
        example = (tmp_path / "report" / href).read_text()
        steps = json.loads(re.search(r'id="trace-data">(.*?)</script>', example, re.S).group(1))["steps"]
        assert steps[0]["text"] in (ONE, TWO)
    where = pd.read_csv(tmp_path / "report" / "tables" / "trajectories.csv")
    dead = verdicts.frame[verdicts.frame["status"] != "complete"]["first_dead_move"] >= 0
    pooled = where[where["depth"] == "all"]
    assert pooled["first_dead_move_share"].notna().any() and dead.any()  # beside the first illegal move's
    assert "the first dead move" in (tmp_path / "report" / "report.md").read_text()
