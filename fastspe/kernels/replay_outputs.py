"""What every domain's replay kernel shares around its per-plan replay: the seven output arrays of
``Domain.replay`` (status, error_kind, first_error, final_h, min_h, revisits, goal_midway), filled plan by plan, a
plan's status from its outcome, and the chunks of plans a parallel work item takes (its scratch tables are sized once
for the chunk's longest plan).
"""

from __future__ import annotations

import numpy as np

from .._numba import njit
from ..domains.codes import COMPLETE, ILLEGAL, LEGAL_NONCOMPLETION, NO_ERROR

CHUNK = 256  # plans per parallel work item: scratch buffers are allocated once per chunk


@njit(inline="always")
def new_outputs(n):
    """The seven output arrays of ``n`` plans, in ``Domain.replay``'s order and dtypes."""
    return (
        np.empty(n, dtype=np.int8),
        np.empty(n, dtype=np.int8),
        np.empty(n, dtype=np.int64),
        np.empty(n, dtype=np.int32),
        np.empty(n, dtype=np.int32),
        np.empty(n, dtype=np.int64),
        np.empty(n, dtype=np.bool_),
    )


@njit(inline="always")
def store(outputs, p, out):
    """Put plan ``p``'s outcome ``out`` (the seven values, in order) in ``outputs``."""
    outputs[0][p] = out[0]
    outputs[1][p] = out[1]
    outputs[2][p] = out[2]
    outputs[3][p] = out[3]
    outputs[4][p] = out[4]
    outputs[5][p] = out[5]
    outputs[6][p] = out[6]


@njit(inline="always")
def status_of(kind, h):
    """A replayed plan's status: illegal when it stopped at an illegal action (``kind``), else complete when it ended
    at the goal (h = 0), else legal but short of the goal."""
    if kind != NO_ERROR:
        return ILLEGAL
    return COMPLETE if h == 0 else LEGAL_NONCOMPLETION


@njit(inline="always")
def chunk_of(ci, n):
    """The plans ``lo .. hi - 1`` of parallel work item ``ci`` (of ``(n + CHUNK - 1) // CHUNK``)."""
    lo = ci * CHUNK
    return lo, min(n, lo + CHUNK)


@njit(inline="always")
def longest_plan(offsets, lo, hi):
    """The most actions of any plan ``lo .. hi - 1`` (plan i is ``offsets[i]:offsets[i + 1]``)."""
    longest = 0
    for p in range(lo, hi):
        longest = max(longest, offsets[p + 1] - offsets[p])
    return longest
