"""Stratified whole-board bootstrap intervals for the SPE metrics (paper, Section 2.3).

Whole boards are resampled within each stratum (by default cohort x k x depth, the paper's
cells), as many as the stratum holds, with replacement; all trials of a board go together, and
one draw uses the same board indices for every condition, so differences between conditions are
paired. Every metric of every condition and group (pooled, by depth, by k within each cohort) comes
from one pass of ``kernels.bootstrap``. Intervals are percentile intervals over the draws in which
the metric is defined; ``draws_used`` says how many that was. Point estimates are
``metrics.metrics_from_sums`` (the function behind ``compute_metrics``) of the same sums.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from ..errors import UserError, UserTypeError, shown
from ..executor import Executor, in_process
from ..boundary.files import require_columns
from ..kernels import MAX_SEED, bootstrap as kb
from ..boundary.verdicts import FRAME_DOMAIN, Verdicts, verdicts_domain
from ..domains.contract import STRATUM, Domain
from .metrics import SUM_COLUMNS, board_sums, metrics_from_sums

DEFAULT_DRAWS = 5000
DEFAULT_SEED = 20261012
DEFAULT_LEVEL = 0.95
# Strata and groupings name the domain's second stratum (k, boxes) ``STRATUM``: each frame's domain names it
DEFAULT_STRATA = ("cohort", STRATUM, "depth")
DEFAULT_GROUPINGS: Mapping[str, tuple[str, ...]] = {
    "pooled": ("cohort",),
    "depth": ("cohort", "depth"),
    "stratum": ("cohort", STRATUM),
}
# The report's groupings: the defaults plus each stratum cell (cohort x stratum x depth), which Table 4 averages.
REPORT_GROUPINGS: Mapping[str, tuple[str, ...]] = {**DEFAULT_GROUPINGS, "stratum_depth": ("cohort", STRATUM, "depth")}
METRICS = kb.METRIC_NAMES
ALL = "all"  # label of a column a grouping pools over
MEMORY_BUDGET = 256 * 2**20  # bytes of bootstrap draws held at once by bootstrap_intervals
TASK_SCRATCH = 32 * 2**20  # bytes of accumulators per kernel task (results do not depend on it)
DRAW_RANGE = 500  # draws per kernel call, so progress moves (results do not depend on it)
Progress = Callable[[int, int], None]
_MAX_DRAWS = 10_000_000
_COUNTS = ["n", "legal", "complete", "illegal", "optimal"]

assert tuple(SUM_COLUMNS) == kb.FIELD_NAMES, "metrics.SUM_COLUMNS and the kernel's fields disagree"


@dataclass(frozen=True)
class PackedSums:
    """Board sums packed for the kernel (see ``kernels.bootstrap`` for the conventions).

    Attributes
    ----------
    sums : float64 (boards, conditions, 7), boards sorted by stratum then cell then board_id
    conditions : condition names, in the order of axis 1
    boards : DataFrame, one row per board in kernel order: board_id and the stratum and grouping
        columns
    strata_start, strata_size : int64 (strata,)
    cell_of : int64 (boards,)
    group_of_cell : int64 (cells, groupings)
    groups : DataFrame, one row per group id: ``grouping`` and every label column (``ALL`` where
        that grouping pools over the column)
    strata, groupings : the columns that define them (the domain's own names)
    domain : the sums' ``Domain``
    """

    sums: np.ndarray
    conditions: tuple[str, ...]
    boards: pd.DataFrame
    strata_start: np.ndarray
    strata_size: np.ndarray
    cell_of: np.ndarray
    group_of_cell: np.ndarray
    groups: pd.DataFrame
    strata: tuple[str, ...]
    groupings: Mapping[str, tuple[str, ...]]
    domain: Domain

    @property
    def label_columns(self) -> list[str]:
        return [c for c in self.groups.columns if c != "grouping"]

    def select(self, conditions: Sequence[str]) -> "PackedSums":
        """The same boards and groups for a subset of the conditions (results per condition are unchanged)."""
        conditions = tuple(conditions)
        unknown = [c for c in conditions if c not in self.conditions]
        if unknown:
            raise UserError(f"unknown conditions {unknown}; the sums hold {list(self.conditions)}")
        pos = [self.conditions.index(c) for c in conditions]
        return PackedSums(
            np.ascontiguousarray(self.sums[:, pos, :]),
            conditions,
            self.boards,
            self.strata_start,
            self.strata_size,
            self.cell_of,
            self.group_of_cell,
            self.groups,
            self.strata,
            self.groupings,
            self.domain,
        )


@dataclass(frozen=True)
class BootstrapDraws:
    """Every metric in every draw: ``samples`` float64 (draws, groups, conditions, 8), NaN where
    undefined; ``estimates`` float64 (groups, conditions, 8) is the kernel's draw-free value."""

    packed: PackedSums
    draws: int
    seed: int
    samples: np.ndarray
    estimates: np.ndarray


def _check_int(value, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise UserTypeError(f"{what} must be an integer in {low}..{high}, got {shown(value)}")
    if not low <= int(value) <= high:
        raise UserError(f"{what} must be an integer in {low}..{high}, got {value!r}")
    return int(value)


def _sums_of(sums, draws, domain) -> pd.DataFrame:
    """Board sums as given, or made from verdicts (``Verdicts`` or a verdicts DataFrame): intervals straight from
    verdicts. The call ``bootstrap_intervals(bank, verdicts)`` is named as what it is, not printed."""
    if isinstance(draws, (pd.DataFrame, Verdicts)):
        raise UserTypeError(
            f"draws must be an integer, got a {type(draws).__name__}: pass the verdicts alone, first "
            "(bootstrap_intervals(verdicts); the verdicts carry their boards' facts)"
        )
    if isinstance(sums, Verdicts) or (
        isinstance(sums, pd.DataFrame) and "status" in sums.columns and "n" not in sums.columns
    ):
        return board_sums(sums, domain)
    if not isinstance(sums, pd.DataFrame):
        raise UserTypeError(
            f"sums must be verdicts (a Verdicts or a DataFrame) or their board_sums (a DataFrame), got {shown(sums)}"
        )
    return sums


def _check_level(level) -> float:
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0.0 < float(level) < 1.0:
        raise UserError(f"level must be a number strictly between 0 and 1 (0.95 for 95% intervals), got {level!r}")
    return float(level)


def _check_columns(cols, what: str) -> tuple[str, ...]:
    if isinstance(cols, str):
        cols = (cols,)
    cols = tuple(cols)
    if not all(isinstance(c, str) and c for c in cols) or len(set(cols)) != len(cols):
        raise UserError(f"{what} must be distinct column names, got {cols!r}")
    return cols


def _check_sums(sums: pd.DataFrame, needed: list[str]) -> pd.DataFrame:
    require_columns(
        sums,
        ["condition", "board_id", *needed, *SUM_COLUMNS],
        "board sums",
        "make them with fastspe.stats.metrics.board_sums(verdicts)",
    )
    if sums.empty:
        raise UserError("board sums are empty: there is nothing to resample")
    keys = ["condition", "board_id", *needed]
    for col in keys:
        bad = sums[col].isna().to_numpy()
        if bad.any():
            raise UserError(f"board sums row {sums.index[bad.argmax()]}: {col} is missing")
    values = sums[SUM_COLUMNS].apply(pd.to_numeric, errors="coerce").to_numpy(np.float64)
    bad = ~np.isfinite(values) | (values < 0)
    bad[:, :5] |= values[:, :5] != np.round(values[:, :5])
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise UserError(
            f"board sums row {sums.index[row]}: {SUM_COLUMNS[col]} = {sums[SUM_COLUMNS[col]].iloc[row]!r} "
            "is not a non-negative finite number (counts must be whole)"
        )
    n, legal, complete, illegal, optimal = (values[:, i] for i in range(5))
    broken = (legal + illegal != n) | (complete > legal) | (optimal > complete)
    if broken.any():
        row = sums.index[broken.argmax()]
        raise UserError(
            f"board sums row {row}: counts are inconsistent (need legal + illegal = n, "
            "optimal <= complete <= legal); recompute them with fastspe.stats.metrics.board_sums"
        )
    dup = sums.duplicated(["condition", "board_id"]).to_numpy()
    if dup.any():
        r = sums.index[dup.argmax()]
        raise UserError(
            f"board sums row {r}: (condition, board_id) = ({sums.at[r, 'condition']!r}, "
            f"{sums.at[r, 'board_id']!r}) appears more than once"
        )
    out = sums[keys].copy()
    out[SUM_COLUMNS] = values
    return out.reset_index(drop=True)


def _in_domain(domain: Domain, strata: tuple, groupings: dict) -> tuple[tuple, dict]:
    """Strata and groupings with ``STRATUM`` as the domain names its second stratum (``k``, ``boxes``); the
    groupings keep their names (``stratum``, ``stratum_depth``, whatever the column)."""
    return tuple(domain.named(strata)), {name: tuple(domain.named(cols)) for name, cols in groupings.items()}


def pack_sums(
    sums: pd.DataFrame,
    strata: Sequence[str] = DEFAULT_STRATA,
    groupings: Mapping[str, Sequence[str]] = DEFAULT_GROUPINGS,
    conditions: Sequence[str] | None = None,
    domain=None,
) -> PackedSums:
    """Validate board sums and pack them for the bootstrap kernel.

    Parameters
    ----------
    sums : DataFrame from ``metrics.board_sums``: one row per (condition, board_id) with the stratum
        and grouping columns and ``n, legal, complete, illegal, optimal, economy_sum, excess_sum``
    strata : columns whose combinations are resampled separately (``STRATUM``: the domain's second stratum)
    groupings : name -> columns; each grouping gives one group per combination of its columns
        (columns are cohort, condition-free board attributes such as depth, the stratum, layout)
    conditions : the conditions to keep, in this order (default: all, in order of appearance)
    domain : the sums' domain when their ``attrs`` do not name it (``board_sums`` sets them; default: the
        default domain)

    A (condition, board) pair without a row counts as no output (zeros), so conditions may cover
    different boards; each board's stratum and group columns must agree across conditions.
    """
    strata = _check_columns(strata, "strata")
    if not isinstance(groupings, Mapping) or not groupings:
        raise UserError("groupings must be a non-empty mapping of name -> columns, e.g. {'pooled': ('cohort',)}")
    groupings = {str(name): _check_columns(cols, f"grouping {name!r}") for name, cols in groupings.items()}
    found = verdicts_domain(sums, domain=domain, source="board sums")
    strata, groupings = _in_domain(found, strata, groupings)
    label_cols: list[str] = []
    for cols in groupings.values():
        label_cols += [c for c in cols if c not in label_cols]
    if "condition" in strata or "condition" in label_cols or "board_id" in label_cols:
        raise UserError("strata and groupings are board attributes; condition and board_id cannot be among them")
    cell_cols = list(strata) + [c for c in label_cols if c not in strata]
    frame = _check_sums(sums, cell_cols)

    present = list(pd.unique(frame["condition"]))  # order of appearance
    if conditions is None:
        conditions = present
    conditions = tuple(conditions)
    unknown = [c for c in conditions if c not in present]
    if unknown or not conditions or len(set(conditions)) != len(conditions):
        raise UserError(f"conditions {list(conditions)} must be distinct names among {present}")
    frame = frame[frame["condition"].isin(conditions)].reset_index(drop=True)

    per_board = frame.groupby("board_id", sort=False)[cell_cols].nunique(dropna=False)
    clash = (per_board > 1).any(axis=1)
    if clash.any():
        bid = clash.index[clash.argmax()]
        col = per_board.columns[(per_board.loc[bid] > 1).argmax()]
        raise UserError(f"board {bid!r} has more than one {col} across conditions; its attributes must agree")
    boards = (
        frame.drop_duplicates("board_id")[["board_id", *cell_cols]]
        .sort_values([*cell_cols, "board_id"], kind="stable")
        .reset_index(drop=True)
    )
    stratum = boards.groupby(list(strata), sort=True).ngroup().to_numpy(np.int64)
    cell = boards.groupby(cell_cols, sort=True).ngroup().to_numpy(np.int64)
    strata_size = np.bincount(stratum).astype(np.int64)
    strata_start = np.concatenate([[0], np.cumsum(strata_size)[:-1]]).astype(np.int64)

    cells = boards.drop_duplicates(cell_cols)[cell_cols].reset_index(drop=True)  # in cell-id order
    group_of_cell = np.empty((len(cells), len(groupings)), dtype=np.int64)
    group_rows, offset = [], 0
    for gi, (name, cols) in enumerate(groupings.items()):
        gid = cells.groupby(list(cols), sort=True).ngroup().to_numpy(np.int64)
        group_of_cell[:, gi] = offset + gid
        labels = cells.assign(_g=gid).drop_duplicates("_g").sort_values("_g").to_dict("records")
        group_rows += [{"grouping": name, **{c: (row[c] if c in cols else ALL) for c in label_cols}} for row in labels]
        offset += gid.max() + 1
    groups = pd.DataFrame(group_rows, columns=["grouping", *label_cols])

    packed = np.zeros((len(boards), len(conditions), len(SUM_COLUMNS)), dtype=np.float64)
    b = pd.Index(boards["board_id"]).get_indexer(frame["board_id"])
    c = pd.Index(conditions).get_indexer(frame["condition"])
    packed[b, c, :] = frame[SUM_COLUMNS].to_numpy(np.float64)
    return PackedSums(
        packed,
        conditions,
        boards,
        strata_start,
        strata_size,
        cell,
        group_of_cell,
        groups,
        tuple(strata),
        groupings,
        found,
    )


def draw_indices(packed: PackedSums, draws: int, seed: int = DEFAULT_SEED) -> np.ndarray:
    """The board indices each draw picks, int64 (draws, boards), in ``packed.boards`` order."""
    draws = _check_int(draws, "draws", 1, _MAX_DRAWS)
    seed = _check_int(seed, "seed", 0, MAX_SEED)
    return kb.draw_indices(seed, draws, packed.strata_start, packed.strata_size)


def draw_range(arrays: tuple, draws: tuple[int, int], n_groups: int, seed: int, block: int) -> np.ndarray:
    """Draws ``first .. first + count - 1`` (``draws = (first, count)``) of the kernel inputs ``arrays``
    (sums, cell_of, group_of_cell, strata_start, strata_size): one piece of work for an executor."""
    sums, cell_of, group_of_cell, strata_start, strata_size = arrays
    first, count = draws
    out = np.empty((count, n_groups, sums.shape[1], len(METRICS)), dtype=np.float64)
    kb.bootstrap_metrics_into(
        out, sums, cell_of, group_of_cell, n_groups, strata_start, strata_size, seed, first, block
    )
    return out


def bootstrap_draws(
    packed: PackedSums,
    draws: int = DEFAULT_DRAWS,
    seed: int = DEFAULT_SEED,
    progress: Progress | None = None,
    executor: Executor | None = None,
) -> BootstrapDraws:
    """Run the kernel: every metric of every group and condition in every draw.

    The draws take ``draws x groups x conditions x 64`` bytes (5,000 draws x 14 groups x 7
    conditions: 31 MB); ``bootstrap_intervals`` bounds that by splitting the conditions.
    ``progress(draws_done, draws)`` is called after each range of ``DRAW_RANGE`` draws (the
    result does not depend on the ranges: each draw is keyed by its index). ``executor``
    (``fastspe.executor``; ``fastspe.distributed.executor`` for Dask) computes the ranges, in-process by
    default; percentiles are taken here, after the ranges are gathered, either way.
    """
    draws = _check_int(draws, "draws", 1, _MAX_DRAWS)
    seed = _check_int(seed, "seed", 0, MAX_SEED)
    n_groups = len(packed.groups)
    # draws per task: its scratch holds block x (cells + groups) x conditions x FIELDS float64
    per_draw = (packed.group_of_cell.shape[0] + n_groups) * len(packed.conditions) * kb.FIELDS * 8
    block = int(max(1, min(kb.DEFAULT_BLOCK, TASK_SCRATCH // per_draw)))
    samples = np.empty((draws, n_groups, len(packed.conditions), len(METRICS)), dtype=np.float64)
    ranges = [(d0, min(DRAW_RANGE, draws - d0)) for d0 in range(0, draws, DRAW_RANGE)]
    arrays = (packed.sums, packed.cell_of, packed.group_of_cell, packed.strata_start, packed.strata_size)
    chunks = (executor or in_process)(draw_range, arrays, ranges, n_groups, seed, block)
    for (d0, n), chunk in zip(ranges, chunks):
        samples[d0 : d0 + n] = chunk
        if progress is not None:
            progress(d0 + n, draws)
    estimates = kb.point_metrics(packed.sums, packed.cell_of, packed.group_of_cell, n_groups)
    return BootstrapDraws(packed, draws, seed, samples, estimates)


def _percentiles(level: float) -> tuple[float, float]:
    low = round(50.0 * (1.0 - level), 12)  # 2.5 for 0.95, not 2.5000000000000022
    return low, 100.0 - low


def _long_frame(packed: PackedSums, conds_a, conds_b, low, high, used, est_of) -> pd.DataFrame:
    """Long rows for every group x condition (pair) x metric; ``low`` etc. are (groups, pairs, METRICS)."""
    n_groups, n_pairs, n_metrics = low.shape
    g = np.repeat(np.arange(n_groups), n_pairs * n_metrics)
    p = np.tile(np.repeat(np.arange(n_pairs), n_metrics), n_groups)
    m = np.tile(np.arange(n_metrics), n_groups * n_pairs)
    out = packed.groups.iloc[g].reset_index(drop=True)
    out["condition" if conds_b is None else "condition_a"] = np.asarray(conds_a, dtype=object)[p]
    if conds_b is not None:
        out["condition_b"] = np.asarray(conds_b, dtype=object)[p]
    out["metric"] = np.asarray(METRICS, dtype=object)[m]
    out["estimate"] = est_of(g, p, m)
    out["lo"] = low.ravel()
    out["hi"] = high.ravel()
    out["draws_used"] = used.ravel().astype(np.int64)
    out.attrs[FRAME_DOMAIN] = packed.domain.name
    return out


def _estimate_lookup(packed: PackedSums, conditions: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Point estimates aligned with the kernel's axes, float64 (groups, conditions, METRICS), and each
    group's output count N, int64 (groups, conditions).

    Each group's sums are added up here and turned into metrics by ``metrics.metrics_from_sums``,
    the function behind ``compute_metrics``, so estimates and tables share one definition.
    """
    pos = [packed.conditions.index(c) for c in conditions]
    sums = packed.sums[:, pos, :]
    starts = np.flatnonzero(np.r_[True, np.diff(packed.cell_of) != 0])  # cells are contiguous runs
    cell_sums = np.add.reduceat(sums, starts, axis=0)
    member = np.zeros((len(packed.groups), len(starts)))
    for gi in range(packed.group_of_cell.shape[1]):
        ok = packed.group_of_cell[:, gi] >= 0
        member[packed.group_of_cell[ok, gi], np.flatnonzero(ok)] = 1.0
    group_sums = np.einsum("gc,cjf->gjf", member, cell_sums)
    flat = pd.DataFrame(group_sums.reshape(-1, len(SUM_COLUMNS)), columns=SUM_COLUMNS)
    with np.errstate(divide="ignore", invalid="ignore"):
        est = metrics_from_sums(flat)[list(METRICS)].to_numpy(np.float64)
    n = np.rint(group_sums[:, :, SUM_COLUMNS.index("n")]).astype(np.int64)
    return est.reshape(len(packed.groups), len(conditions), len(METRICS)), n


def interval_table(boot: BootstrapDraws, level: float = DEFAULT_LEVEL) -> pd.DataFrame:
    """Percentile intervals in long form.

    Returns columns ``grouping, <label columns>, condition, metric, estimate, lo, hi, draws_used, N``
    (label columns hold ``"all"`` where the grouping pools over them). ``estimate`` equals
    ``compute_metrics`` of the group; ``lo``/``hi`` are NaN when no draw defines the metric; ``N`` is
    the group's number of outputs under that condition.
    """
    level = _check_level(level)
    packed = boot.packed
    q_low, q_high = _percentiles(level)
    draws, n_groups, n_cond, n_metrics = boot.samples.shape
    low, high, used = kb.nan_percentile_intervals(boot.samples.reshape(draws, -1), q_low, q_high)
    shape = (n_groups, n_cond, n_metrics)
    est, n = _estimate_lookup(packed, packed.conditions)
    out = _long_frame(
        packed,
        packed.conditions,
        None,
        low.reshape(shape),
        high.reshape(shape),
        used.reshape(shape),
        lambda g, p, m: est[g, p, m],
    )
    out["N"] = n.reshape(-1).repeat(n_metrics)
    return out


def paired_differences(
    boot: BootstrapDraws, pairs: Iterable[tuple[str, str]] | None = None, level: float = DEFAULT_LEVEL
) -> pd.DataFrame:
    """Intervals for metric(A) - metric(B) from the same draws (paired: same boards in each draw).

    Parameters
    ----------
    pairs : (A, B) condition names; default every ordered pair of distinct conditions with A before B

    Returns columns ``grouping, <label columns>, condition_a, condition_b, metric, estimate, lo, hi,
    draws_used`` (a draw counts when both metrics are defined in it).
    """
    level = _check_level(level)
    packed = boot.packed
    conds = packed.conditions
    if pairs is None:
        pairs = [(a, b) for i, a in enumerate(conds) for b in conds[i + 1 :]]
    pairs = [tuple(p) for p in pairs]
    for p in pairs:
        if len(p) != 2 or p[0] not in conds or p[1] not in conds:
            raise UserError(f"pair {p!r} must name two conditions among {list(conds)}")
    if not pairs:
        raise UserError("paired differences need at least two conditions")
    ia = np.array([conds.index(a) for a, _ in pairs])
    ib = np.array([conds.index(b) for _, b in pairs])
    diff = np.ascontiguousarray(boot.samples[:, :, ia, :] - boot.samples[:, :, ib, :])
    q_low, q_high = _percentiles(level)
    draws, n_groups, n_pairs, n_metrics = diff.shape
    low, high, used = kb.nan_percentile_intervals(diff.reshape(draws, -1), q_low, q_high)
    shape = (n_groups, n_pairs, n_metrics)
    est, _ = _estimate_lookup(packed, conds)
    return _long_frame(
        packed,
        [a for a, _ in pairs],
        [b for _, b in pairs],
        low.reshape(shape),
        high.reshape(shape),
        used.reshape(shape),
        lambda g, p, m: est[g, ia[p], m] - est[g, ib[p], m],
    )


def bootstrap_intervals(
    sums: pd.DataFrame | Verdicts,
    draws: int = DEFAULT_DRAWS,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
    strata: Sequence[str] = DEFAULT_STRATA,
    groupings: Mapping[str, Sequence[str]] = DEFAULT_GROUPINGS,
    conditions: Sequence[str] | None = None,
    memory_budget: int = MEMORY_BUDGET,
    progress: Progress | None = None,
    executor: Executor | None = None,
    domain=None,
) -> pd.DataFrame:
    """``interval_table`` for every condition, holding at most ``memory_budget`` bytes of draws.

    Conditions are bootstrapped in chunks; a draw picks the same boards whatever the chunk, so the
    result equals one pass over all conditions. ``progress(draws_done, draws_in_all)`` counts the
    draws of every chunk. ``executor``: as in ``bootstrap_draws``.

    ``sums``: the verdicts (``Verdicts``, or a DataFrame of them as ``score_responses`` gives it), or their
    ``board_sums`` (which the verdicts are summed to first).
    """
    sums = _sums_of(sums, draws, domain)
    level = _check_level(level)
    draws = _check_int(draws, "draws", 1, _MAX_DRAWS)
    memory_budget = _check_int(memory_budget, "memory_budget", 1, 2**62)
    packed = pack_sums(sums, strata, groupings, conditions, domain)
    per_condition = draws * len(packed.groups) * len(METRICS) * 8
    chunk = max(1, memory_budget // per_condition)
    starts = range(0, len(packed.conditions), chunk)
    parts = []
    for n, i in enumerate(starts):
        part = packed.select(packed.conditions[i : i + chunk]) if chunk < len(packed.conditions) else packed
        tick = None if progress is None else (lambda done, _, n=n: progress(n * draws + done, len(starts) * draws))
        parts.append(interval_table(bootstrap_draws(part, draws, seed, tick, executor), level))
    out = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    out.attrs[FRAME_DOMAIN] = packed.domain.name
    return out
