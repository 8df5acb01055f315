"""Plain-NumPy twin of ``fastspe.kernels.bootstrap`` and synthetic inputs for the interval tests.

``naive_bootstrap`` takes the drawn board indices (from ``kernels.bootstrap.draw_indices`` for an
exact comparison, or from any generator for the benchmark) and adds things up in the kernel's
order (each draw: count x board sums in board order within a cell, then cells into groups in cell
order), so the results are bit-identical. It is vectorized over draws.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

FIELDS = 8
METRICS = 9


def numpy_indices(rng: np.random.Generator, draws: int, strata_start, strata_size) -> np.ndarray:
    """Drawn board indices int64 (draws, boards) from a NumPy generator (for the benchmark)."""
    parts = [start + rng.integers(0, size, (draws, size)) for start, size in zip(strata_start, strata_size)]
    return np.concatenate(parts, axis=1)


def metrics_from_sums(acc: np.ndarray) -> np.ndarray:
    """(..., FIELDS) sums -> (..., METRICS) metrics C, I, R, Q, E, G, O, SPE, Dc with the kernel's operations."""
    n, legal, complete, illegal, optimal, economy, excess, depth = (acc[..., i] for i in range(FIELDS))
    with np.errstate(divide="ignore", invalid="ignore"):
        has_n = n > 0
        C = np.where(has_n, complete / n, np.nan)
        I = np.where(has_n, illegal / n, np.nan)
        R = np.where(has_n, 1.0 - I, np.nan)
        Q = np.where(legal > 0, C / R, np.nan)
        E = np.where(complete > 0, economy / complete, np.nan)
        G = np.where(complete > 0, excess / complete, np.nan)
        O = np.where(has_n, optimal / n, np.nan)
        SPE = np.where(has_n, economy / n, np.nan)
        Dc = np.where(complete > 0, depth / complete, np.nan)
    return np.stack([C, I, R, Q, E, G, O, SPE, Dc], axis=-1)


def naive_bootstrap(sums, cell_of, group_of_cell, n_groups, indices, chunk: int = 512) -> np.ndarray:
    """Every metric per draw, float64 (draws, groups, conditions, METRICS), from drawn ``indices`` (draws, boards)."""
    draws, boards = indices.shape
    n_cond = sums.shape[1]
    out = np.empty((draws, n_groups, n_cond, METRICS))
    cells = group_of_cell.shape[0]
    for d0 in range(0, draws, chunk):
        idx = indices[d0 : d0 + chunk]
        nd = idx.shape[0]
        flat = (idx + boards * np.arange(nd)[:, None]).ravel()
        counts = np.bincount(flat, minlength=nd * boards).reshape(nd, boards).astype(np.float64)
        group_acc = np.zeros((nd, n_groups, n_cond, FIELDS))
        for c in range(cells):
            members = np.flatnonzero(cell_of == c)
            if members.size:
                weighted = counts[:, members, None, None] * sums[None, members]
                cell_acc = np.cumsum(weighted, axis=1)[:, -1]  # sequential, in board order
            else:
                cell_acc = np.zeros((nd, n_cond, FIELDS))
            for g in group_of_cell[c]:
                if g >= 0:
                    group_acc[:, g] += cell_acc
        out[d0 : d0 + nd] = metrics_from_sums(group_acc)
    return out


def naive_percentiles(samples2d: np.ndarray, q_low: float, q_high: float):
    """``np.nanpercentile`` and the count of defined draws per column."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
        low, high = np.nanpercentile(samples2d, [q_low, q_high], axis=0)
    return low, high, (~np.isnan(samples2d)).sum(axis=0)


def synthetic_sums_arrays(
    rng: np.random.Generator,
    strata_sizes,
    n_cond: int,
    trials: int = 3,
    p_illegal: float = 0.1,
    p_complete: float = 0.6,
):
    """Random consistent sums (boards, conditions, 8) for strata of the given sizes (one cell each)."""
    boards = int(np.sum(strata_sizes))
    n = np.full((boards, n_cond), float(trials))
    illegal = rng.binomial(trials, p_illegal, (boards, n_cond)).astype(float)
    complete = np.minimum(rng.binomial(trials, p_complete, (boards, n_cond)), trials - illegal)
    optimal = rng.binomial(complete.astype(np.int64), 0.4).astype(float)
    economy = np.round(complete * rng.uniform(0.2, 1.0, (boards, n_cond)), 6)
    excess = complete * rng.integers(0, 20, (boards, n_cond))
    depth = complete * rng.integers(1, 61, (boards, 1))  # a board has one depth under every condition
    return np.ascontiguousarray(np.stack([n, n - illegal, complete, illegal, optimal, economy, excess, depth], axis=-1))


LAYOUT_OF_K = {0: "bnone", 1: "b5", 2: "b5.10", 3: "b5.6.9"}


def synthetic_verdicts(
    seed: int = 0, conditions=("alpha", "beta", "gamma"), per_cell: int = 6, trials: int = 3, cells=None, quality=None
) -> pd.DataFrame:
    """Verdict rows with the columns of ``fastspe.scoring.score.score_responses`` (a paper-like design).

    ``cells``: (cohort, k, depth) triples (default the paper's 16 primary + 4 stress cells);
    ``quality``: condition -> (p_illegal, p_complete_given_legal, mean economy).
    """
    rng = np.random.default_rng(seed)
    if cells is None:
        cells = [("primary", k, d) for k in range(4) for d in (10, 20, 30, 40)]
        cells += [("stress", k, d) for k in (2, 3) for d in (50, 60)]
    rows = []
    for ci, cond in enumerate(conditions):
        p_ill, p_comp, econ = (quality or {}).get(cond, (0.05 + 0.1 * ci, 0.9 - 0.2 * ci, 0.9 - 0.1 * ci))
        for cohort, k, depth in cells:
            for b in range(per_cell):
                bid = f"{cohort}-k{k}-d{depth}-{b:03d}"
                for t in range(trials):
                    u = rng.random()
                    kind, parse = "", "exact"
                    if u < p_ill:
                        status = "illegal"
                        kind = ["boundary", "obstacle", "invalid_action", "format"][rng.integers(4)]
                        parse = "no_plan" if kind == "format" else ["exact", "normalized"][rng.integers(2)]
                        L = 0 if kind == "format" else int(rng.integers(1, 2 * depth))
                    elif rng.random() < p_comp:
                        status = "complete"
                        L = (
                            depth
                            if rng.random() < 0.3
                            else int(np.ceil(depth / max(0.2, min(1.0, rng.normal(econ, 0.1)))))
                        )
                    else:
                        status = "legal_noncompletion"
                        L = int(rng.integers(0, 2 * depth))
                    done = status == "complete"
                    rows.append(
                        {
                            "board_id": bid,
                            "condition": cond,
                            "trial": t,
                            "cohort": cohort,
                            "k": k,
                            "layout": LAYOUT_OF_K[k],
                            "depth": depth,
                            "L": L,
                            "status": status,
                            "error_kind": kind,
                            "first_error": int(rng.integers(0, max(L, 1)))
                            if status == "illegal" and kind != "format"
                            else -1,
                            "parse_mode": parse,
                            "normalization": "case" if parse == "normalized" else "",
                            "multiple_moves": bool(rng.random() < 0.02),
                            "truncated": bool(rng.random() < 0.01),
                            "final_h": 0 if done else int(rng.integers(1, depth)),
                            "min_h": 0,
                            "revisits": 0,
                            "goal_midway": False,
                            "optimal": bool(done and L == depth),
                            "economy": depth / L if done else np.nan,
                            "excess": float(L - depth) if done else np.nan,
                            "moves": "U" * L,
                        }
                    )
    return pd.DataFrame(rows)


def synthetic_sums_frame(
    rng: np.random.Generator, n_cond: int, per_cell: int, ks=(0, 1, 2, 3), depths=(10, 20, 30, 40), trials: int = 3
) -> pd.DataFrame:
    """A ``metrics.board_sums``-shaped frame: ``n_cond`` conditions on the primary cells, ``per_cell``
    boards each (the benchmark's input)."""
    cells = [(k, d) for k in ks for d in depths]
    sums = synthetic_sums_arrays(rng, [per_cell] * len(cells), n_cond, trials)
    boards = len(cells) * per_cell
    k = np.repeat([c[0] for c in cells], per_cell)
    depth = np.repeat([c[1] for c in cells], per_cell)
    ids = np.array([f"p-k{a}-d{b}-{i:05d}" for (a, b) in cells for i in range(per_cell)], dtype=object)
    frame = pd.DataFrame(
        {
            "condition": np.repeat(np.array([f"c{j:03d}" for j in range(n_cond)], dtype=object), boards),
            "board_id": np.tile(ids, n_cond),
            "cohort": "primary",
            "k": np.tile(k, n_cond),
            "layout": "x",
            "depth": np.tile(depth, n_cond),
        }
    )
    names = ["n", "legal", "complete", "illegal", "optimal", "economy_sum", "excess_sum", "depth_sum"]
    sums[..., 7] = sums[..., 2] * depth[:, None]  # d* over completed outputs: the frame's own depths
    flat = sums.transpose(1, 0, 2).reshape(n_cond * boards, FIELDS)
    for i, name in enumerate(names):
        frame[name] = flat[:, i].astype(np.int64) if i < 5 else flat[:, i]
    return frame
