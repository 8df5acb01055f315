"""Offline baseline planners: answers to a bank in the exact Appendix B form, as model responses.

They go through the same files and scorer as model answers (condition ``baseline:<planner>``)
and give every metric a known reference point:

- ``oracle``: the certificate (R = Q = E = SPE = 1);
- ``greedy``: descend h(s) with random tie-breaks, stop when no move lowers it (legal; it either
  completes optimally or stops short: legal noncompletion);
- ``detour``: the certificate with inserted back-and-forth pairs (legal, complete, E < 1);
- ``noisy``: the certificate with random substitutions (some illegal or noncompleting);
- ``random``: d* uniformly random moves (mostly illegal).

Every plan is a pure function of (seed, planner, board_id, trial), see ``board_keys`` and
``kernels.planners``: shuffling, filtering or extending a bank, or asking for more trials, leaves
the answers already given unchanged.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...baselines import (
    ANSWER_PREFIX,
    TRIAL_SLOTS,
    board_keys,
    check_int,
    planner_name as shared_planner_name,
    response_frame,
)
from ..bank.frames import bank_layouts, layout_keys, pack_boards
from ....errors import UserError
from ..kernels.planners import DETOUR, GREEDY, NOISY, ORACLE, RANDOM, plan_baselines
from ....boundary.files import require_columns
from ....kernels import MAX_SEED
from ..kernels.replay import INVALID_CODE
from ..layout import CODE_OF_BYTE, DIRECTION_BYTES
from ..prompt import render_rows

PLANNERS = {"oracle": ORACLE, "greedy": GREEDY, "detour": DETOUR, "noisy": NOISY, "random": RANDOM}
_NEEDED = ["board_id", "rows", "cols", "blocks", "depth", "initial", "goal", "certificate"]
_COMMA = ord(",")


def planner_name(planner: str) -> str:
    """``greedy`` or ``baseline:greedy`` -> ``greedy``; a ``UserError`` naming the choices otherwise."""
    return shared_planner_name(planner, PLANNERS)


def baseline_responses(bank: pd.DataFrame, planner: str, trials: int = 3, seed: int = 0) -> pd.DataFrame:
    """Answers of one baseline planner to every board of ``bank``, ``trials`` times each.

    Parameters
    ----------
    bank : DataFrame with at least ``board_id, rows, cols, blocks, depth, initial, certificate``
        (as ``build_bank`` or ``read_bank`` give it)
    planner : str, ``oracle``, ``greedy``, ``detour``, ``noisy`` or ``random`` (a ``baseline:``
        prefix is accepted)
    trials : int >= 1
    seed : int in 0..2**63-1; trial t of a board uses the RNG stream
        (seed, planner, board_keys(board_id) * TRIAL_SLOTS + t)

    Returns
    -------
    DataFrame with ``RESPONSE_COLUMNS``, one row per (board, trial) in bank order and trials
    0..trials-1; ``response`` is ``"MOVES: U,D,L"`` and the metadata columns read as a completed
    API call (``finish_reason="stop"``, ``status="ok"``, ``attempt=1``).
    """
    name = planner_name(planner)
    trials = check_int(trials, "trials", 1, TRIAL_SLOTS)
    seed = check_int(seed, "seed", 0, MAX_SEED)
    _check_bank(bank)
    n = len(bank)
    texts = np.empty(n * trials, dtype=object)
    rows = bank[_NEEDED].reset_index(drop=True)
    board_key = board_keys(rows["board_id"])
    layouts = bank_layouts(rows)
    keys = layout_keys(rows)
    codes = pd.Series([f"{r}x{c}:{b}" for r, c, b in keys])
    for _, where in codes.groupby(codes).indices.items():
        layout = layouts[keys[where[0]]]
        where = np.asarray(where, dtype=np.int64)
        part = rows.iloc[where]
        boards = _checked_boards(part, layout)
        depths = part["depth"].to_numpy(dtype=np.int64)
        certs = _certificate_codes(part, depths)
        width = int(depths.max()) if len(depths) else 0
        if name == "greedy":
            # greedy lowers h by one per move, so it stops within h(initial) <= tiles * the graph's diameter
            width = max(width, layout.tiles * int(layout.distances.max()))
        elif name == "detour":
            width = int((depths + 2 * np.maximum(1, depths // 4)).max())
        plans, lengths = plan_baselines(
            PLANNERS[name],
            boards,
            certs,
            depths,
            board_key[where],
            trials,
            seed,
            layout.moves,
            layout.distances,
            layout.goal_cell,
            max(width, 1),
        )
        slots = (where[:, None] * trials + np.arange(trials)).ravel()
        texts[slots] = answer_texts(plans, lengths)
    return response_frame(rows["board_id"], name, trials, texts, render_rows(rows))


def answer_texts(plans: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``"MOVES: U,D,L"`` for each row of uint8 ``plans`` (m, width), valid up to ``lengths`` (m,).

    Returns an object array of str (m,). Built without a Python loop over moves: letters and
    commas interleave into one byte row per plan, zero-padded after ``2 * length - 1`` bytes.
    """
    m, width = plans.shape
    if width == 0:
        return np.full(m, ANSWER_PREFIX, dtype=object)
    buf = np.zeros((m, 2 * width), dtype=np.uint8)
    buf[:, 0::2] = DIRECTION_BYTES[np.minimum(plans, 3)]
    buf[:, 1::2] = _COMMA
    buf[np.arange(2 * width)[None, :] >= (2 * lengths - 1)[:, None]] = 0
    moves = buf.view(f"S{2 * width}").ravel().astype(str)
    return np.char.add(ANSWER_PREFIX, moves).astype(object)


def _check_bank(bank) -> None:
    require_columns(
        bank, _NEEDED, "bank rows", "build it with `fastspe bank` or fastspe.domains.sliding.bank.build.build_bank"
    )
    if len(bank) == 0:
        raise UserError("the bank is empty: there is nothing to answer")


def _checked_boards(part: pd.DataFrame, layout) -> np.ndarray:
    """Initial boards of one layout as int8 (n, cells), checked enough for the kernel to be safe."""
    lengths = part["initial"].map(len).to_numpy()
    bad = np.flatnonzero(lengths != layout.cells)
    if len(bad):
        raise UserError(
            f"board {part['board_id'].iloc[bad[0]]!r}: initial has {lengths[bad[0]]} cells, "
            f"its {layout.rows}x{layout.cols} layout has {layout.cells}"
        )
    boards = pack_boards(part["initial"])
    blocked = boards == -1
    ok = (
        (blocked == layout.blocked[None, :]).all(axis=1)
        & ((boards == 0).sum(axis=1) == 1)
        & (boards <= layout.tiles).all(axis=1)
        & (boards >= -1).all(axis=1)
    )
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        raise UserError(
            f"board {part['board_id'].iloc[i]!r}: initial {boards[i].tolist()} is not a board of layout "
            f"{layout.tag} (one 0, -1 exactly on blocks {list(layout.blocks)}, tiles 1..{layout.tiles})"
        )
    return boards


def _certificate_codes(part: pd.DataFrame, depths: np.ndarray) -> np.ndarray:
    """Certificates as uint8 directions (n, max depth), checked against ``depth`` and the alphabet."""
    certs = part["certificate"].astype(str).to_numpy()
    lengths = np.char.str_len(certs.astype(str))
    width = max(int(depths.max()), 1)
    wrong = np.flatnonzero((lengths != depths) | (depths < 0))
    if len(wrong):
        i = int(wrong[0])
        raise UserError(
            f"board {part['board_id'].iloc[i]!r}: certificate has {lengths[i]} moves, depth says {depths[i]}; "
            "re-build the bank or check that it was not edited"
        )
    try:
        packed = np.array(certs, dtype=f"S{width}")
    except UnicodeEncodeError:
        raise UserError("a certificate has letters other than U, D, L, R (non-ASCII text)") from None
    raw = np.frombuffer(packed.tobytes(), dtype=np.uint8).reshape(len(certs), width)
    codes = CODE_OF_BYTE[raw]
    inside = np.arange(width)[None, :] < depths[:, None]
    bad = np.flatnonzero((inside & (codes == INVALID_CODE)).any(axis=1))
    if len(bad):
        i = int(bad[0])
        raise UserError(
            f"board {part['board_id'].iloc[i]!r}: certificate {certs[i]!r} has letters other than U, D, L, R"
        )
    return np.ascontiguousarray(np.where(inside, codes, 0).astype(np.uint8))
