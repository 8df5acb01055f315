"""The sliding puzzle as a ``Domain``: the paper's 4x4 boards with 0-3 blocked cells (any size from 2x2 to 8x8).

The class is a table of what the domain is and which of its modules does each part of the contract
(``implemented_in``: imported when first used, so that ``fastspe --help``, which reads every domain's options, loads
no numba or pandas).
"""

from __future__ import annotations

from ..contract import Domain, implemented_in
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

    # banks: the columns and their check (bank.table), designs and the h-walk builder (bank.design, bank.build)
    bank_columns = (
        "board_id",
        "cohort",
        "k",
        "blocks",
        "rows",
        "cols",
        "depth",
        "h",
        "initial",
        "goal",
        "certificate",
        "proposal_index",
        "seed",
    )
    optional_columns = ("retreat", "certificate_kind")
    state_columns = ("rows", "cols", "blocks", "initial")
    jsonl_banks = True
    jsonl_schema = implemented_in(".bank.table:JSONL_SCHEMA")
    check_bank = implemented_in(".bank.table:check_sliding_bank")
    bank_frame = implemented_in(".bank.table:sliding_bank_frame")
    bank_summary = implemented_in(".commands:summary")
    default_design = "paper"
    load_design = implemented_in(".bank.design:load_design")
    bank_pieces = implemented_in(".bank.build:design_pieces")
    build_preload = ("fastspe.domains.sliding.kernels.walks",)
    demo_bank = implemented_in(".bank.build:demo_bank")
    warm_bank = implemented_in(".bank.build:warm_bank")
    demo_text = "the paper bank (400 certified boards)"
    verify_bank = implemented_in(".commands:verify")

    # answers: the Appendix B prompt, the packed bank and its replay kernel, the independent replay
    prompt_version = implemented_in(".prompt:PROMPT_VERSION")
    prompt_sha256 = implemented_in(".prompt:PROMPT_SHA256")
    render_prompt = implemented_in(".prompt:render_row")
    prompt_fields = implemented_in(".prompt:prompt_fields")
    prompts = implemented_in(".prompt:render_rows")
    pack = implemented_in(".pack:packed_bank")
    replay = implemented_in(".pack:replay_packed")
    verifier = implemented_in(".verify.replay:VERIFIER")
    playout = implemented_in(".playout:playout")  # the tools and feedback protocols' replay, in plain Python

    # baselines, the exact solver, the viewer, the report's retreat table, the command line
    planners = ("oracle", "greedy", "detour", "noisy", "random")
    baseline_responses = implemented_in(".planners.baselines:baseline_responses")
    solver = (
        "IDA* with h, the paper's h(s), first within a node budget with no tables, then with additive pattern "
        "databases built once per layout into the user's cache folder (FASTSPE_PDB_DIR overrides it); --input "
        "lines are {id, rows, cols, blocks, board}"
    )
    solve = implemented_in(".commands:solve")
    record_solver = implemented_in(".commands:record_solver")
    trace_columns = ("rows", "cols", "blocks", "initial", "depth")
    trace = implemented_in(".viewer:plan_trace")
    report_tables = implemented_in(".retreat_table:report_tables")
    cli_options = implemented_in(".commands:OPTIONS")
    inspect_task = "sliding_puzzles"
    dataset_card_notes = implemented_in(".card:dataset_card_notes")  # ``bank export --hub``'s card


DOMAIN = SlidingDomain()
