"""What several of the plugin's tests share: whether the entry point is installed, and banks of chosen states."""

from __future__ import annotations

import pyarrow as pa
import pytest

from fastspe_hanoi.columns import BANK_SCHEMA
from fastspe_hanoi.rules import read_start, state_code
from fastspe_hanoi.solver import distance_table


def entry_point_installed() -> bool:
    from fastspe.domains.registry import sources

    return "hanoi" in sources()


needs_entry_point = pytest.mark.skipif(
    not entry_point_installed(),
    reason="fastspe-hanoi is not installed (pip "
    "install -e tests/plugins/fastspe-hanoi): fastspe cannot find the domain",
)


def bank_of(states: list[tuple[str, str]], cohort: str = "t") -> pa.Table:
    """A valid bank of (start, rule) states: depth and certificate from the solver."""
    rows = []
    for i, (start, rule) in enumerate(states):
        table = distance_table(len(start), rule)
        code = state_code(read_start(start))
        rows.append((f"{cohort}-{i:04d}", cohort, len(start), rule, int(table.dist[code]), start, table.plan(code)))
    return pa.table({name: [r[k] for r in rows] for k, name in enumerate(BANK_SCHEMA.names)}, schema=BANK_SCHEMA)
