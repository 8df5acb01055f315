"""The Tower of Hanoi with forbidden moves as a fastspe ``Domain``.

Each method hands on to the module that does the work, imported when first called (``fastspe --help`` reads every
domain's options, and should load no numba for it): the bank's check (``bank_table``), designs (``design``) and the
builder (``bank``), the pack and the replay kernel (``pack``, ``kernels.replay``), the prompt (``prompt``), the
independent verifiers (``verify``), the baselines, the solver and the viewer.
"""

from __future__ import annotations

from typing import Mapping

from fastspe.domains.contract import BankVerification, Domain, Option

from .rules import ERROR_NAMES, ERROR_REASONS, RULES, VOCABULARY

__all__ = ["HanoiDomain", "DOMAIN"]

SOLVE_OPTIONS = (
    Option(("--start",), "the state to solve: one peg letter (A, B, C) per disk, disk 1 (the smallest) first; the goal "
           "is every disk on C", {"type": "text", "metavar": "PEGS"}),
    Option(("--rule",), "classic (any two pegs) or adjacent (A<->C forbidden) (default: classic)",
           {"choices": RULES}),
)


class HanoiDomain(Domain):
    name = "hanoi"
    title = "Tower of Hanoi (1-10 disks; classic, or adjacent pegs only), certified by breadth-first search"
    stratum = "disks"
    stratum_label = "disks"
    unit = "state"
    error_names = ERROR_NAMES
    error_reasons = ERROR_REASONS
    vocabulary = VOCABULARY
    bank_columns = ("board_id", "cohort", "disks", "rule", "depth", "start", "certificate")
    state_columns = ("disks", "rule", "start")
    summary_columns = ("cohort", "disks", "rule", "depth")
    jsonl_banks = False
    default_design = "paper"
    planners = ("oracle", "greedy", "random")
    demo_text = "the default Hanoi bank (32 certified states)"
    solver = "breadth-first search over every state of (disks, rule) from the goal; --input lines are {id, start, rule}"
    trace_columns = ("disks", "rule", "start", "depth")
    inspect_task = "hanoi_towers"
    certificate_column = "certificate"

    # ---- banks ---------------------------------------------------------------------------------------------------

    def check_bank(self, table, source="bank", unit="row", line_of=None, meaning=True, fresh=False):
        from .bank_table import check_hanoi_bank

        return check_hanoi_bank(table, source, unit, line_of, meaning, fresh)

    def load_design(self, spec, seed=None):
        from .design import load_design

        return load_design(spec, seed=seed)

    def bank_pieces(self, design, args, ui, progress, executor=None):
        from .bank import bank_pieces

        return bank_pieces(design, progress)

    def verify_bank(self, table, args, ui) -> BankVerification:
        from .verify.bank import verify

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

        return render_prompt(row["start"], row["rule"])

    def pack(self, table):
        from .pack import pack_bank

        return pack_bank(table)

    def replay(self, packed, rows, codes, offsets):
        return packed.replay(rows, codes, offsets)

    def verifier(self):
        from .verify.replay import VERIFIER

        return VERIFIER

    # ---- baselines, solving, viewing -----------------------------------------------------------------------------

    def baseline_responses(self, frame, planner, trials=3, seed=0):
        from .baselines import baseline_responses

        return baseline_responses(frame, planner, trials, seed)

    def solve(self, args, ui) -> dict:
        from .solver import solve

        return solve(args, ui)

    def record_solver(self, args, ui):
        from .solver import record_solver

        return record_solver(args, ui)

    def trace(self, bank_row, verdict_row):
        from .viewer import hanoi_trace

        return hanoi_trace(bank_row, verdict_row)

    def options(self, command: str) -> tuple[Option, ...]:
        return SOLVE_OPTIONS if command == "solve" else ()

    def demo_bank(self):
        from .bank import build_bank
        from .design import paper_design

        return build_bank(paper_design())


DOMAIN = HanoiDomain()
