"""Published Sokoban collections as banks: levels refused at parse time, ``--skip-unsolved`` and its report, boxes
walled in on their goals, both optima and the objective in the bank's columns, JSONL, and Microban's optima against
the independent plain-Python breadth-first search."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fastspe.cli import main
from fastspe.domains.sokoban.bank_table import check_sokoban_bank_table
from fastspe.domains.sokoban.given import SKIP_REASONS, bank_from_levels, push_objective_available, skip_report
from fastspe.domains.sokoban.level import MAX_BOXES, MAX_SIDE, LevelRefused, parse_level
from fastspe.domains.sokoban.pack import pack_table
from fastspe.domains.sokoban.verify.bank import OPTIMALITY_STATES, fewest_moves, read_xsb, replay, verify_sokoban_bank
from fastspe.domains.sokoban.verify.replay import VERIFIER
from fastspe.errors import UserError
from fastspe.domains.codes import STATUS_NAMES
from fastspe.scoring.score import bank_tables, replay_answers

MICROBAN = Path(__file__).parent / "data" / "sokoban" / "microban.txt"
LEVEL = "#####\n#@$.#\n#####"
WALLED = "#######\n#*#@$.#\n#######"  # a box on its goal, walled in where the player cannot reach
BIG = "#" * (MAX_SIDE + 1) + "\n#@$." + " " * (MAX_SIDE - 4) + "#\n" + "#" * (MAX_SIDE + 1)  # one column too wide
MANY = (
    "#" * (MAX_BOXES + 4)
    + "\n#@"
    + "$" * (MAX_BOXES + 1)
    + "#\n# "
    + "." * (MAX_BOXES + 1)
    + "#\n"
    + "#" * (MAX_BOXES + 4)
)  # one box too many
RING = "########\n#@$   .#\n# #### #\n# #**# #\n# #**# #\n# #### #\n#      #\n########"  # four walled in
REASONS = {  # a level for every reason a level is left out of a bank
    "too_big": BIG,
    "too_many_boxes": MANY,
    "dead": "####\n#@$#\n#.##\n####",
    "unsolvable": "######\n# .  #\n# $ @#\n# # ##\n######",  # no cell below the box to push it up from
    "node_limit": "########\n#@     #\n# $$$  #\n#  ... #\n########",
    "refused": "#####\n#@$ .\n#####",  # not closed by walls
}


# ---- parse-time refusals -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, kind, message",
    [
        ("#####\n#@$ .\n#####", "refused", "line 2, column 5: the level is not closed by walls"),
        ("\n#####\n#@$ .#\n#  ##\n# #\n", "refused", "line 5, column 2: the level is not closed by walls"),
        ("@$.", "refused", "not closed by walls"),
        ("#####\n#@* #\n#####", "refused", "solved at the start"),
        (BIG, "too_big", f"the level is 3x{MAX_SIDE + 1}"),
        (MANY, "too_many_boxes", f"the level has {MAX_BOXES + 1} boxes"),
        ("#####\n#@$x#\n#####", "refused", "not an XSB character"),
    ],
)
def test_parse_refusals_name_their_kind_and_place(text, kind, message):
    with pytest.raises(LevelRefused, match=message) as info:
        parse_level(text)
    assert info.value.kind == kind and isinstance(info.value, UserError)


def test_a_box_walled_in_on_its_goal_is_a_wall_the_text_keeps():
    lv = parse_level(WALLED)
    assert lv.boxes == (11,) and lv.fixed == (8,) and lv.goals == (12,) and lv.wall[8] and not lv.goal[8]
    assert lv.text == WALLED and parse_level(lv.text) == lv
    lv = parse_level(RING)  # Microban 155 has a 2 x 2 block of them
    assert len(lv.fixed) == 4 and len(lv.boxes) == 1 and lv.text == RING and parse_level(lv.text) == lv
    with pytest.raises(LevelRefused, match="a box the player cannot reach"):  # not on a goal: not a wall
        parse_level("#######\n#$#@$.#\n#######")
    with pytest.raises(LevelRefused, match="1 box walled in on goals"):  # nothing left to push
        parse_level("#######\n#*#@ .#\n#######".replace(" .", "  "))


def test_a_walled_in_box_is_exact_in_the_bank_the_score_and_both_verifiers():
    bank = bank_from_levels([WALLED, RING], ids=["a", "b"])
    rows = bank.to_pylist()
    assert [(r["depth"], r["pushes"], r["boxes"]) for r in rows] == [(1, 1, 1), (4, 4, 1)]
    assert [r["level"] for r in rows] == [WALLED, RING]
    assert verify_sokoban_bank(bank) == []  # its own reading of the text agrees: one box, optimal
    assert fewest_moves(read_xsb(RING)) == (4, 4)
    boards = VERIFIER.boards(bank)
    tables = bank_tables(bank)
    assert [boards[b].stratum for b in "ab"] == [1, 1]
    assert [boards[b].tag for b in "ab"] == [tables.layout_names[i].as_py() for i in tables.layout_index]
    plans = {"a": ("R", "LR", "RRR", "DR", "RL"), "b": ("RRRR", "DDDDDRRRRRRUUUUU", "RRRLR", "DRRR", "RRRRR")}
    for bid, some in plans.items():
        rows_ = np.full(len(some), "ab".index(bid), dtype=np.int64)
        got = replay_answers(tables, rows_, [f"MOVES: {','.join(p)}" for p in some])
        for i, plan in enumerate(some):
            want = VERIFIER.replay(boards[bid], plan)
            assert (
                STATUS_NAMES[got.status[i]],
                int(got.first_error[i]),
                int(got.final_h[i]),
                int(got.min_h[i]),
                int(got.revisits[i]),
            ) == (want["status"], want["first_error"], want["final_h"], want["min_h"], want["revisits"]), (bid, plan)


# ---- --skip-unsolved ----------------------------------------------------------------------------------------


def test_every_reason_is_reported_and_the_rest_banked():
    texts = [LEVEL] + [REASONS[r] for r in SKIP_REASONS] + ["  " + LEVEL.replace("\n", "\n  ")]  # LEVEL again
    where = [f"set.xsb: line {10 * i + 1}" for i in range(len(texts))]
    ids = [f"L{i}" for i in range(len(texts))]
    skipped, ticks = [], []
    bank = bank_from_levels(
        texts,
        ids,
        where=where,
        node_limit=50,
        skipped=skipped,
        progress=lambda done, total: ticks.append((done, total)),
    )
    assert bank.column("board_id").to_pylist() == ["L0"] and ticks[-1] == (len(texts), len(texts))
    assert [(s.board_id, s.reason) for s in skipped] == [(f"L{i + 1}", r) for i, r in enumerate(SKIP_REASONS)] + [
        ("L7", "refused")
    ]
    assert "the same level as set.xsb: line 1: level 'L0'" in skipped[-1].message
    report = skip_report(skipped, len(texts))
    assert report[0] == (
        "skipped 7 of 8 levels (1 too big, 1 too many boxes, 1 dead, 1 unsolvable, 1 node limit, 2 refused):"
    )
    assert report[1].startswith(f"  set.xsb: line 11: level 'L1': too big: the level is 3x{MAX_SIDE + 1}")
    assert any("line 51: level 'L5': node limit: the search stopped at the node limit" in line for line in report)


@pytest.mark.parametrize("reason", SKIP_REASONS)
def test_without_skipping_the_first_failing_level_is_one_error(reason):
    with pytest.raises(UserError, match="^lv.xsb: line 7: level 'x': ") as info:
        bank_from_levels(
            [LEVEL, REASONS[reason]], ["ok", "x"], where=["lv.xsb: line 1", "lv.xsb: line 7"], node_limit=50
        )
    assert "\n" not in str(info.value)


def test_the_command_line_reports_what_it_skipped(tmp_path, capsys):
    src, out = tmp_path / "set.xsb", tmp_path / "set.parquet"
    src.write_text(
        "; ok\n\n" + LEVEL + "\n\n; open\n\n" + REASONS["refused"] + "\n\n; dead\n\n" + REASONS["dead"] + "\n"
    )
    assert main(["bank", "build", "--domain", "sokoban", "--levels", str(src), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{src}: line 9: level 'open': level line 2, column 5: the level is not closed by walls" in err
    assert not out.exists()
    assert (
        main(["bank", "build", "--domain", "sokoban", "--levels", str(src), "--skip-unsolved", "--out", str(out)]) == 0
    )
    err = capsys.readouterr().err
    assert "skipped 2 of 3 levels (1 dead, 1 refused):" in err
    assert f"  {src}: line 9: level 'open': refused: level line 2, column 5" in err
    assert f"  {src}: line 15: level 'dead': dead: the level is dead from the start" in err
    assert "wrote 1 certified level" in err and pq.read_table(out).column("board_id").to_pylist() == ["ok"]
    src.write_text(REASONS["dead"] + "\n")
    assert (
        main(["bank", "build", "--domain", "sokoban", "--levels", str(src), "--skip-unsolved", "--out", str(out)]) == 2
    )
    assert "none of its 1 levels could be certified" in capsys.readouterr().err


def test_skip_and_objective_go_with_levels(tmp_path, capsys):
    for option in (["--skip-unsolved"], ["--objective", "moves"]):
        assert main(["bank", "build", "--domain", "sokoban", "--out", str(tmp_path / "x.parquet"), *option]) == 2
        assert "goes with --levels" in capsys.readouterr().err


# ---- columns: both optima and the objective -----------------------------------------------------------------


def test_a_bank_records_its_objective_and_both_optima():
    bank = bank_from_levels(["#######\n#     #\n# $.  #\n#  @$ #\n#   . #\n#######", LEVEL], cohort="c")
    rows = bank.to_pylist()
    assert {r["objective"] for r in rows} == {"moves"}
    assert [(r["depth"], r["pushes"], r["move_optimal_moves"], r["move_optimal_pushes"]) for r in rows] == [
        (8, 2, 8, 2),
        (1, 1, 1, 1),
    ]
    if push_objective_available():
        assert all(r["push_optimal_pushes"] <= r["move_optimal_pushes"] for r in rows)
        assert all(r["push_optimal_moves"] >= r["move_optimal_moves"] for r in rows)
    else:
        assert "push_optimal_moves" not in bank.column_names
    checked = check_sokoban_bank_table(bank)
    assert checked.column_names == bank.column_names


def test_push_objective_is_guarded_or_certified():
    if not push_objective_available():
        with pytest.raises(UserError, match="push-optimal solving needs a solver with the push objective"):
            bank_from_levels([LEVEL], objective="pushes")
        return
    bank = bank_from_levels([LEVEL], objective="pushes").to_pylist()[0]
    assert bank["objective"] == "pushes" and bank["depth"] == bank["pushes"] == bank["push_optimal_pushes"]


def _old_bank() -> pa.Table:
    bank = bank_from_levels([LEVEL, "#######\n#@ $ .#\n#######"], ids=["a", "b"])
    return bank


def test_old_banks_still_read_and_bad_optima_are_named():
    bank = _old_bank()
    old = bank.select(["board_id", "cohort", "depth", "level", "boxes", "certificate", "pushes"])
    assert check_sokoban_bank_table(old).column_names == old.column_names
    assert pack_table(check_sokoban_bank_table(old)).depth.tolist() == [1, 3]
    bad = bank.set_column(
        bank.schema.get_field_index("move_optimal_moves"), "move_optimal_moves", pa.array([1, 4], pa.int64())
    )
    with pytest.raises(UserError, match="row 2 .*move_optimal_moves is 4 but the certificate's is 3"):
        check_sokoban_bank_table(bad)
    mixed = bank.set_column(bank.schema.get_field_index("objective"), "objective", pa.array(["moves", "pushes"]))
    with pytest.raises(UserError, match="a bank certifies one objective"):
        check_sokoban_bank_table(mixed)
    odd = bank.set_column(bank.schema.get_field_index("objective"), "objective", pa.array(["moves", "steps"]))
    with pytest.raises(UserError, match="objective is 'steps', must be one of moves, pushes"):
        check_sokoban_bank_table(odd)
    nulls = bank.set_column(
        bank.schema.get_field_index("move_optimal_pushes"), "move_optimal_pushes", pa.array([1, None], pa.int64())
    )
    with pytest.raises(UserError, match="move_optimal_pushes is missing"):
        check_sokoban_bank_table(nulls)


def test_a_push_objective_bank_is_checked_by_pushes_and_scored_by_pushes():
    bank = _old_bank()
    rows = bank.to_pylist()
    for r in rows:  # the certificates here are also push-optimal: a push-objective bank of the same levels
        r.update(
            objective="pushes",
            depth=r["pushes"],
            push_optimal_moves=len(r["certificate"]),
            push_optimal_pushes=r["pushes"],
        )
    pushes = pa.Table.from_pylist(rows)
    checked = check_sokoban_bank_table(pushes)
    assert checked.column("depth").to_pylist() == [1, 2]
    rows[1]["depth"] = 3
    with pytest.raises(UserError, match=r"depth \(3\) must equal pushes \(2\)"):
        check_sokoban_bank_table(pa.Table.from_pylist(rows))
    packed = pack_table(checked)  # scored by pushes: tests/test_sokoban_pushscore.py
    assert packed.objective == "pushes" and pack_table(bank).objective == "moves"


# ---- JSONL ---------------------------------------------------------------------------------------------------


def test_a_sokoban_bank_is_parquet_only(tmp_path, capsys):
    src = tmp_path / "levels.jsonl"
    src.write_text(json.dumps({"id": "a", "level": LEVEL}) + "\n")
    assert (
        main(["bank", "build", "--domain", "sokoban", "--levels", str(src), "--out", str(tmp_path / "bank.jsonl")]) == 2
    )
    err = capsys.readouterr().err
    assert "a sokoban bank is a .parquet file" in err and len(err.strip().splitlines()) == 1


# ---- Microban I against the independent breadth-first search ---------------------------------------------------


def _small(text: str) -> bool:
    """At most 10 x 10 and 4 boxes (walled-in ones aside), read from the text alone: the levels the plain-Python search can finish (and all
    that the solver took before it reached published sizes), so these tests take seconds whatever the limits."""
    lines = text.split("\n")
    boxes = sum(line.count("$") + line.count("*") for line in lines) - _walled_in(text)
    return len(lines) <= 10 and max(map(len, lines)) <= 10 and boxes <= 4


def _microban_agrees(max_states: int) -> tuple[int, int]:
    """Bank Microban I's small levels (``_small``) and compare each one's d* and pushes with the plain-Python search,
    over the levels it finishes within ``max_states`` states: (levels compared, levels banked)."""
    from fastspe.domains.sokoban.level_files import read_given_levels

    given = read_given_levels(MICROBAN)
    assert len(given) == 155
    small = [g for g in given if _small(g.text)]
    skipped: list = []
    bank = bank_from_levels([g.text for g in small], None, "microban", where=[g.where for g in small], skipped=skipped)
    assert skipped == [] and bank.num_rows == len(small) == 77
    from . import naive_sokoban_bfs

    pushes_twin = getattr(naive_sokoban_bfs, "naive_solve_pushes", None)  # with the push-optimal solver
    compared = 0
    for row in bank.to_pylist():
        try:
            best = fewest_moves(read_xsb(row["level"]), max_states)
        except OverflowError:
            continue
        assert best == (row["depth"], row["pushes"]) == (row["move_optimal_moves"], row["move_optimal_pushes"]), row[
            "board_id"
        ]
        if "push_optimal_moves" in row and pushes_twin is not None:
            try:
                fewest_pushes = pushes_twin(row["level"], max_states)
            except RuntimeError:  # over its bound
                fewest_pushes = (row["push_optimal_moves"], row["push_optimal_pushes"])
            assert fewest_pushes == (row["push_optimal_moves"], row["push_optimal_pushes"]), row["board_id"]
        compared += 1
    return compared, bank.num_rows


def test_microban_optima_agree_with_the_independent_search():
    compared, banked = _microban_agrees(20_000)
    assert compared >= 40 and banked >= 77


@pytest.mark.slow
def test_every_banked_microban_level_within_the_verifiers_bound_agrees():
    compared, banked = _microban_agrees(OPTIMALITY_STATES)
    assert compared == banked


# ---- reasoning-gym's default items ----------------------------------------------------------------------------


def _walled_in(text: str) -> int:
    """Boxes on goals (``*``) that the player cannot reach through anything but walls, read from the text alone."""
    lines = text.split("\n")
    cells = {(r, q): ch for r, line in enumerate(lines) for q, ch in enumerate(line)}
    start = next(s for s, ch in cells.items() if ch in "@+")
    seen, todo = {start}, [start]
    while todo:
        r, q = todo.pop()
        for n in ((r - 1, q), (r + 1, q), (r, q - 1), (r, q + 1)):
            if n in cells and cells[n] != "#" and n not in seen:
                seen.add(n)
                todo.append(n)
    return sum(1 for s, ch in cells.items() if ch == "*" and s not in seen)


def test_reasoning_gym_items_bank_with_their_walled_in_boxes():
    """The 200 default items (seed 42): each is a level or over this build's limits (34 hold a box walled in on its
    goal, which is accepted); the 40 small ones bank, every reference answer replays to the goals in at least d*
    moves, and the optima agree with the independent search where it finishes."""
    from fastspe.domains.sokoban.level_files import read_given_levels

    path = MICROBAN.parent / "reasoning_gym_seed42.jsonl"
    given = read_given_levels(path)
    assert len(given) == 200
    for g in given:  # each one is a level, or over this build's limits
        try:
            parse_level(g.text)
        except LevelRefused as exc:
            assert exc.kind in ("too_big", "too_many_boxes"), (g.id, str(exc))
    small = [g for g in given if _small(g.text)]
    skipped: list = []
    bank = bank_from_levels(
        [g.text for g in small], [g.id for g in small], "rg", where=[g.where for g in small], skipped=skipped
    )
    assert skipped == [] and bank.num_rows == len(small) == 40
    walled = {g.id for g in given if _walled_in(g.text)}
    assert len(walled) == 34 and len(walled & set(bank.column("board_id").to_pylist())) == 10
    records = [json.loads(line) for line in path.read_text().splitlines() if line]
    answers = {r["id"]: r["reasoning_gym_answer"] for r in records}
    compared = 0
    for row in bank.to_pylist():
        answer = answers[row["board_id"]]
        played = replay(read_xsb(row["level"]), answer)
        assert not isinstance(played, str) and played[1] and len(answer) >= row["depth"], row["board_id"]
        try:
            best = fewest_moves(read_xsb(row["level"]), 20_000)
        except OverflowError:
            continue
        assert best == (row["depth"], row["pushes"]), row["board_id"]
        compared += 1
    assert compared >= 20


def test_bank_verify_checks_the_move_optimum_columns(tmp_path, capsys):
    from fastspe.boundary.banks import write_bank

    bank = _old_bank()
    good, bad = tmp_path / "good.parquet", tmp_path / "bad.parquet"
    write_bank(bank, good)
    assert main(["bank", "verify", str(good)]) == 0
    tampered = bank.set_column(
        bank.schema.get_field_index("move_optimal_pushes"), "move_optimal_pushes", pa.array([1, 5], pa.int64())
    )
    pq.write_table(tampered, bad)  # past the builder's check: only the verifier can tell
    assert main(["bank", "verify", str(bad)]) == 1
    assert "FAIL b: move_optimal_pushes = 5 but the verified certificate's is 2" in capsys.readouterr().out


def test_a_long_search_says_where_it_stands(monkeypatch):
    """A solver that reports progress (``solve_level(..., progress=)``) has it passed on, and the command line's
    ``searching`` prints a line once per ``LONG_SEARCH_SECONDS``."""
    from types import SimpleNamespace

    from fastspe.domains.sokoban import commands, solver

    def fake_solve(level, node_limit=None, objective="moves", progress=None):
        for seconds in (0.5, 10.2, 10.7, 21.0):
            progress(SimpleNamespace(expanded=1, stored=int(seconds * 1000), bound=7, seconds=seconds))
        return SimpleNamespace(length=1, pushes=1, moves="R")

    lines = []
    ui = SimpleNamespace(say=lambda text, err=False: lines.append(text))
    monkeypatch.setattr(solver, "solve_level", fake_solve)
    bank = bank_from_levels([LEVEL], ["a"], where=["set.xsb: line 3"], searching=commands._long_search_lines(ui))
    assert bank.column("push_optimal_pushes").to_pylist() == [1]  # both objectives asked for
    assert lines == [
        "set.xsb: line 3: level 'a': fewest moves: 10 s, 10,200 states stored, no plan under 7 moves",
        "set.xsb: line 3: level 'a': fewest moves: 21 s, 21,000 states stored, no plan under 7 moves",
        "set.xsb: line 3: level 'a': fewest pushes: 10 s, 10,200 states stored, no plan under 7 pushes",
        "set.xsb: line 3: level 'a': fewest pushes: 21 s, 21,000 states stored, no plan under 7 pushes",
    ]
