"""A checked Hanoi bank packed for the replay kernel (``kernels.replay``): a ``fastspe.domains.contract.Packed``.

A row's layout (the verdicts' ``layout``) is what its state lives on: the rule and the number of disks,
``"adjacent-4"``. Each layout's goal distances (the solver's table) are stacked into one (layouts, 3**max disks)
array, padded with -1, which no replay reads (a state of n disks is below 3**n).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .rules import SOURCE, TARGET, read_start, state_code
from .solver import distance_table

__all__ = ["HanoiPacked", "pack_bank"]


@dataclass(frozen=True)
class HanoiPacked:
    """ids : string (m,); depth, disks, start (state codes) : int64 (m,); cohort_code : int32 (m,) into
    ``cohort_names``; layout_index : int64 (m,) into ``layout_names`` ("rule-disks", sorted); per layout:
    ``layout_disks`` int64, ``layout_adjacent`` bool and ``dist`` int32 (layouts, 3**max disks)."""

    ids: pa.Array
    depth: np.ndarray
    disks: np.ndarray
    start: np.ndarray
    cohort_code: np.ndarray
    cohort_names: pa.Array
    layout_index: np.ndarray
    layout_names: pa.Array
    layout_disks: np.ndarray
    layout_adjacent: np.ndarray
    dist: np.ndarray
    _rows: list = field(default_factory=list, repr=False, compare=False)  # the id hash table, made on first use
    # what fastspe's scoring looks the domain up by (``tables.domain``; not in the ``Packed`` protocol)
    domain: ClassVar[str] = "hanoi"

    def stratum_values(self) -> np.ndarray:
        return self.disks

    def rows_of(self, board_ids) -> np.ndarray:
        """Bank rows of ``board_ids`` (a sequence or Arrow array of str), -1 where unknown, through fastspe's id
        hash table (built once per pack)."""
        from fastspe.boundary.string_rows import StringRows

        if not self._rows:
            self._rows.append(StringRows(self.ids))
        ids = board_ids if isinstance(board_ids, (pa.Array, pa.ChunkedArray)) else pa.array(board_ids, pa.string())
        return self._rows[0].rows(ids)

    def replay(self, rows: np.ndarray, codes: np.ndarray, offsets: np.ndarray) -> tuple:
        from .kernels.replay import replay_plans

        return replay_plans(
            np.asarray(rows, dtype=np.int64),
            codes,
            offsets,
            self.start,
            self.layout_index,
            self.layout_disks,
            self.layout_adjacent,
            self.dist,
            np.array(SOURCE, np.int64),
            np.array(TARGET, np.int64),
        )


def pack_bank(table: pa.Table) -> HanoiPacked:
    """Pack a bank table that ``check_hanoi_bank`` has checked."""
    ids = table.column("board_id").combine_chunks().cast(pa.string())
    disks = table.column("disks").to_numpy().astype(np.int64)
    rules = table.column("rule").to_pylist()
    tags = [f"{rule}-{n}" for rule, n in zip(rules, disks.tolist())]
    names, index = np.unique(np.array(tags, dtype=str), return_inverse=True)
    layout_disks = np.array([int(name.rsplit("-", 1)[1]) for name in names], dtype=np.int64)
    layout_rules = [name.rsplit("-", 1)[0] for name in names]
    dist = np.full((len(names), 3 ** int(layout_disks.max())), -1, dtype=np.int32)
    for i, (n, rule) in enumerate(zip(layout_disks.tolist(), layout_rules)):
        dist[i, : 3**n] = distance_table(n, rule).dist
    start = np.array([state_code(read_start(s)) for s in table.column("start").to_pylist()], dtype=np.int64)
    coded = pc.dictionary_encode(table.column("cohort").combine_chunks().cast(pa.string()))
    return HanoiPacked(
        ids,
        table.column("depth").to_numpy().astype(np.int64),
        disks,
        start,
        coded.indices.to_numpy().astype(np.int32),
        coded.dictionary,
        np.asarray(index, dtype=np.int64).reshape(-1),
        pa.array(list(names), pa.string()),
        layout_disks,
        np.array([rule == "adjacent" for rule in layout_rules], dtype=np.bool_),
        dist,
    )


def replay_packed(packed: HanoiPacked, rows: np.ndarray, codes: np.ndarray, offsets: np.ndarray) -> tuple:
    """The domain's ``replay``: plan i on bank row ``rows[i]``, the kernel's seven outputs."""
    return packed.replay(rows, codes, offsets)
