"""What a dataset card of a sliding-puzzle bank says of the domain (``Domain.dataset_card_notes``)."""

from __future__ import annotations

from ..cards import CardNotes

COLUMNS = {
    "board_id": "the board's id, unique in the bank (what answers and verdicts name)",
    "cohort": "the cohort: `primary` (the paper's d* 10-40 grid) or `stress` (d* 50-60), or a design's own",
    "k": "the number of fixed blocked cells (the second stratum)",
    "blocks": "the blocked cells, row-major cell indices",
    "rows": "board rows",
    "cols": "board columns",
    "depth": "d*, the certified length of a shortest plan",
    "h": "h(s) of the initial board: the sum of free-cell graph distances of the tiles to their goal cells",
    "initial": "the initial board, row-major: tiles 1.., 0 the blank, -1 a blocked cell",
    "goal": "the goal board, in the same form",
    "certificate": "an optimal plan: one U/D/L/R letter per move of the blank, `depth` letters",
    "proposal_index": "the walk's index among its cell's proposals (the build's bookkeeping)",
    "seed": "the design's seed (the bank is bit-identical for a design and seed)",
    "retreat": "depth - h, how far the search had to retreat from h(s) (search-certified cells)",
    "certificate_kind": "`h-walk` (d* = h, no search needed) or `search` (proved by an exact search)",
}

CERTIFICATION = """\
Every board comes with a **certificate**, a plan of exactly `depth` moves, and a proof that no shorter plan exists:

- **h-walk boards** (all of the paper's design; `certificate_kind` `h-walk` or no such column): the board is made by a
  random walk back from the goal in which every step raises h(s), the sum of the tiles' free-cell graph distances to
  their goal cells, by exactly one. h(s) is a lower bound on the moves any plan needs (a move shifts one tile one
  step), and the reversed walk is a plan of h(s) moves, so d* = h(s) = `depth`: optimal by construction, with no
  search.
- **search-certified boards** (`certificate_kind` `search`, `retreat` = d* - h > 0): d* is proved by an exact search
  (IDA* with h(s)), and the certificate is the plan it found.

`fastspe bank verify FILE` re-derives all of it with code that shares nothing with the builder or the solver: it
recomputes h(s) and the goal from the rules, replays every certificate, checks d* = h for h-walk boards and proves
search boards optimal (a bidirectional breadth-first search up to d* 30, a plain-Python IDA* beyond)."""


def dataset_card_notes(table) -> CardNotes:
    """The sliding puzzle's part of a bank's dataset card (``table``: the checked bank table)."""
    return CardNotes(
        pretty_name="Certified sliding puzzles for innate LLM planning (fastspe)",
        certification=CERTIFICATION,
        columns={c: d for c, d in COLUMNS.items() if c in table.column_names},
        tags=("sliding-puzzle", "15-puzzle"),
    )
