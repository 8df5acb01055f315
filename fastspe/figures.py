"""Figures 1 and 2 of the paper (matplotlib, Agg), written as PNG and SVG with no timestamps.

- Figure 1: R, Q and E in percent (one decimal) per condition (rows) and certified depth
  (columns), blue better and orange poorer on each panel's stated linear scale, a white gutter
  between the primary and the stress depths; undefined cells are grey and read ``n/a``.
- Figure 2: E and SPE per condition on the primary cohort as bars with their 95% intervals.

Figures are built on ``matplotlib.figure.Figure`` (no pyplot state) inside an ``rc_context`` that
fixes the SVG hash salt, and saved with the date metadata removed, so two runs give the same bytes.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from .extras import require

require("matplotlib", "drawing the report's figures")  # one clear message when the extra is missing

from matplotlib import rc_context  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.cm import ScalarMappable  # noqa: E402
from matplotlib.colors import LinearSegmentedColormap, Normalize  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from .io import atomic_path  # noqa: E402

ORANGE, PALE, BLUE = "#d95f02", "#f7f7f7", "#2166ac"
UNDEFINED = (0.85, 0.85, 0.85, 1.0)
GUTTER = (1.0, 1.0, 1.0, 1.0)
CMAP = LinearSegmentedColormap.from_list("fastspe_orange_blue", [ORANGE, PALE, BLUE])
HEAT_METRICS = ("R", "Q", "E")
_RC = {"svg.hashsalt": "fastspe", "svg.fonttype": "path", "font.family": "DejaVu Sans", "font.size": 8,
       "path.simplify": False}
_META = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None}}


def plain(text) -> str:
    """User text (a condition or cohort name) drawn as written: matplotlib reads $...$ as math."""
    return str(text).replace("$", r"\$")


def _save(fig: Figure, stem: Path) -> list[Path]:
    paths = []
    for ext in ("png", "svg"):
        path = stem.with_suffix(f".{ext}")
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format=ext, dpi=150, metadata=_META[ext])
        paths.append(path)
    return paths


def heat_scale(values: np.ndarray) -> tuple[float, float]:
    """A linear scale in percent: from the lowest value rounded down to 10 (at most 90) to 100."""
    finite = values[np.isfinite(values)]
    low = math.floor(min(finite.min(), 90.0) / 10.0) * 10.0 if finite.size else 0.0
    return max(low, 0.0), 100.0


def heatmap_columns(by_depth: pd.DataFrame, primary: str) -> list[tuple[str, int] | None]:
    """(cohort, depth) columns: the primary depths, a gutter (None), then every other cohort's depths."""
    pairs = by_depth[["cohort", "depth"]].drop_duplicates()
    first = sorted((c, int(d)) for c, d in pairs.itertuples(index=False) if c == primary)
    rest = sorted((str(c), int(d)) for c, d in pairs.itertuples(index=False) if c != primary)
    return first + ([None] + rest if first and rest else rest)


def figure1_heatmap(by_depth: pd.DataFrame, conditions: Sequence[str], primary: str, stem: str | Path) -> list[Path]:
    """Write Figure 1 to ``stem``.png/.svg from ``compute_metrics(verdicts, by=(cohort, condition, depth))``."""
    columns = heatmap_columns(by_depth, primary)
    table = by_depth.set_index(["condition", "cohort", "depth"])
    n_rows, n_cols = len(conditions), len(columns)
    with rc_context(_RC):
        fig = Figure(figsize=(1.6 + len(HEAT_METRICS) * (0.45 * n_cols + 0.5), 1.8 + 0.3 * n_rows))
        FigureCanvasAgg(fig)
        axes = fig.subplots(1, len(HEAT_METRICS), sharey=True)
        for ax, metric in zip(np.atleast_1d(axes), HEAT_METRICS):
            values = np.full((n_rows, n_cols), np.nan)
            for i, cond in enumerate(conditions):
                for j, col in enumerate(columns):
                    if col is not None and (cond, *col) in table.index:
                        values[i, j] = 100.0 * table.loc[(cond, *col), metric]
            low, high = heat_scale(values)
            norm = Normalize(low, high, clip=True)
            rgba = np.empty((n_rows, n_cols, 4))
            for j, col in enumerate(columns):
                for i in range(n_rows):
                    v = values[i, j]
                    rgba[i, j] = GUTTER if col is None else (UNDEFINED if np.isnan(v) else CMAP(norm(v)))
            ax.imshow(rgba, aspect="auto", interpolation="nearest")
            for i in range(n_rows):
                for j, col in enumerate(columns):
                    if col is None:
                        continue
                    v = values[i, j]
                    dark = not np.isnan(v) and abs(norm(v) - 0.5) > 0.35
                    ax.text(j, i, "n/a" if np.isnan(v) else f"{v:.1f}", ha="center", va="center", fontsize=6.5,
                            color="white" if dark else "black")
            ax.set_xticks(range(n_cols), ["" if c is None else str(c[1]) for c in columns])
            ax.tick_params(length=0)
            ax.set_xlabel("certified depth d*")
            ax.set_title(f"{metric} (%)")
            for spine in ax.spines.values():
                spine.set_visible(False)
            bar = fig.colorbar(ScalarMappable(norm=norm, cmap=CMAP), ax=ax, orientation="horizontal", pad=0.28,
                               fraction=0.06)
            bar.set_label(f"linear scale {low:.0f}-{high:.0f}%: orange poorer, blue better", fontsize=6.5)
            bar.ax.tick_params(labelsize=6)
        first = np.atleast_1d(axes)[0]
        first.set_yticks(range(n_rows), [plain(c) for c in conditions])
        gutter = [j for j, c in enumerate(columns) if c is None]
        if gutter:
            others = ", ".join(sorted({plain(c[0]) for c in columns if c and c[0] != primary}))
            fig.suptitle(f"R, Q, E by depth: {plain(primary)} cohort left of the gutter, {others} right", fontsize=8)
        fig.tight_layout()
        return _save(fig, Path(stem))


def figure2_bars(intervals: pd.DataFrame, conditions: Sequence[str], cohort: str, stem: str | Path) -> list[Path]:
    """Write Figure 2 to ``stem``.png/.svg: pooled E and SPE with 95% intervals, per condition."""
    pooled = intervals[(intervals["grouping"] == "pooled") & (intervals["cohort"] == cohort)]
    table = pooled.set_index(["condition", "metric"])
    x = np.arange(len(conditions))
    width = 0.38
    with rc_context(_RC):
        fig = Figure(figsize=(1.6 + 0.75 * len(conditions), 3.2))
        FigureCanvasAgg(fig)
        ax = fig.subplots()
        for off, metric, color in ((-width / 2, "E", ORANGE), (width / 2, "SPE", BLUE)):
            est = np.array([table.loc[(c, metric), "estimate"] if (c, metric) in table.index else np.nan
                            for c in conditions], dtype=float)
            lo = np.array([table.loc[(c, metric), "lo"] if (c, metric) in table.index else np.nan for c in conditions],
                          dtype=float)
            hi = np.array([table.loc[(c, metric), "hi"] if (c, metric) in table.index else np.nan for c in conditions],
                          dtype=float)
            shown = np.nan_to_num(est)
            err = np.vstack([np.clip(shown - np.nan_to_num(lo, nan=0.0), 0, None) * np.isfinite(lo),
                             np.clip(np.nan_to_num(hi, nan=0.0) - shown, 0, None) * np.isfinite(hi)])
            ax.bar(x + off, shown, width, color=color, label=metric, yerr=err, capsize=2.5,
                   error_kw={"elinewidth": 0.8, "capthick": 0.8})
            for xi, e in zip(x + off, est):
                if np.isnan(e):
                    ax.text(xi, 0.02, "n/a", ha="center", va="bottom", fontsize=6, rotation=90)
        ax.set_xticks(x, [plain(c) for c in conditions], rotation=30, ha="right")
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("E (among completions) and SPE (all outputs)")
        ax.set_title(f"Conditional economy E and joint SPE, {plain(cohort)} cohort (95% intervals)")
        ax.legend(frameon=False, fontsize=7)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        fig.tight_layout()
        return _save(fig, Path(stem))
