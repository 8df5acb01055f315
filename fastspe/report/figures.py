"""The paper's figures (matplotlib, Agg), each written as PDF, PNG (``DPI``, 150 unless asked; 300 for print)
and SVG with no timestamps.

- Figure 1 (``figure1_heatmap``): R, Q and E in percent (one decimal) per condition (rows) and certified
  depth (columns), blue better and orange poorer on each panel's stated linear scale, a narrow white
  gutter between the primary and the other cohorts' depths; undefined cells are grey and read ``n/a``.
- Figure 2 (``figure2_bars``): pooled E and SPE per condition on the primary cohort, horizontal bars
  with their 95% intervals; a zero is a drawn stub labelled ``0``, an undefined E reads ``n/a`` on E's row.
- Figure 3 (``figure3_trajectories``): where plans fail, over certified depth, one line per condition.

One meaning per colour across the figures: orange and blue say poorer and better (Figure 1's scales)
and nothing else, light grey says undefined; Figure 2 tells E from SPE by fill (hatched, solid dark
grey), not by colour; Figure 3's condition colours leave out orange, blue and grey.

Figures 1 and 2 read the long metrics frame of ``intervals.bootstrap_intervals`` (one source of
numbers for tables and figures); Figure 3 reads ``trajectories.trajectory_frame``. Sizes: Figures 1
and 3 are 7 in wide (a two-column ``figure*``), Figure 2 is 3.5 in (one column); the height grows with
the number of conditions. Condition labels wrap at spaces (``WRAP`` characters a line) rather than
widen the figure, and the layout is computed once (constrained layout, then frozen) and reused for all
three formats. ``titles=False`` leaves out the figure's title (the caption goes in the paper); panel
headers, which say which panel is which, stay.

Figures are built on ``matplotlib.figure.Figure`` (no pyplot state) inside an ``rc_context`` that
fixes the SVG hash salt, and saved without dates or producer strings, so two runs give the same bytes.
"""

from __future__ import annotations

import functools
import math
import textwrap
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from ..extras import require

require("matplotlib", "drawing the report's figures")  # one clear message when the extra is missing

from matplotlib import rc_context  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.cm import ScalarMappable  # noqa: E402
from matplotlib.colors import LinearSegmentedColormap, Normalize  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.text import Text  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from ..boundary.files import write_figure  # noqa: E402
from .forked import side_by_side  # noqa: E402
from .trajectories import position_columns  # noqa: E402

ORANGE, PALE, BLUE = "#d95f02", "#f7f7f7", "#2166ac"  # poorer .. better, Figure 1 only
UNDEFINED = (0.85, 0.85, 0.85, 1.0)
INK = "#404040"  # Figure 2's bars: E hatched in it, SPE filled with it
SMALL = 0.05  # a bar shorter than this (of 1) gets its value written beside it
CMAP = LinearSegmentedColormap.from_list("fastspe_orange_blue", [ORANGE, PALE, BLUE])
HEAT_METRICS = ("R", "Q", "E")
FORMATS = ("png", "svg", "pdf")  # the order of the returned paths: [1] stays the SVG, as before
DPI = 150  # the PNG's default: a screen's and a page's; 300 for print is asked for (``--dpi``)
PRINT_DPI = 300  # SVG and PDF are saved with it, as always (their bytes stay as they were), and the trend's PNG
WIDE, NARROW = 7.0, 3.5  # inches: a two-column figure*, one column
WRAP = 22  # characters a line of a condition label
GUTTER_WIDTH = 0.35  # of a depth column
CELL_FONT = 6.5  # largest size of a heatmap cell's number; smaller when cells are narrow
_RC = {
    "svg.hashsalt": "fastspe",
    "svg.fonttype": "path",
    "pdf.fonttype": 42,  # TrueType: venues refuse Type 3
    "font.family": "DejaVu Sans",
    "font.size": 8,
    "axes.titlesize": 8,
    "axes.labelsize": 8,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "legend.fontsize": 7,
    "figure.titlesize": 9,
    "path.simplify": False,
    "figure.autolayout": False,
    "figure.constrained_layout.use": False,
}
_META = {
    "png": {"Software": None},
    "svg": {"Date": None, "Creator": None},
    "pdf": {"CreationDate": None, "Creator": None, "Producer": None},
}
_LINE = 1.25 * 7 / 72  # inches a line of 7 pt label text takes
# Condition colours with markers and dashes that tell lines apart in grayscale too: black and Okabe-Ito's
# bluish green and reddish purple, then Tol's wine, olive, teal and a violet; no orange, blue or grey, which
# mean poorer, better and undefined in Figure 1. 7 colours against 4 dashes repeat a pair only after 28 lines
COLORS = ("#000000", "#009e73", "#cc79a7", "#882255", "#999933", "#44aa99", "#6a3d9a")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h", "*", "p")
DASHES = ("-", "--", ":", "-.")
# no "fi" in a multi-line text: matplotlib drops the "-liga" feature (see _freeze) on multi-line texts
TRAJECTORY_PANELS = (
    ("fail_at_dstar", "earliest illegal move / d*\n(illegal plans)"),
    ("closest", "closest approach min_h / d*\n(incomplete outputs)"),
    ("revisit_rate", "share revisiting a state\n(all outputs)"),
)


def plain(text) -> str:
    """User text (a condition or cohort name) drawn as written: matplotlib reads $...$ as math."""
    return str(text).replace("$", r"\$")


def wrapped(text, width: int = WRAP) -> str:
    """``text`` broken into lines of at most ``width`` characters (at spaces where it can), drawn literally."""
    lines = textwrap.wrap(str(text), width, break_on_hyphens=False) or [""]
    return "\n".join(plain(line) for line in lines)  # escape after wrapping: never split a \$ pair


def _labels(conditions: Sequence[str], labels: Mapping[str, str] | None, width: int = WRAP) -> list[str]:
    """Each condition's label (the key itself when it has none), wrapped and escaped."""
    return [wrapped((labels or {}).get(c, c), width) for c in conditions]


def _row_height(texts: Sequence[str], least: float) -> float:
    """Inches a row needs to hold the tallest of ``texts`` (wrapped labels) with some air."""
    return max(least, max((t.count("\n") + 1 for t in texts), default=1) * _LINE + 0.07)


def _styled(build):
    """Run ``build`` under the package's rc settings (sizes at build time, hash salt and fonts at save)."""

    @functools.wraps(build)
    def run(*args, **kwargs):
        with rc_context(_RC):
            return build(*args, **kwargs)

    return run


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    fig.get_layout_engine().set(w_pad=0.03, h_pad=0.03, wspace=0.03, hspace=0.03)
    return fig


def _freeze(fig: Figure) -> None:
    """Lay out once and keep it: each savefig would otherwise lay the figure out again. No layout engine at
    all afterwards (not even the "none" placeholder): with one, ``savefig`` draws the whole figure an
    extra time before drawing it for real, which doubled the cost of every file."""
    if hasattr(Text, "set_fontfeatures"):  # matplotlib >= 3.11 shapes "fi" into a ligature, which the PDF
        for text in fig.findobj(Text):  # can't map back to letters (unsearchable) and embeds as a 2nd font
            text.set_fontfeatures(["-liga"])
    engine = fig.get_layout_engine()
    for _ in range(4):  # make room for what the layout's 100 dpi measure leaves cut at a dpi the files use
        fig.set_layout_engine(engine)
        engine.execute(fig)
        fig.set_layout_engine(None)  # None, as _RC turns off autolayout and constrained_layout.use; and a draw
        over = _overhang(fig, (fig.dpi, DPI, PRINT_DPI))  # with an engine would lay out again at its dpi
        if over <= 0:
            break
        pads = engine.get()
        engine.set(w_pad=pads["w_pad"] + over, h_pad=pads["h_pad"] + over)


def _overhang(fig: Figure, dpis: Sequence[int]) -> float:
    """Inches by which the text that reaches farthest past the canvas does so at any of ``dpis``, with a pixel of
    air; 0 or less when every text is inside. Text does not scale with the dpi exactly: a label that fits at the
    layout's 100 dpi can be 5% wider at 150 and lose its first letter at the edge."""
    worst, base = -math.inf, fig.dpi
    try:
        for dpi in dict.fromkeys(dpis):
            fig.set_dpi(dpi)
            fig.draw_without_rendering()  # tick labels take their places
            renderer = fig.canvas.get_renderer()
            width, height = fig.bbox.width, fig.bbox.height
            for text in fig.findobj(Text):
                if text.get_visible() and text.get_text().strip():
                    box = text.get_window_extent(renderer)
                    worst = max(worst, (max(-box.x0, box.x1 - width, -box.y0, box.y1 - height) + 1) / dpi)
    finally:
        fig.set_dpi(base)
    return worst


def _title(fig: Figure, text: str, titles: bool) -> None:
    if titles:  # wrapped to the figure's width: the cohort's name is user text of any length
        fig.suptitle(wrapped(text, int(fig.get_figwidth() * 72 / (0.58 * 9))))


def _save(fig: Figure, stem: str | Path, dpi: int = DPI) -> list[Path]:
    """The figure in every format (``FORMATS``), side by side in a figure server's job (``forked.side_by_side``:
    each format draws the whole figure again, so the formats of the largest figure need not wait in line)."""
    stem = Path(stem)
    return side_by_side([functools.partial(_save_as, fig, stem, ext, dpi) for ext in FORMATS])


@_styled
def _save_as(fig: Figure, stem: Path, ext: str, dpi: int) -> Path:
    path = stem.parent / f"{stem.name}.{ext}"  # not with_suffix: a stem may hold a dot
    write_figure(fig, path, format=ext, dpi=dpi if ext == "png" else PRINT_DPI, metadata=_META[ext])
    return path


def warm() -> None:
    """Load what a figure's first save in each format loads (backends, the PDF's font subsetter and font
    tables, Pillow's image plugins) by saving a small figure of text in every format to memory: done once
    in the process that forks one process per figure (``forked.Server``), so no figure loads them again."""
    import io

    with rc_context(_RC):
        fig = _figure(1.0, 1.0)
        fig.subplots().set_title("warm")
        _freeze(fig)
        for ext in FORMATS:  # into memory, never a file (files go through boundary.files.write_figure)
            fig.canvas.print_figure(io.BytesIO(), format=ext, dpi=10, metadata=_META[ext])


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


def _depth_rows(metrics: pd.DataFrame) -> pd.DataFrame:
    """The grouping == "depth" rows of the metrics frame, depth as int."""
    rows = metrics[metrics["grouping"] == "depth"]
    return rows.assign(depth=rows["depth"].astype(int))


@_styled
def heatmap_figure(
    metrics: pd.DataFrame,
    conditions: Sequence[str],
    primary: str,
    labels: Mapping[str, str] | None = None,
    titles: bool = True,
) -> Figure:
    """Figure 1 from the grouping == "depth" rows (R, Q, E estimates) of the metrics frame."""
    rows = _depth_rows(metrics)
    columns = heatmap_columns(rows, primary)
    estimate = dict(zip(zip(rows["condition"], rows["cohort"], rows["depth"], rows["metric"]), rows["estimate"]))
    names = _labels(conditions, labels)
    widths = np.array([GUTTER_WIDTH if c is None else 1.0 for c in columns])
    edges = np.concatenate([[0.0], np.cumsum(widths)])
    centers = edges[:-1] + widths / 2
    shown = [j for j, c in enumerate(columns) if c is not None]
    n_rows = len(conditions)
    row_h = _row_height(names, 0.2)
    fig = _figure(WIDE, n_rows * row_h + (1.35 if titles else 1.1))
    grid = fig.add_gridspec(2, len(HEAT_METRICS), height_ratios=[n_rows * row_h, 0.09])
    first = None
    cells, bars = [], []
    for p, metric in enumerate(HEAT_METRICS):
        ax = fig.add_subplot(grid[0, p], sharey=first)
        first = first or ax
        values = np.array(
            [
                [np.nan if c is None else 100.0 * estimate.get((cond, *c, metric), np.nan) for c in columns]
                for cond in conditions
            ]
        ).reshape(n_rows, len(columns))
        low, high = heat_scale(values)
        norm = Normalize(low, high, clip=True)
        rgba = np.where(np.isnan(values)[..., None], UNDEFINED, CMAP(norm(np.nan_to_num(values))))
        rgba[:, [j for j, c in enumerate(columns) if c is None]] = (1.0, 1.0, 1.0, 0.0)  # the gutter
        ax.pcolormesh(edges, np.arange(n_rows + 1), rgba, edgecolors="white", linewidth=0.6)
        cells.append((ax, values, norm))
        ax.set_xlim(edges[0], edges[-1])
        ax.set_xticks(centers[shown], [str(columns[j][1]) for j in shown])
        ax.tick_params(length=0)
        ax.set_xlabel("certified depth d*")
        ax.set_title(f"{metric} (%)")
        ax.spines[:].set_visible(False)
        if p:
            ax.tick_params(labelleft=False)
        bar = fig.colorbar(
            ScalarMappable(norm=norm, cmap=CMAP), cax=fig.add_subplot(grid[1, p]), orientation="horizontal"
        )
        bar.set_ticks(np.linspace(low, high, 3), labels=[f"{t:.0f}" for t in np.linspace(low, high, 3)])
        bar.ax.tick_params(labelsize=6, length=2)
        bar.set_label("orange poorer, blue better; grey n/a", fontsize=6)
        bar.outline.set_linewidth(0.5)
        bars.append(bar.ax)
    first.set_yticks(np.arange(n_rows) + 0.5, names)
    first.set_ylim(n_rows, 0)  # the first condition on top
    others = sorted({c[0] for c in columns if c and c[0] != primary})
    gutter = f": {primary} cohort left of the gutter, {', '.join(others)} right" if None in columns else ""
    _title(fig, f"R, Q and E by certified depth{gutter}", titles)
    _freeze(fig)
    for cax in bars:  # 80% of the panel's width: end labels of neighbouring scales ("100", "0") stay apart
        box = cax.get_position()
        cax.set_position([box.x0 + 0.1 * box.width, box.y0, 0.8 * box.width, box.height])
    for ax, values, norm in cells:  # after the layout: the numbers' size fits the cells as laid out
        box = ax.get_window_extent()
        cell_pt = box.width / (edges[-1] - edges[0]) * 72 / fig.dpi
        size = min(CELL_FONT, 0.85 * cell_pt / 2.9, 0.8 * box.height / n_rows * 72 / fig.dpi)  # "100.0" ~ 2.9 em
        for i in range(n_rows):
            for j in shown:
                v = values[i, j]
                dark = not np.isnan(v) and abs(norm(v) - 0.5) > 0.35
                ax.text(
                    centers[j],
                    i + 0.5,
                    "n/a" if np.isnan(v) else f"{v:.1f}",
                    ha="center",
                    va="center",
                    fontsize=size,
                    color="white" if dark else "black",
                    gid="cell",
                )
    return fig


def figure1_heatmap(
    metrics: pd.DataFrame,
    conditions: Sequence[str],
    primary: str,
    stem: str | Path,
    labels: Mapping[str, str] | None = None,
    titles: bool = True,
    dpi: int = DPI,
) -> list[Path]:
    """Write Figure 1 to ``stem``.png/.svg/.pdf (returned in that order; ``dpi`` the PNG's); see
    ``heatmap_figure``."""
    return _save(heatmap_figure(metrics, conditions, primary, labels, titles), stem, dpi)


@_styled
def bars_figure(
    metrics: pd.DataFrame,
    conditions: Sequence[str],
    cohort: str,
    labels: Mapping[str, str] | None = None,
    titles: bool = True,
) -> Figure:
    """Figure 2 from the grouping == "pooled" rows of ``cohort`` in the metrics frame."""
    pooled = metrics[(metrics["grouping"] == "pooled") & (metrics["cohort"] == cohort)]
    table = pooled.set_index(["condition", "metric"])[["estimate", "lo", "hi"]]
    names = _labels(conditions, labels)
    y = np.arange(len(conditions))
    height = 0.38
    row_h = _row_height(names, 0.3)
    fig = _figure(NARROW, len(conditions) * row_h + (1.15 if titles else 0.85))
    ax = fig.subplots()
    for off, metric, style, name in (
        (-height / 2, "E", {"facecolor": "white", "hatch": "//////"}, "E, among completed outputs"),
        (height / 2, "SPE", {"facecolor": INK}, "SPE, all outputs"),
    ):
        est, lo, hi = table.reindex([(c, metric) for c in conditions]).to_numpy(float).T
        shown = np.nan_to_num(est)
        err = np.vstack([np.nan_to_num(np.clip(shown - lo, 0, None)), np.nan_to_num(np.clip(hi - shown, 0, None))])
        defined = ~np.isnan(est)  # no bar at all for n/a: a zero-width bar's edge would read as a 0
        ax.barh(
            (y + off)[defined],
            shown[defined],
            height,
            edgecolor=INK,
            linewidth=0.6,
            label=name,
            xerr=err[:, defined],
            capsize=2,
            error_kw={"elinewidth": 0.7, "capthick": 0.7},
            **style,
        )
        _bar_notes(ax, y + off, est, hi, height, metric)
    ax.set_yticks(y, names)
    ax.set_ylim(len(conditions) - 0.5, -0.5)
    ax.tick_params(axis="y", length=0)
    ax.set_xlim(0, 1.03)  # room for the cap of an interval that ends at 1
    ax.set_xticks(np.linspace(0, 1, 5), ["0", "0.25", "0.5", "0.75", "1"])
    ax.set_xlabel("estimate with 95% interval")
    ax.spines[["top", "right"]].set_visible(False)
    ax.spines["left"].set_position(("outward", 3))  # off the bars' zero: a zero's stub is not hidden under it
    fig.legend(loc="outside lower center", ncol=2, frameon=False, handlelength=1.2, columnspacing=1.0)
    _title(fig, f"Economy E and joint SPE, {cohort} cohort", titles)
    _freeze(fig)
    return fig


def _bar_notes(ax, rows: np.ndarray, est: np.ndarray, hi: np.ndarray, height: float, metric: str) -> None:
    """What a bar's length cannot show: a zero as a stub at 0 with its value, a bar too short to see with its
    value beside its interval, an undefined value as ``n/a`` on its own row."""
    for yi, v, top in zip(rows, est, hi):
        if np.isnan(v):
            why = "no completed plan" if metric == "E" else "no outputs"
            ax.text(0.012, yi, f"{metric} n/a ({why})", va="center", fontsize=6, color=INK)
            continue
        if v == 0:
            ax.plot(
                [0, 0],
                [yi - height / 2, yi + height / 2],
                color=INK,
                linewidth=2.0,
                solid_capstyle="butt",
                clip_on=False,
            )
        if v < SMALL:
            ax.text(
                max(v, np.nan_to_num(top, nan=v)) + 0.015,
                yi,
                "0" if v == 0 else f"{v:.3f}",
                va="center",
                fontsize=6,
                color=INK,
            )


def figure2_bars(
    metrics: pd.DataFrame,
    conditions: Sequence[str],
    cohort: str,
    stem: str | Path,
    labels: Mapping[str, str] | None = None,
    titles: bool = True,
    dpi: int = DPI,
) -> list[Path]:
    """Write Figure 2 to ``stem``.png/.svg/.pdf (returned in that order; ``dpi`` the PNG's); see ``bars_figure``."""
    return _save(bars_figure(metrics, conditions, cohort, labels, titles), stem, dpi)


def _ratio_ticks(ax, values: np.ndarray) -> None:
    """y from 0 to at least 1, ticks inside the limits (none left over outside the view)."""
    finite = values[np.isfinite(values)]
    top = max(1.0, math.ceil(finite.max() * 4) / 4) if finite.size else 1.0
    ticks = MaxNLocator(4).tick_values(0, top)
    ax.set_ylim(-0.03 * top, 1.03 * top)  # markers at 0 or at the top stay whole
    ax.set_yticks(ticks[(ticks >= 0) & (ticks <= top + 1e-9)])


@_styled
def trajectory_figure(
    trajectory: pd.DataFrame,
    conditions: Sequence[str],
    primary: str,
    labels: Mapping[str, str] | None = None,
    titles: bool = True,
    positions: Mapping[str, str] | None = None,
) -> Figure:
    """Figure 3 from ``trajectories.trajectory_frame``: its depth rows of the ``primary`` cohort; a panel more per
    failure position of the domain's (``Domain.failure_positions``) the frame has, beside the first illegal move's."""
    panels = list(TRAJECTORY_PANELS)
    for column, name in (positions or {}).items():
        at_dstar = position_columns(column)[2]
        if at_dstar in trajectory.columns:
            panels.insert(1, (at_dstar, f"{name} / d*\n(plans with one)"))
    rows = trajectory[(trajectory["cohort"] == primary) & (trajectory["depth"] != "all")]
    rows = rows.assign(depth=rows["depth"].astype(int)).set_index(["condition", "depth"])
    depths = sorted(set(rows.index.get_level_values("depth")))
    names = _labels(conditions, labels, 28)  # a legend entry has more room than a row label
    ncol = max(1, min(len(conditions), 3))
    legend_h = math.ceil(len(conditions) / ncol) * _row_height(names, 0.15)
    fig = _figure(WIDE, 2.1 + legend_h + (0.25 if titles else 0.0))
    axes = fig.subplots(1, len(panels))
    for ax, (column, header) in zip(axes, panels):
        values = rows[column].reindex(pd.MultiIndex.from_product([conditions, depths])).to_numpy(float)
        values = values.reshape(len(conditions), len(depths))
        for i, name in enumerate(names):
            ax.plot(
                depths,
                values[i],
                color=COLORS[i % len(COLORS)],
                marker=MARKERS[i % len(MARKERS)],
                linestyle=DASHES[i % len(DASHES)],
                linewidth=1.0,
                markersize=3.5,
                label=name,
            )
        ax.set_xticks(depths, [str(d) for d in depths])
        if depths:  # the same limits in a panel with no data
            pad = 0.06 * (depths[-1] - depths[0]) or 1.0
            ax.set_xlim(depths[0] - pad, depths[-1] + pad)
        _ratio_ticks(ax, values)
        ax.set_title(header)
        ax.set_xlabel("certified depth d*")
        ax.spines[["top", "right"]].set_visible(False)
    handles, texts = axes[0].get_legend_handles_labels()
    fig.legend(handles, texts, loc="outside lower center", ncol=ncol, frameon=False)
    _title(fig, f"Where plans fail, {primary} cohort", titles)
    _freeze(fig)
    return fig


def figure3_trajectories(
    trajectory: pd.DataFrame,
    conditions: Sequence[str],
    labels: Mapping[str, str] | None,
    primary: str,
    stem: str | Path,
    titles: bool = True,
    dpi: int = DPI,
    positions: Mapping[str, str] | None = None,
) -> list[Path]:
    """Write Figure 3 to ``stem``.png/.svg/.pdf (returned in that order; ``dpi`` the PNG's); see
    ``trajectory_figure``."""
    return _save(trajectory_figure(trajectory, conditions, primary, labels, titles, positions), stem, dpi)


@_styled
def trend_figure(trend: pd.DataFrame, metric: str, cohort: str, titles: bool = True) -> Figure:
    """A run history's trend: ``metric`` per run label (in the order added), one line per condition,
    95% intervals as error bars (``history.History.trend`` rows of one cohort)."""
    rows = trend[trend["cohort"] == cohort]
    runs = list(dict.fromkeys(rows["label"]))
    conditions = list(dict.fromkeys(rows["condition"]))
    names = _labels(conditions, None, 28)
    fig = _figure(NARROW, 2.4 + math.ceil(len(conditions) / 2) * _row_height(names, 0.15) + (0.25 if titles else 0.0))
    ax = fig.subplots()
    x = np.arange(len(runs))
    for i, (cond, name) in enumerate(zip(conditions, names)):
        part = rows[rows["condition"] == cond].set_index("label").reindex(runs)
        est = part["estimate"].to_numpy(float)
        err = np.vstack(
            [np.clip(est - part["lo"].to_numpy(float), 0, None), np.clip(part["hi"].to_numpy(float) - est, 0, None)]
        )
        ax.errorbar(
            x,
            est,
            yerr=np.nan_to_num(err),
            color=COLORS[i % len(COLORS)],
            marker=MARKERS[i % len(MARKERS)],
            linestyle=DASHES[i % len(DASHES)],
            linewidth=1.0,
            markersize=3.5,
            capsize=2,
            label=name,
        )
    ax.set_xticks(x, [wrapped(r, 14) for r in runs])
    ax.set_ylabel(f"{plain(metric)} (95% interval)")
    ax.spines[["top", "right"]].set_visible(False)
    handles, texts = ax.get_legend_handles_labels()
    fig.legend(handles, texts, loc="outside lower center", ncol=min(2, max(1, len(conditions))), frameon=False)
    _title(fig, f"{plain(metric)} across runs, {plain(cohort)} cohort", titles)
    _freeze(fig)
    return fig


def figure_trend(
    trend: pd.DataFrame, metric: str, cohort: str, stem: str | Path, titles: bool = True, dpi: int = PRINT_DPI
) -> list[Path]:
    """Write the trend figure to ``stem``.png/.svg/.pdf (``dpi`` the PNG's); see ``trend_figure``."""
    return _save(trend_figure(trend, metric, cohort, titles), stem, dpi)
