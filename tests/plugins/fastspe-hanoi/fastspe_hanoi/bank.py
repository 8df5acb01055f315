"""Certified Hanoi banks: states drawn at exact goal distances, each with an optimal plan as its certificate.

Cell i of a design draws its states from those at exactly ``depth`` moves from the goal (the solver's breadth-first
table of (disks, rule)), less the states an earlier cell of the same (disks, rule) took, with NumPy's generator
seeded by (seed, i); the states drawn are listed in ascending state code. d* is the search's distance, exact by
construction, and the certificate follows the search's step-closer moves. Nothing depends on threads or the machine:
a design and seed give a bit-identical bank.
"""

from __future__ import annotations

from typing import Callable, Iterator

import numpy as np
import pyarrow as pa

from fastspe.domains.designs import QuotaError

from .columns import BANK_COLUMNS, BANK_SCHEMA
from .design import HanoiDesign
from .rules import pegs_text, state_pegs
from .solver import distance_table

__all__ = ["bank_pieces", "build_bank"]


def bank_pieces(
    design: HanoiDesign, progress: Callable[..., None] | None = None, executor=None, args=None
) -> Iterator[pa.Table]:
    """One table per cell of ``design``, in design order; ``progress(done, total)`` after each: the domain's
    ``bank_pieces`` (the cells are small and built here, so ``executor`` is not used; no options, ``args``)."""
    taken: dict[tuple[int, str], set] = {}
    done = 0
    for index, cell in enumerate(design.cells):
        table = distance_table(cell.disks, cell.rule)
        used = taken.setdefault((cell.disks, cell.rule), set())
        pool = np.array([s for s in np.flatnonzero(table.dist == cell.depth).tolist() if s not in used], dtype=np.int64)
        if len(pool) < cell.count:
            raise QuotaError(
                f"cell {cell.name}: only {len(pool)} state{'s' if len(pool) != 1 else ''} of "
                f"{cell.disks} disks {'are' if len(pool) != 1 else 'is'} {cell.depth} moves from the goal "
                f"under {cell.rule}"
                + (" (less those earlier cells took)" if used else "")
                + f", fewer than the {cell.count} asked for; ask for fewer or another depth"
            )
        rng = np.random.default_rng([design.seed, index])
        states = np.sort(pool[rng.choice(len(pool), size=cell.count, replace=False)])
        used.update(states.tolist())
        width = max(3, len(str(cell.count - 1)))
        rows = [
            (
                f"{cell.name}-{j:0{width}d}",
                cell.cohort,
                cell.disks,
                cell.rule,
                cell.depth,
                pegs_text(state_pegs(s, cell.disks)),
                table.plan(s),
            )
            for j, s in enumerate(states.tolist())
        ]
        yield pa.table({name: [r[k] for r in rows] for k, name in enumerate(BANK_COLUMNS)}, schema=BANK_SCHEMA)
        done += cell.count
        if progress is not None:
            progress(done, design.total)


def build_bank(design: HanoiDesign) -> pa.Table:
    """The whole bank of ``design`` as one table."""
    return pa.concat_tables(bank_pieces(design))


def demo_bank() -> pa.Table:
    """The default design's bank: the demo's."""
    from .design import paper_design

    return build_bank(paper_design())
