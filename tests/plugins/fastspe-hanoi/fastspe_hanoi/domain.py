"""The Tower of Hanoi with forbidden moves as a fastspe ``Domain``.

The class is a table of what the domain is and which of its modules does each part of the contract
(``implemented_in``: imported when first used, so that ``fastspe --help``, which reads every domain's options, loads no
numba for it): the bank's check (``bank_table``), designs (``design``) and the builder (``bank``), the pack and the
replay kernel (``pack``, ``kernels.replay``), the prompt (``prompt``), the independent verifiers (``verify``), the
playout for a model's tool (``playout``), the baselines, the solver and the viewer.
"""

from __future__ import annotations

from fastspe.domains.contract import Domain, Option, implemented_in

from .rules import ERROR_NAMES, ERROR_REASONS, RULES, VOCABULARY

__all__ = ["HanoiDomain", "DOMAIN"]

SOLVE_OPTIONS = (
    Option(
        ("--start",),
        "the state to solve: one peg letter (A, B, C) per disk, disk 1 (the smallest) first; the goal "
        "is every disk on C",
        {"type": "text", "metavar": "PEGS"},
    ),
    Option(("--rule",), "classic (any two pegs) or adjacent (A<->C forbidden) (default: classic)", {"choices": RULES}),
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

    # banks: columns and their check, designs and the builder, the independent bank verifier
    bank_columns = ("board_id", "cohort", "disks", "rule", "depth", "start", "certificate")
    state_columns = ("disks", "rule", "start")
    summary_columns = ("cohort", "disks", "rule", "depth")
    check_bank = implemented_in(".bank_table:check_hanoi_bank")
    default_design = "paper"
    load_design = implemented_in(".design:load_design")
    bank_pieces = implemented_in(".bank:bank_pieces")
    demo_bank = implemented_in(".bank:demo_bank")
    demo_text = "the default Hanoi bank (32 certified states)"
    verify_bank = implemented_in(".verify.bank:verify")

    # answers: the prompt, the packed bank and its replay kernel, the independent replay
    prompt_version = implemented_in(".prompt:PROMPT_VERSION")
    prompt_sha256 = implemented_in(".prompt:PROMPT_SHA256")
    render_prompt = implemented_in(".prompt:render_row")
    prompt_fields = implemented_in(".prompt:prompt_fields")
    pack = implemented_in(".pack:pack_bank")
    replay = implemented_in(".pack:replay_packed")
    verifier = implemented_in(".verify.replay:VERIFIER")
    playout = implemented_in(".playout:playout")  # the tools and feedback protocols' replay, in plain Python

    # baselines, the solver, the viewer, the command line, inspect_ai
    planners = ("oracle", "greedy", "random")
    baseline_responses = implemented_in(".baselines:baseline_responses")
    solver = "breadth-first search over every state of (disks, rule) from the goal; --input lines are {id, start, rule}"
    solve = implemented_in(".solver:solve")
    record_solver = implemented_in(".solver:record_solver")
    trace_columns = ("disks", "rule", "start", "depth")
    trace = implemented_in(".viewer:hanoi_trace")
    cli_options = {"solve": SOLVE_OPTIONS}
    inspect_task = "hanoi_towers"


DOMAIN = HanoiDomain()
