"""Verdicts: parse every answer, replay every plan on its board, one row per output.

``score_responses(bank, responses)`` validates the responses, parses the answers
(``fastspe.parse``), packs all plans into one flat array of action codes and replays them in one
parallel kernel call (``fastspe.kernels.replay``), then derives the per-output columns of
Section 2.2: completion, legality, first error, economy d*/L and excess L - d* of completed plans.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from .bank import bank_layouts, layout_keys, pack_boards
from .io import read_table, require_columns, write_table
from .kernels.replay import COMPLETE, ERROR_NAMES, FORMAT, ILLEGAL, LEGAL_NONCOMPLETION, \
    STATUS_NAMES, key_layout, replay_plans
from .layout import CODE_OF_BYTE
from .parse import NO_PLAN, parse_answers
from .responses import KEY, read_responses, validate_responses

__all__ = ["VERDICT_COLUMNS", "BankTables", "bank_tables", "encode_moves", "score_responses", "read_responses",
           "write_verdicts", "read_verdicts"]

VERDICT_COLUMNS = ["board_id", "condition", "trial", "cohort", "k", "layout", "depth", "L", "status", "error_kind",
                   "first_error", "parse_mode", "normalization", "multiple_moves", "truncated", "final_h", "min_h",
                   "revisits", "goal_midway", "optimal", "economy", "excess", "moves"]
PARSE_OPTIONS = ("lenient", "strict")
FORMAT_OPTIONS = ("illegal", "noncompletion")
TRUNCATION_REASONS = {"length", "max_tokens", "max_output_tokens", "model_length", "token_limit"}


@dataclass(frozen=True)
class BankTables:
    """A bank packed for the replay kernel.

    boards : int8 (m, cells), initial boards padded with -1 to the widest layout
    layout_index : int64 (m,), index of each board's layout in the stacked tables
    moves : int16 (layouts, cells, 4); dist : int16 (layouts, cells, cells);
    goal_cell : int16 (layouts, max_tile + 1); bits : field width of the exact state key
    tags : layout tag of each board (object (m,))
    """

    boards: np.ndarray
    layout_index: np.ndarray
    moves: np.ndarray
    dist: np.ndarray
    goal_cell: np.ndarray
    bits: int
    tags: np.ndarray


def _pad(column, width: int) -> np.ndarray:
    lists = list(column)
    if all(len(b) == width for b in lists):
        return pack_boards(lists)
    return pack_boards([list(b) + [-1] * (width - len(b)) for b in lists])


def bank_tables(bank: pd.DataFrame) -> BankTables:
    """Pack the bank's boards and stack its layouts' tables; checks every board fits its layout."""
    layouts = bank_layouts(bank)
    keys = list(layouts)
    where = {key: i for i, key in enumerate(keys)}
    layout_index = np.array([where[key] for key in layout_keys(bank)], dtype=np.int64)
    cells = max(lay.cells for lay in layouts.values())
    max_tile = max(lay.tiles for lay in layouts.values())
    nl = len(keys)
    moves = np.full((nl, cells, 4), -1, dtype=np.int16)
    dist = np.full((nl, cells, cells), -1, dtype=np.int16)
    goal_cell = np.zeros((nl, max_tile + 1), dtype=np.int16)
    goals = np.full((nl, cells), -1, dtype=np.int8)
    for i, key in enumerate(keys):
        lay = layouts[key]
        moves[i, :lay.cells] = lay.moves
        dist[i, :lay.cells, :lay.cells] = lay.distances
        goal_cell[i, :lay.tiles + 1] = lay.goal_cell
        goals[i, :lay.cells] = lay.goal
    boards = _pad(bank["initial"], cells)
    bank_goals = _pad(bank["goal"], cells)
    want = goals[layout_index]
    # the goal must be the layout's; the initial board a rearrangement of it with the blocks in place
    bad_goal = (bank_goals != want).any(axis=1)
    bad_init = ((np.sort(boards, axis=1) != np.sort(want, axis=1)).any(axis=1)
                | ((boards == -1) != (want == -1)).any(axis=1))
    for bad, what in ((bad_goal, "goal is not its layout's goal"),
                      (bad_init, "initial board is not a rearrangement of its layout's tiles")):
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"bank board {bank['board_id'].iloc[i]!r}: {what} ({int(bad.sum())} such boards); "
                             "rebuild the bank with `fastspe bank`")
    tags = np.array([layouts[k].tag for k in keys], dtype=object)[layout_index]
    bits, _, _ = key_layout(cells, max_tile)
    return BankTables(boards, layout_index, moves, dist, goal_cell, bits, tags)


def encode_moves(moves: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Plans as one flat uint8 code array and int64 offsets (n + 1,); any char but UDLR is not a move."""
    lengths = np.fromiter(map(len, moves), dtype=np.int64, count=len(moves))
    offsets = np.zeros(len(moves) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    joined = "".join(moves).encode("ascii", errors="replace")
    codes = CODE_OF_BYTE[np.frombuffer(joined, dtype=np.uint8)]
    return codes, offsets


def _truncated(responses: pd.DataFrame) -> np.ndarray:
    """Cut off by the length limit, as far as the metadata says."""
    out = np.zeros(len(responses), dtype=bool)
    if "truncated" in responses.columns:
        out |= responses["truncated"].map(lambda v: v is True or str(v).lower() == "true").to_numpy(bool)
    for col in ("finish_reason", "stop_reason"):
        if col in responses.columns:
            out |= responses[col].astype(str).str.lower().isin(TRUNCATION_REASONS).to_numpy()
    return out


def _metadata(responses: pd.DataFrame) -> list[str]:
    """Scalar metadata columns carried into the verdicts (token counts, latency, ...)."""
    skip = set(VERDICT_COLUMNS) | {"response", "status"}
    keep = []
    for col in responses.columns:
        if col in skip:
            continue
        kind = pd.api.types.infer_dtype(responses[col], skipna=True)
        if kind in ("string", "integer", "floating", "boolean", "mixed-integer-float", "empty", "datetime"):
            keep.append(col)
    return keep


def score_responses(bank: pd.DataFrame, responses: pd.DataFrame, parse: str = "lenient",
                    format_failure: str = "illegal") -> pd.DataFrame:
    """One verdict row per output (columns ``VERDICT_COLUMNS`` then scalar metadata).

    Parameters
    ----------
    bank : DataFrame with ``fastspe.bank.BANK_COLUMNS``
    responses : DataFrame with ``board_id, condition, trial, response`` (and metadata; run-log
        attempts are resolved to the completed one)
    parse : "lenient" (normalized answers are scored) or "strict" (they are format failures)
    format_failure : "illegal" (error_kind "format", L = 0) or "noncompletion" (legal, L = 0)

    Notes
    -----
    ``L`` is the plan's action count, illegal plans included; ``first_error`` indexes the first
    illegal action (-1 when there is none, format failures included); ``final_h`` is h of the
    last state reached (before the illegal action, if any) and ``min_h`` the least h along the
    legal prefix, the initial state included; ``moves`` has one character per action, ``?`` for
    a token that is not a move. ``economy`` = d*/L and ``excess`` = L - d* are NaN unless the
    plan is complete. Rows are sorted by (condition, board_id, trial).
    """
    if parse not in PARSE_OPTIONS:
        raise ValueError(f"parse must be one of {PARSE_OPTIONS}, got {parse!r}")
    if format_failure not in FORMAT_OPTIONS:
        raise ValueError(f"format_failure must be one of {FORMAT_OPTIONS}, got {format_failure!r}")
    resp = validate_responses(responses, bank=bank)
    tables = bank_tables(bank)
    row = pd.Index(bank["board_id"].astype(str)).get_indexer(resp["board_id"])
    plans = parse_answers(resp["response"].tolist(), strict=parse == "strict")
    moves = [p.moves for p in plans]
    codes, offsets = encode_moves(moves)
    status, kind, first_error, final_h, min_h, revisits, midway = replay_plans(
        tables.boards, row.astype(np.int64), codes, offsets, tables.layout_index[row], tables.moves, tables.dist,
        tables.goal_cell, tables.bits)
    mode = np.array([p.mode for p in plans], dtype=object)
    no_plan = mode == NO_PLAN
    if format_failure == "illegal":
        status[no_plan] = ILLEGAL
        kind[no_plan] = FORMAT
    else:
        status[no_plan] = LEGAL_NONCOMPLETION
    L = np.diff(offsets)
    depth = bank["depth"].to_numpy(np.int64)[row]
    complete = status == COMPLETE
    with np.errstate(divide="ignore", invalid="ignore"):
        # a complete empty plan (only on a board already at its goal, d* = 0) is optimal: economy 1
        economy = np.where(complete, np.where(L > 0, depth / np.maximum(L, 1), 1.0), np.nan)
    out = pd.DataFrame({
        "board_id": resp["board_id"].to_numpy(),
        "condition": resp["condition"].to_numpy(),
        "trial": resp["trial"].to_numpy(np.int64),
        "cohort": bank["cohort"].to_numpy()[row],
        "k": bank["k"].to_numpy(np.int64)[row],
        "layout": tables.tags[row],
        "depth": depth,
        "L": L,
        "status": np.array(STATUS_NAMES, dtype=object)[status],
        "error_kind": np.array(ERROR_NAMES, dtype=object)[kind],
        "first_error": first_error,
        "parse_mode": mode,
        "normalization": [p.normalization for p in plans],
        "multiple_moves": np.array([p.multiple for p in plans], dtype=bool),
        "truncated": _truncated(resp),
        "final_h": final_h,
        "min_h": min_h,
        "revisits": revisits,
        "goal_midway": midway,
        "optimal": complete & (L == depth),
        "economy": economy,
        "excess": np.where(complete, (L - depth).astype(np.float64), np.nan),
        "moves": moves,
    })
    for col in _metadata(resp):
        out[col] = resp[col].to_numpy()
    return out.sort_values(KEY, kind="stable").reset_index(drop=True)


def write_verdicts(verdicts: pd.DataFrame, path) -> None:
    """Write verdicts atomically (Parquet or CSV by extension)."""
    write_table(verdicts, path)


def read_verdicts(path) -> pd.DataFrame:
    """Read a verdicts file back with its string columns intact (CSV turns "" into NaN)."""
    df = read_table(path)
    require_columns(df, VERDICT_COLUMNS, f"{path}: its rows", "make one with `fastspe score`")
    for col in ("error_kind", "normalization", "moves", "board_id", "condition", "cohort", "layout"):
        values = df[col]
        df[col] = np.where(values.isna().to_numpy(), "", values.astype(str).to_numpy()).astype(object)
    return df
