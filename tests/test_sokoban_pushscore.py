"""Sokoban banks certifying fewest pushes: scored by pushes through the plan-cost seam (``Domain.cost_unit``,
``plan_costs``), their prompt, ``bank verify`` of both recorded optima, and ``verdicts verify``'s independent first
dead move."""

from __future__ import annotations

import contextlib
import warnings
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, assume, given, settings

from fastspe.boundary.banks import write_bank
from fastspe.boundary.errors import InputError
from fastspe.boundary.verdict_files import read_verdicts
from fastspe.cli import main
from fastspe.domains.registry import with_domain
from fastspe.domains.sokoban import commands
from fastspe.domains.sokoban.bank_table import check_sokoban_bank_table
from fastspe.domains.sokoban.dead import DeadMoves
from fastspe.domains.sokoban.domain import DOMAIN
from fastspe.domains.sokoban.level import parse_level
from fastspe.domains.sokoban.prompt import PROMPT_SHA256, PUSH_PROMPT_SHA256, render_prompt
from fastspe.domains.sokoban.verify import bank as verifier
from fastspe.domains.sokoban.verify.bank import read_xsb, replay, verify_sokoban_bank
from fastspe.domains.sokoban.verify import dead as dead_verifier
from fastspe.domains.sokoban.verify.dead import first_dead_move
from fastspe.domains.sokoban.verify.replay import SokobanBoard, SokobanRoom, bank_levels, played, sokoban_verdict
from fastspe.errors import UserError
from fastspe.scoring.rewards import RewardScorer
from fastspe.scoring.score import replay_answers, score_responses
from tests.naive_sokoban_bfs import naive_solve
from tests.test_sokoban_dead import level_and_pushing_walk

LEVEL = " #######\n #     #\n # .$. #\n## $@$ #\n#  .$. #\n#      #\n########"  # Microban I, level 5
PUSH_PLAN = "LULDUURRRDLRRDDLULLDRDLLLUR"  # the push optimum: more moves, fewer pushes
MOVE_PLAN = "LURLLDRDRDRRUULLDLUDDLLUR"  # the move optimum


def counts(plan: str) -> tuple[int, int | None]:
    """(moves, pushes) of a complete plan on LEVEL, by the independent verifier's replay (pushes None: the plan is
    illegal or does not complete)."""
    played = replay(read_xsb(LEVEL), plan)
    return len(plan), played[0] if not isinstance(played, str) and played[1] else None


def bank(objective: str) -> pa.Table:
    """LEVEL as a one-row bank certifying ``objective``, both optima recorded."""
    (mm, mp), (pm, pp) = counts(MOVE_PLAN), counts(PUSH_PLAN)
    cert, depth = (PUSH_PLAN, pp) if objective == "pushes" else (MOVE_PLAN, mm)
    return with_domain(
        check_sokoban_bank_table(
            pa.Table.from_pylist(
                [
                    {
                        "board_id": "mb5",
                        "cohort": "microban",
                        "depth": depth,
                        "level": LEVEL,
                        "boxes": 4,
                        "certificate": cert,
                        "pushes": counts(cert)[1],
                        "objective": objective,
                        "move_optimal_moves": mm,
                        "move_optimal_pushes": mp,
                        "push_optimal_moves": pm,
                        "push_optimal_pushes": pp,
                    }
                ]
            )
        ),
        DOMAIN,
    )


def answers(plans) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "board_id": "mb5",
            "condition": [f"c{i}" for i in range(len(plans))],
            "trial": 0,
            "response": [f"MOVES: {','.join(p)}" for p in plans],
        }
    )


def score(table, plans) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the answers carry no prompt hash
        return score_responses(table, answers(plans)).set_index("condition")


# ---- scoring --------------------------------------------------------------------------------------------------


def test_more_moves_but_fewer_pushes_is_optimal_on_a_push_bank_only():
    (mm, mp), (pm, pp) = counts(MOVE_PLAN), counts(PUSH_PLAN)
    assert pm > mm and pp < mp  # the level's two optima differ
    on_pushes = score(bank("pushes"), [PUSH_PLAN, MOVE_PLAN])
    assert on_pushes.loc["c0", ["optimal", "economy", "excess", "cost"]].tolist() == [True, 1.0, 0.0, pp]
    assert on_pushes.loc["c1", ["optimal", "economy", "excess", "cost"]].tolist() == [False, pp / mp, mp - pp, mp]
    assert on_pushes["L"].tolist() == [pm, mm] and set(on_pushes["cost_unit"]) == {"pushes"}
    on_moves = score(bank("moves"), [PUSH_PLAN, MOVE_PLAN])
    assert on_moves.loc["c0", ["optimal", "economy", "excess"]].tolist() == [False, mm / pm, pm - mm]
    assert on_moves.loc["c0", "economy"] < 1 and on_moves.loc["c1", "economy"] == 1.0
    assert "cost" not in on_moves.columns and "cost_unit" not in on_moves.columns  # a move bank's verdicts as before


def test_rewards_count_pushes_on_a_push_bank():
    r = RewardScorer(bank("pushes"))(["mb5"] * 2, [f"MOVES: {PUSH_PLAN}", f"MOVES: {MOVE_PLAN}"])
    (_, mp), (_, pp) = counts(MOVE_PLAN), counts(PUSH_PLAN)
    assert r.cost_unit == "pushes" and r.cost.tolist() == [pp, mp]
    assert r.optimal.tolist() == [True, False] and r.spe.tolist() == [1.0, pp / mp]
    moves = RewardScorer(bank("moves"))(["mb5"], [f"MOVES: {PUSH_PLAN}"])
    assert moves.cost_unit == "moves" and moves.cost.tolist() == [len(PUSH_PLAN)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(level_and_pushing_walk())
def test_the_push_count_kernel_is_the_independent_replays(case):
    """Pushes of every plan's legal prefix (``kernels.pushes``) on random rooms and walks, against the independent
    verifier's replay (plain Python, its own reading of the level)."""
    text, plan = case
    try:
        level = parse_level(text)
    except UserError:
        assume(False)
    table = with_domain(
        pa.table(
            {
                "board_id": ["a"],
                "cohort": ["c"],
                "depth": [0],
                "level": [level.text],
                "boxes": [len(level.boxes)],
                "certificate": [""],
                "pushes": [0],
                "objective": ["pushes"],
            }
        ),
        DOMAIN,
    )
    packed = DOMAIN.pack(table)  # packed only, not checked: the plan need not be the level's optimum
    prefixes = ["".join(plan[:n]) for n in range(len(plan) + 1)] + ["".join(plan) + "UDLR" * 3]
    got = replay_answers(packed, np.zeros(len(prefixes), np.int64), [f"MOVES: {','.join(p)}" for p in prefixes])
    board = bank_levels(table)["a"]
    assert got.cost.tolist() == [sokoban_verdict(board, p, dead=False)["pushes"] for p in prefixes]


def test_a_push_bank_asks_for_the_fewest_pushes_and_a_move_bank_as_before():
    rows = {o: bank(o).to_pylist()[0] for o in ("moves", "pushes")}
    moves, pushes = DOMAIN.render_prompt(rows["moves"]), DOMAIN.render_prompt(rows["pushes"])
    assert moves == render_prompt(LEVEL) and "Find a shortest complete sequence of moves" in moves
    assert "fewest pushes" in pushes and "fewest pushes" not in moves
    assert moves.replace("\n", "").split("Return only")[1] == pushes.replace("\n", "").split("Return only")[1]
    assert DOMAIN.prompt_fields(rows["pushes"])["rules"] in pushes and PUSH_PROMPT_SHA256 != PROMPT_SHA256


# ---- the command line: baselines, score, verdicts -----------------------------------------------------------------


def test_a_push_bank_runs_scores_and_verifies_from_the_command_line(tmp_path, capsys):
    path, out = tmp_path / "bank.parquet", tmp_path / "answers.jsonl"
    write_bank(bank("pushes"), path)
    for planner in ("greedy", "oracle", "random"):
        assert (
            main(["run", "--bank", str(path), "--model", f"baseline:{planner}", "--trials", "3", "--out", str(out)])
            == 0
        )
    verdicts = tmp_path / "verdicts.parquet"
    assert main(["score", "--bank", str(path), "--responses", str(out), "--out", str(verdicts)]) == 0
    file = pq.read_table(verdicts)
    assert file.schema.field("cost").type == pa.int64() and set(file.column("cost_unit").to_pylist()) == {"pushes"}
    oracle = file.filter(pa.compute.equal(file.column("condition"), "baseline:oracle")).to_pylist()
    assert {(r["cost"], r["economy"]) for r in oracle} == {(counts(PUSH_PLAN)[1], 1.0)}
    capsys.readouterr()
    assert main(["verdicts", "verify", "--bank", str(path), "--responses", str(out), "--verdicts", str(verdicts)]) == 0
    assert "cost, cost_unit, first_dead_move)" in capsys.readouterr().out
    checked = read_verdicts(verdicts)  # the check recomputes economy from cost: the file's own agrees
    assert set(checked.frame["cost_unit"]) == {"pushes"} and np.nanmax(checked.economy) == 1.0
    assert (
        main(
            [
                "report",
                "--bank",
                str(path),
                "--verdicts",
                str(verdicts),
                "--out",
                str(tmp_path / "report"),
                "--no-figures",
                "--draws",
                "20",
            ]
        )
        == 0
    )
    assert (
        "On this bank d* counts pushes: in E, G, O and SPE a plan's L is its pushes"
        in (tmp_path / "report" / "report.md").read_text()
    )


def test_push_verdicts_whose_cost_was_edited_fail_both_checks(tmp_path, capsys):
    path, out, verdicts = tmp_path / "bank.parquet", tmp_path / "a.jsonl", tmp_path / "v.parquet"
    write_bank(bank("pushes"), path)
    answers([MOVE_PLAN]).to_json(out, orient="records", lines=True)
    assert main(["score", "--bank", str(path), "--responses", str(out), "--out", str(verdicts)]) == 0
    table = pq.read_table(verdicts)
    edited = table.set_column(table.schema.get_field_index("cost"), "cost", pa.array([len(MOVE_PLAN)], pa.int64()))
    pq.write_table(edited, tmp_path / "edited.parquet")
    with (
        pytest.raises(InputError, match="but cost = 25, status complete, depth 6"),
        pytest.warns(UserWarning, match="no fastspe content checksum"),
    ):  # written here, not by fastspe
        read_verdicts(tmp_path / "edited.parquet")
    unit = table.set_column(table.schema.get_field_index("cost_unit"), "cost_unit", pa.array(["moves"]))
    pq.write_table(unit, tmp_path / "unit.parquet")
    capsys.readouterr()
    assert (
        main(
            [
                "verdicts",
                "verify",
                "--bank",
                str(path),
                "--responses",
                str(out),
                "--verdicts",
                str(tmp_path / "unit.parquet"),
            ]
        )
        == 1
    )
    said = capsys.readouterr().out
    assert "board_id 'mb5', trial 0: cost_unit is 'moves' in the verdicts, re-derived 'pushes'" in said


# ---- bank verify: both optima ---------------------------------------------------------------------------------


def test_bank_verify_proves_both_optima_of_a_push_bank_and_names_a_wrong_one(tmp_path, capsys):
    good = tmp_path / "good.parquet"
    write_bank(bank("pushes"), good)
    assert main(["bank", "verify", str(good)]) == 0
    assert "ok: all 1 levels verified" in capsys.readouterr().out
    table = bank("pushes")
    for column, value, reason in (
        ("push_optimal_pushes", 5, "push_optimal_pushes = 5 but the verified certificate's is 6"),
        ("move_optimal_moves", 26, "move_optimal_moves, move_optimal_pushes = 26, 8 but the fewest moves are 25"),
        ("depth", 5, "depth = 5 but the certificate pushes 6 times"),
    ):
        tampered = table.set_column(table.schema.get_field_index(column), column, pa.array([value], pa.int64()))
        pq.write_table(tampered, tmp_path / "bad.parquet")  # past the builder's check: only the verifier can tell
        assert main(["bank", "verify", str(tmp_path / "bad.parquet")]) == 1
        assert f"FAIL mb5: {reason}" in capsys.readouterr().out


def test_a_push_certificate_that_is_not_push_optimal_fails():
    rows = bank("pushes").to_pylist()
    (mm, mp), (pm, pp) = counts(MOVE_PLAN), counts(PUSH_PLAN)
    rows[0].update(certificate=MOVE_PLAN, depth=mp, pushes=mp, push_optimal_moves=mm, push_optimal_pushes=mp)
    assert verify_sokoban_bank(pd.DataFrame(rows)) == [("mb5", f"the fewest pushes are {pp}, not depth = {mp}")]
    longer = next(
        p
        for i in range(len(PUSH_PLAN))
        for step in ("UD", "DU", "LR", "RL")
        if counts(p := PUSH_PLAN[:i] + step + PUSH_PLAN[i:])[1] == pp
    )  # a step there and back: a walk
    rows[0].update(certificate=longer, depth=pp, pushes=pp, push_optimal_moves=pm + 2, push_optimal_pushes=pp)
    assert verify_sokoban_bank(pd.DataFrame(rows)) == [
        ("mb5", f"plans of {pp} pushes take at least {pm} moves, not the certificate's {pm + 2}")
    ]


def test_levels_beyond_the_bound_are_counted_unproven_for_each_objective(monkeypatch):
    skipped, unproven = [], {}
    assert verify_sokoban_bank(bank("pushes"), max_states=10, skipped=skipped, unproven=unproven) == []
    assert skipped == ["mb5"] and unproven == {"mb5": ["moves", "pushes"]}
    real = verifier.verify_sokoban_bank
    monkeypatch.setattr(verifier, "verify_sokoban_bank", lambda table, **kw: real(table, max_states=10, **kw))
    ui = SimpleNamespace(progress=lambda *a: contextlib.nullcontext(lambda *b: None))
    found = commands.verify(bank("pushes"), SimpleNamespace(accept_unproven=False), ui)
    assert found.failures == [] and [bid for bid, _ in found.unproven] == ["mb5"]
    assert "the fewest moves and the fewest pushes passed" in found.unproven[0][1]
    assert found.summary.startswith("NOT PROVEN: all 1 levels pass every check, but 1 are not proved optimal")


# ---- verdicts verify: the first dead move ----------------------------------------------------------------------


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(level_and_pushing_walk())
def test_the_independent_first_dead_move_is_the_columns(case):
    """The verifier's first dead move (``verify.dead``: its own exhaustive search over push states) against the
    verdict column's (the solver's), on random rooms and pushing walks, about half of them dead somewhere."""
    text, plan = case
    try:
        level = parse_level(text)
        assume(naive_solve(text, 200_000) is not None)
    except (UserError, RuntimeError):
        assume(False)
    board = SokobanBoard(SokobanRoom(text), "c", len(level.boxes), 0)
    out, pushed = played(board, "".join(plan))
    assert first_dead_move(board.layout, pushed, out["status"] == "complete") == DeadMoves().first_dead_move(
        level, "".join(plan)
    )


def test_a_first_dead_move_beyond_the_bound_is_not_re_derived():
    text = "#######\n#@$ . #\n#######"  # pushed past its goal into the corner: dead on the third push
    board = SokobanBoard(SokobanRoom(text), "c", 1, 2)
    assert first_dead_move(board.layout, played(board, "RRR")[1], False) == 2
    assert first_dead_move(board.layout, played(board, "RR")[1], True) == -1
    two = "#######\n#@$ . #\n# $ . #\n#     #\n#######"
    board = SokobanBoard(SokobanRoom(two), "c", 2, 4)
    assert first_dead_move(board.layout, played(board, "R")[1], False) == -1  # alive, after a search
    assert first_dead_move(board.layout, played(board, "R")[1], False, max_states=0) is None  # undecided


def test_a_tampered_first_dead_move_fails_verdicts_verify_naming_the_row(tmp_path, capsys):
    path, out, verdicts = tmp_path / "bank.parquet", tmp_path / "a.jsonl", tmp_path / "v.parquet"
    write_bank(bank("moves"), path)
    # the top box pushed against the goal-less top wall: dead at once
    answers([MOVE_PLAN, "UL", "RR"]).to_json(out, orient="records", lines=True)
    assert main(["score", "--bank", str(path), "--responses", str(out), "--out", str(verdicts)]) == 0
    table = pq.read_table(verdicts)
    column = table.column("first_dead_move").to_pylist()
    assert column[1] >= 0  # the sample has a dead answer
    capsys.readouterr()
    assert main(["verdicts", "verify", "--bank", str(path), "--responses", str(out), "--verdicts", str(verdicts)]) == 0
    assert "first_dead_move)" in capsys.readouterr().out
    tampered = table.set_column(
        table.schema.get_field_index("first_dead_move"),
        "first_dead_move",
        pa.array([column[0], column[1] + 1, column[2]], pa.int64()),
    )
    pq.write_table(tampered, tmp_path / "t.parquet")
    assert (
        main(
            [
                "verdicts",
                "verify",
                "--bank",
                str(path),
                "--responses",
                str(out),
                "--verdicts",
                str(tmp_path / "t.parquet"),
            ]
        )
        == 1
    )
    assert (
        f"DIFF condition 'c1', board_id 'mb5', trial 0: first_dead_move is {column[1] + 1} in the verdicts, "
        f"re-derived {column[1]}"
    ) in capsys.readouterr().out


def test_values_beyond_the_bound_are_counted_not_passed(tmp_path, capsys, monkeypatch):
    path, out, verdicts = tmp_path / "bank.parquet", tmp_path / "a.jsonl", tmp_path / "v.parquet"
    write_bank(bank("moves"), path)
    answers([MOVE_PLAN, "UL", "LD", "R"]).to_json(out, orient="records", lines=True)
    assert main(["score", "--bank", str(path), "--responses", str(out), "--out", str(verdicts)]) == 0
    monkeypatch.setattr(dead_verifier, "DEAD_STATES", 0)  # every search that must look further is undecided
    capsys.readouterr()
    assert main(["verdicts", "verify", "--bank", str(path), "--responses", str(out), "--verdicts", str(verdicts)]) == 0
    said = capsys.readouterr().out
    assert said.endswith(
        "first_dead_move); 3 values of first_dead_move not re-derived: the independent search passed its bound\n"
    ), said


def test_the_viewer_says_what_d_star_counts():
    verdict = {"board_id": "mb5", "condition": "c", "trial": 0, "moves": PUSH_PLAN}
    pushes = DOMAIN.trace(bank("pushes").to_pylist()[0], verdict).summary_lines()[0]
    moves = DOMAIN.trace(bank("moves").to_pylist()[0], verdict).summary_lines()[0]
    assert f"d* = {counts(PUSH_PLAN)[1]} pushes, push-optimal)" in pushes
    assert f"d* = {len(MOVE_PLAN)}, {counts(MOVE_PLAN)[1]} pushes)" in moves
