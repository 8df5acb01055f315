"""Sokoban as a ``Domain``: XSB levels of 1-16 boxes in rooms up to 32x32, certified move- or push-optimal by the exact
solver (generated designs: 1-4 boxes, up to 10x10).

The class is a table of what the domain is and which of its modules does each part of the contract
(``implemented_in``: imported when first used).
"""

from __future__ import annotations

from ..contract import Domain, implemented_in
from ..vocabulary import DIRECTIONS

__all__ = ["SokobanDomain", "DOMAIN"]


class SokobanDomain(Domain):
    name = "sokoban"
    title = "Sokoban levels (1-16 boxes, rooms up to 32x32), certified move- or push-optimal"
    stratum = "boxes"
    stratum_label = "boxes"
    unit = "level"
    error_names = ("", "wall", "box_blocked", "invalid_action", "format")
    error_reasons = {"wall": "into a wall", "box_blocked": "pushes a box into a wall or another box"}
    vocabulary = DIRECTIONS

    # banks: the columns and their check (bank_table), designs and reverse play (bank), given levels (commands)
    bank_columns = ("board_id", "cohort", "depth", "level", "boxes", "certificate", "pushes")
    optional_columns = (
        "objective",
        "move_optimal_moves",
        "move_optimal_pushes",
        "push_optimal_moves",
        "push_optimal_pushes",
    )  # given levels' banks (columns.OPTIONAL_COLUMNS)
    state_columns = ("level",)
    summary_columns = ("cohort", "boxes", "depth")
    check_bank = implemented_in(".bank_table:check_sokoban_bank_table")
    default_design = "sokoban-paper"
    load_design = implemented_in(".bank:load_sokoban_design")
    bank_pieces = implemented_in(".bank:design_pieces")
    given_bank = implemented_in(".commands:given_bank")
    demo_bank = implemented_in(".bank:demo_bank")
    warm_bank = implemented_in(".bank:warm_bank")
    demo_text = "the default Sokoban bank (certified levels)"
    verify_bank = implemented_in(".commands:verify")

    # answers
    prompt_version = implemented_in(".prompt:PROMPT_VERSION")
    prompt_sha256 = implemented_in(".prompt:PROMPT_SHA256")
    render_prompt = implemented_in(".prompt:render_row")
    prompt_fields = implemented_in(".prompt:prompt_fields")
    pack = implemented_in(".pack:pack_table")
    replay = implemented_in(".pack:replay_packed")
    cost_unit = implemented_in(".pack:cost_unit")  # a push bank's d* and answers count pushes (columns.OBJECTIVES)
    plan_costs = implemented_in(".pack:plan_costs")
    verifier = implemented_in(".verify.replay:VERIFIER")
    # the first move after which the level cannot be solved (dead): -1 none, -2 unknown (a check hit its node limit)
    verdict_extra_columns = ("first_dead_move",)
    verdict_extras = implemented_in(".dead:dead_move_columns")
    failure_positions = {"first_dead_move": "first dead move"}  # in "where plans fail", beside the first illegal
    playout = implemented_in(".playout:playout")  # the tools and feedback protocols' replay, in plain Python

    # baselines, the exact solver, the viewer, the command line
    planners = ("oracle", "greedy", "random")
    baseline_responses = implemented_in(".baselines:sokoban_baseline_responses")
    solver = (
        "move-optimal A* over (player, boxes) with an exact visited set; --input lines are {id, level}, the "
        "level as XSB text"
    )
    solve = implemented_in(".commands:solve")
    record_solver = implemented_in(".commands:record_solver")
    trace_columns = ("level", "depth")
    trace = implemented_in(".viewer:sokoban_trace")
    cli_options = implemented_in(".commands:OPTIONS")
    inspect_task = "sokoban_levels"
    dataset_card_notes = implemented_in(".card:dataset_card_notes")  # ``bank export --hub``'s card


DOMAIN = SokobanDomain()
