"""Sokoban as a ``Domain``: XSB levels of 1-4 boxes in rooms up to 10x10, certified move-optimal by the exact solver.

Each method hands on to the module that does the work, imported when first called: the bank's check
(``bank_table``), designs and the reverse-play builder (``bank``), given levels (``level_files``), the replay kernel
(``kernels.replay``), the prompt (``prompt``), the independent verifiers (``verify``), the baselines, the solver and
the viewer.
"""

from __future__ import annotations

from typing import Mapping

from ..contract import BankVerification, Domain, Option
from ..vocabulary import DIRECTIONS

__all__ = ["SokobanDomain", "DOMAIN"]

PAPER = "sokoban-paper"


class SokobanDomain(Domain):
    name = "sokoban"
    title = "Sokoban levels (1-4 boxes, rooms up to 10x10), certified move-optimal"
    stratum = "boxes"
    stratum_label = "boxes"
    unit = "level"
    error_names = ("", "wall", "box_blocked", "invalid_action", "format")
    error_reasons = {"wall": "into a wall", "box_blocked": "pushes a box into a wall or another box"}
    vocabulary = DIRECTIONS
    bank_columns = ("board_id", "cohort", "depth", "level", "boxes", "certificate", "pushes")
    state_columns = ("level",)
    summary_columns = ("cohort", "boxes", "depth")
    default_design = PAPER
    planners = ("oracle", "greedy", "random")
    demo_text = "the default Sokoban bank (certified levels)"
    solver = ("move-optimal A* over (player, boxes) with an exact visited set; --input lines are {id, level}, the "
              "level as XSB text")
    trace_columns = ("level", "depth")
    inspect_task = "sokoban_levels"

    def check_bank(self, table, source="bank", unit="row", line_of=None, meaning=True, fresh=False):
        from .bank_table import check_sokoban_bank_table

        return check_sokoban_bank_table(table, source, unit, line_of, meaning)

    def load_design(self, spec, seed=None):
        from .bank import load_sokoban_design

        return load_sokoban_design(PAPER if spec in (None, "paper") else spec, seed=seed)  # 'paper': as elsewhere

    def bank_pieces(self, design, args, ui, progress, executor=None):
        from .bank import build_sokoban_bank
        from .commands import check_design_options

        check_design_options(args)
        yield build_sokoban_bank(design, progress=progress)

    def given_bank(self, args, ui):
        from .commands import given_bank

        return given_bank(args, ui)

    def verify_bank(self, table, args, ui) -> BankVerification:
        from .commands import verify

        return verify(table, args, ui)

    @property
    def prompt_version(self) -> str:
        from .prompt import PROMPT_VERSION

        return PROMPT_VERSION

    @property
    def prompt_sha256(self) -> str:
        from .prompt import PROMPT_SHA256

        return PROMPT_SHA256

    def render_prompt(self, row: Mapping) -> str:
        from .prompt import render_prompt

        return render_prompt(row["level"])

    def pack(self, table):
        from .pack import pack_table

        return pack_table(table)

    def replay(self, packed, rows, codes, offsets):
        import numpy as np

        from .kernels.replay import replay_levels

        t = packed.tables
        return replay_levels(np.asarray(rows, dtype=np.int64), codes, offsets, t.moves, t.push_distance, t.player,
                             t.boxes, t.nboxes)

    def verifier(self):
        from .verify.replay import VERIFIER

        return VERIFIER

    def baseline_responses(self, frame, planner, trials=3, seed=0):
        from .baselines import sokoban_baseline_responses

        return sokoban_baseline_responses(frame, planner, trials, seed)

    def solve(self, args, ui) -> dict:
        from .commands import solve

        return solve(args, ui)

    def record_solver(self, args, ui):
        from .commands import record_solver

        return record_solver(args, ui)

    def trace(self, bank_row, verdict_row):
        from .viewer import sokoban_trace

        return sokoban_trace(bank_row, verdict_row)

    def options(self, command: str) -> tuple[Option, ...]:
        from .commands import BUILD_OPTIONS, SOLVE_OPTIONS

        return {"bank build": BUILD_OPTIONS, "solve": SOLVE_OPTIONS}.get(command, ())

    def demo_bank(self):
        from .bank import SOKOBAN_PAPER_DESIGN, build_sokoban_bank

        return build_sokoban_bank(SOKOBAN_PAPER_DESIGN)


DOMAIN = SokobanDomain()
