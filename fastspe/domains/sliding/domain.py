"""The sliding puzzle as a ``Domain``: the paper's 4x4 boards with 0-3 blocked cells (any size from 2x2 to 8x8).

Each method hands on to the module that does the work, imported when first called (so that ``fastspe --help``, which
reads every domain's options, loads no numba or pandas): the bank's check (``bank.table``), designs and the h-walk
builder (``bank.design``, ``bank.build``), the replay kernel (``kernels.replay``), the Appendix B prompt (``prompt``),
the independent verifiers (``verify``), the baselines and the IDA* solver (``planners``), the viewer (``viewer``) and
the retreat table (``retreat_table``).
"""

from __future__ import annotations

from typing import Mapping

from ..contract import BankVerification, Domain, Option
from ..vocabulary import DIRECTIONS

__all__ = ["SlidingDomain", "DOMAIN"]


class SlidingDomain(Domain):
    name = "sliding"
    title = "sliding puzzles (the paper's 4x4 boards with 0-3 blocked cells; 2x2 to 8x8)"
    stratum = "k"
    stratum_label = "blocked cells k"
    stratum_words = ("block count $k$", "block count")
    stratum_tex = "k"
    unit = "board"
    error_names = ("", "boundary", "obstacle", "invalid_action", "format")
    error_reasons = {"boundary": "off the board", "obstacle": "into a block"}
    vocabulary = DIRECTIONS
    bank_columns = ("board_id", "cohort", "k", "blocks", "rows", "cols", "depth", "h", "initial", "goal",
                    "certificate", "proposal_index", "seed")
    optional_columns = ("retreat", "certificate_kind")
    state_columns = ("rows", "cols", "blocks", "initial")
    summary_columns = ("cohort", "k", "blocks", "depth")
    jsonl_banks = True
    default_design = "paper"
    build_preload = ("fastspe.domains.sliding.kernels.walks",)
    planners = ("oracle", "greedy", "detour", "noisy", "random")
    demo_text = "the paper bank (400 certified boards)"
    solver = ("IDA* with h, the paper's h(s), and additive pattern databases built once per layout into the user's "
              "cache folder (FASTSPE_PDB_DIR overrides it); --input lines are {id, rows, cols, blocks, board}")
    trace_columns = ("rows", "cols", "blocks", "initial", "depth")
    inspect_task = "sliding_puzzles"

    # ---- banks ---------------------------------------------------------------------------------------------------

    def check_bank(self, table, source="bank", unit="row", line_of=None, meaning=True, fresh=False):
        from .bank.table import check_sliding_bank

        return check_sliding_bank(table, source, unit, line_of, meaning, fresh)

    def jsonl_schema(self):
        from .bank.table import JSONL_SCHEMA

        return JSONL_SCHEMA

    def bank_frame(self, table):
        from .bank.table import sliding_bank_frame

        return sliding_bank_frame(table)

    def bank_summary(self, frame):
        from .commands import summary

        return summary(frame)

    def load_design(self, spec, seed=None):
        from .bank.design import load_design

        return load_design(spec or self.default_design, seed=seed)

    def bank_pieces(self, design, args, ui, progress, executor=None):
        from .bank.build import design_pieces

        return design_pieces(design, progress, executor)

    def verify_bank(self, table, args, ui) -> BankVerification:
        from .commands import verify

        return verify(table, args, ui)

    # ---- answers -------------------------------------------------------------------------------------------------

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

        return render_prompt(row["initial"], row["goal"], int(row["rows"]), int(row["cols"]))

    def prompts(self, frame) -> list[str]:
        from .prompt import render_prompt

        return [render_prompt(row.initial, row.goal, int(row.rows), int(row.cols))
                for row in frame[["initial", "goal", "rows", "cols"]].itertuples(index=False)]

    def pack(self, table):
        from .pack import packed_bank

        return packed_bank(table)

    def replay(self, packed, rows, codes, offsets):
        from .kernels.replay import replay_plans

        return replay_plans(packed.boards, rows, codes, offsets, packed.layout_index[rows], packed.moves, packed.dist,
                            packed.goal_cell, packed.bits)

    def verifier(self):
        from .verify.replay import VERIFIER

        return VERIFIER

    # ---- baselines, solving, viewing, the report -----------------------------------------------------------------

    def baseline_responses(self, frame, planner, trials=3, seed=0):
        from .planners.baselines import baseline_responses

        return baseline_responses(frame, planner, trials, seed)

    def solve(self, args, ui) -> dict:
        from .commands import solve

        return solve(args, ui)

    def record_solver(self, args, ui):
        from .commands import record_solver

        return record_solver(args, ui)

    def trace(self, bank_row, verdict_row):
        from .viewer import plan_trace

        return plan_trace(bank_row, verdict_row)

    def report_tables(self, verdicts, bank, conditions) -> list:
        from .retreat_table import retreat_table

        table = retreat_table(verdicts, bank, conditions)  # None unless the bank has search-certified boards
        return [] if table is None else [table]

    def options(self, command: str) -> tuple[Option, ...]:
        from .commands import SOLVE_OPTIONS, VERIFY_OPTIONS

        return {"bank verify": VERIFY_OPTIONS, "solve": SOLVE_OPTIONS}.get(command, ())

    def demo_bank(self):
        from .bank.build import build_bank_table
        from .bank.design import paper_design

        return build_bank_table(paper_design())


DOMAIN = SlidingDomain()
