"""What a dataset card of a Sokoban bank says of the domain (``Domain.dataset_card_notes``)."""

from __future__ import annotations

from ..cards import CardNotes

COLUMNS = {
    "board_id": "the level's id, unique in the bank (what answers and verdicts name)",
    "cohort": "the cohort: `primary` or `stress` for the paper-shaped design, a design's or `--cohort`'s own",
    "depth": "d*, the certified optimum of the bank's objective (moves unless `objective` says pushes)",
    "level": "the level as XSB text: `#` wall, space floor, `.` goal, `$` box, `*` box on goal, `@` player, "
    "`+` player on goal",
    "boxes": "the number of boxes (the second stratum)",
    "certificate": "an optimal plan: one U/D/L/R letter per player move (pushes included)",
    "pushes": "the certificate's pushes",
    "objective": "what the bank certifies: `moves` (fewest moves, then fewest pushes) or `pushes` (fewest pushes, "
    "then fewest moves)",
    "move_optimal_moves": "moves of the move-optimal plan",
    "move_optimal_pushes": "pushes of the move-optimal plan",
    "push_optimal_moves": "moves of the push-optimal plan",
    "push_optimal_pushes": "pushes of the push-optimal plan",
}

CERTIFICATION = """\
Every level's d* is certified by fastspe's **exact solver**: an A* search over pushes (each edge a shortest walk
and a push, the player's cell exact) with an admissible bound (the box-to-goal assignment) and deadlock pruning that
never cuts a plan. Its objective is **moves** (the fewest moves, then the fewest pushes among plans that short; d*
counts moves) unless the bank's `objective` column says **pushes** (the fewest pushes, then the fewest moves; d*
counts pushes). The solver's plan is the row's `certificate`, with its `pushes` beside it. Generated levels are made
by reverse play from solved states and kept only when the solver's d* and pushes equal the reverse play's, two
different searches agreeing.

`fastspe bank verify FILE` re-checks every row with plain Python that shares nothing with the solver or the
builder: the level is valid XSB, the certificate replays legally to every box on a goal in `depth` moves with
`pushes` pushes, and for levels whose breadth-first search fits its state budget no shorter plan (nor one as short
with fewer pushes) exists; the rows it cannot prove are named on `UNPROVEN` lines."""


def dataset_card_notes(table) -> CardNotes:
    """Sokoban's part of a bank's dataset card (``table``: the checked bank table)."""
    return CardNotes(
        pretty_name="Certified Sokoban levels for innate LLM planning (fastspe)",
        certification=CERTIFICATION,
        columns={c: d for c, d in COLUMNS.items() if c in table.column_names},
        tags=("sokoban",),
    )
