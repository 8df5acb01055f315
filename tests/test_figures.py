"""Figures 1-3 and the trajectory frame: layout (no clipped or colliding text), labels, titles, bytes."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from matplotlib.cbook import is_math_text  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from fastspe.report import figures  # noqa: E402
from fastspe.report.trajectories import TRAJECTORY_COLUMNS, trajectory_frame  # noqa: E402

POLICIES = ("oracle", "greedy", "detour", "noisy", "random")
# worst cases: 40 characters, a word too long for a line, user text that looks like math, unicode
LONG = [
    "Sonnet-Überlänge 5.5 (reasoning: high) x",
    "Averyveryverylongmodelnamewithnospaces40",
    "GPT $5$ mini_v2 — temperature 0.7 – nine",
    "Ünïcödé Möđel ☃ with a longer name here!",
]


def long_name(i: int) -> str:
    return f"{i:02d} {LONG[i % len(LONG)]}"[:40]


@pytest.fixture(scope="module")
def scored():
    """Paper-design verdicts and metrics of the five baselines, the conditions named ``b0``..``b4``."""
    from fastspe.domains.sliding.bank.build import build_bank
    from fastspe.domains.sliding.planners.baselines import baseline_responses
    from fastspe.domains.sliding.bank.design import paper_design
    from fastspe.stats.intervals import bootstrap_intervals
    from fastspe.stats.metrics import board_sums
    from fastspe.scoring.score import score_responses

    bank = build_bank(paper_design())
    answers = pd.concat(
        [baseline_responses(bank, p, trials=3).assign(condition=f"b{i}") for i, p in enumerate(POLICIES)],
        ignore_index=True,
    )
    verdicts = score_responses(bank, answers)
    return verdicts, bootstrap_intervals(board_sums(verdicts), draws=200)


def renamed(frame: pd.DataFrame, names) -> pd.DataFrame:
    """``frame`` with one copy of a baseline's rows per name (the baselines in turn)."""
    return pd.concat(
        [frame[frame["condition"] == f"b{i % len(POLICIES)}"].assign(condition=name) for i, name in enumerate(names)],
        ignore_index=True,
    )


@pytest.fixture(scope="module")
def inputs(scored):
    """(metrics, trajectory, keys) for n conditions keyed ``c00``.. (labels are given separately)."""
    verdicts, metrics = scored

    def make(n: int):
        keys = [f"c{i:02d}" for i in range(n)]
        return renamed(metrics, keys), trajectory_frame(renamed(verdicts, keys)), keys

    return make


BUILDERS = {
    "heatmap": lambda m, t, conds, labels, titles: figures.heatmap_figure(m, conds, "primary", labels, titles),
    "bars": lambda m, t, conds, labels, titles: figures.bars_figure(m, conds, "primary", labels, titles),
    "trajectories": lambda m, t, conds, labels, titles: figures.trajectory_figure(t, conds, "primary", labels, titles),
}


def drawn_texts(fig) -> list[Text]:
    fig.canvas.draw()  # tick labels take their places at draw time
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]


def check_layout(fig) -> None:
    """Every text inside the canvas, no two texts overlapping; a heatmap's numbers inside their cells."""
    renderer = fig.canvas.get_renderer()
    texts = drawn_texts(fig)
    canvas = fig.bbox
    eps = 0.5  # pixels, at 100 dpi
    boxes = []
    for t in texts:
        box = t.get_window_extent(renderer)
        assert box.x0 >= canvas.x0 - eps and box.x1 <= canvas.x1 + eps, t.get_text()
        assert box.y0 >= canvas.y0 - eps and box.y1 <= canvas.y1 + eps, t.get_text()
        if t.get_gid() == "cell":
            x, y = t.get_position()
            (cx0, cy0), (cx1, cy1) = t.axes.transData.transform([(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)])
            assert min(cx0, cx1) <= box.x0 and box.x1 <= max(cx0, cx1), t.get_text()
            assert min(cy0, cy1) <= box.y0 and box.y1 <= max(cy0, cy1), t.get_text()
        else:
            boxes.append((t.get_text(), box))
    for (a, p), (b, q) in itertools.combinations(boxes, 2):
        overlap_x = min(p.x1, q.x1) - max(p.x0, q.x0)
        overlap_y = min(p.y1, q.y1) - max(p.y0, q.y0)
        assert overlap_x <= eps or overlap_y <= eps, (a, b)


def test_layout_check_catches_clipped_and_colliding_text(inputs):
    metrics, trajectory, keys = inputs(2)
    for x, y in ((0.995, 0.5), (None, None)):
        fig = figures.bars_figure(metrics, keys, "primary")
        ax = fig.axes[0]
        if x is None:  # on top of the first condition's label
            label = ax.get_yticklabels()[0]
            fig.canvas.draw()
            x, y = fig.transFigure.inverted().transform(label.get_window_extent().get_points().mean(axis=0))
        fig.text(x, y, "a text in the way")
        with pytest.raises(AssertionError):
            check_layout(fig)


def unwrapped(text: str) -> str:
    """A drawn label back as the user wrote it (spaces and line breaks aside)."""
    return "".join(text.replace(r"\$", "$").split())


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(BUILDERS))
@pytest.mark.parametrize("n, titles", [(12, True), (12, False), (7, True), (1, True), (1, False)])
def test_layout_keeps_text_inside_and_apart(inputs, kind, n, titles):
    metrics, trajectory, keys = inputs(n)
    labels = {k: long_name(i) for i, k in enumerate(keys)}
    fig = BUILDERS[kind](metrics, trajectory, keys, labels, titles)
    check_layout(fig)
    width, height = fig.get_size_inches()
    assert width <= (3.5 if kind == "bars" else 7.0) and height <= 9.0


@pytest.mark.parametrize("kind", list(BUILDERS))
def test_labels_drawn_literally_never_keys(inputs, kind):
    metrics, trajectory, keys = inputs(len(LONG))
    labels = dict(zip(keys, LONG))
    texts = [t.get_text() for t in drawn_texts(BUILDERS[kind](metrics, trajectory, keys, labels, True))]
    assert not any(is_math_text(t) for t in texts)  # "$5$" is not typeset as math
    drawn = {unwrapped(t) for t in texts}
    assert {unwrapped(label) for label in LONG} <= drawn
    assert not drawn & set(keys)


@pytest.mark.parametrize("kind", list(BUILDERS))
def test_keys_drawn_when_no_labels(inputs, kind):
    metrics, trajectory, keys = inputs(3)
    names = ["plain $x$ key", "under_score", "ünï ☃"]
    metrics, trajectory = (f.replace({"condition": dict(zip(keys, names))}) for f in (metrics, trajectory))
    texts = drawn_texts(BUILDERS[kind](metrics, trajectory, names, None, True))
    assert not any(is_math_text(t.get_text()) for t in texts)
    assert {unwrapped(n) for n in names} <= {unwrapped(t.get_text()) for t in texts}


@pytest.mark.parametrize("kind", list(BUILDERS))
def test_titles_flag(inputs, kind):
    metrics, trajectory, keys = inputs(2)
    with_title = BUILDERS[kind](metrics, trajectory, keys, None, True)
    assert "primary" in with_title.get_suptitle()
    bare = BUILDERS[kind](metrics, trajectory, keys, None, False)
    assert bare.get_suptitle() == ""
    assert not any("primary" in t.get_text() for t in drawn_texts(bare))  # no headline left anywhere


def test_heatmap_numbers_come_from_the_metrics_frame(inputs):
    metrics, trajectory, keys = inputs(2)
    row = (
        (metrics["grouping"] == "depth")
        & (metrics["condition"] == "c01")
        & (metrics["metric"] == "Q")
        & (metrics["cohort"] == "stress")
        & (metrics["depth"] == 60)
    )
    assert row.sum() == 1
    metrics = metrics.copy()
    metrics.loc[row, "estimate"] = 0.123456
    fig = figures.heatmap_figure(metrics, keys, "primary")
    q = next(ax for ax in fig.axes if ax.get_title() == "Q (%)")
    cells = {(round(t.get_position()[0], 3), round(t.get_position()[1], 3)): t.get_text() for t in q.texts}
    columns = figures.heatmap_columns(metrics[metrics["grouping"] == "depth"], "primary")
    x = sum(0.35 if c is None else 1.0 for c in columns[: columns.index(("stress", 60))]) + 0.5
    assert cells[(round(x, 3), 1.5)] == "12.3"
    assert len(q.texts) == 2 * (len(columns) - 1)  # every cell but the gutter's


def test_bars_and_lines_carry_the_numbers(inputs):
    metrics, trajectory, keys = inputs(3)
    fig = figures.bars_figure(metrics, keys, "primary")
    spe = metrics[(metrics["grouping"] == "pooled") & (metrics["cohort"] == "primary") & (metrics["metric"] == "SPE")]
    bars = next(c for c in fig.axes[0].containers if c.get_label() == "SPE, all outputs")
    widths = [p.get_width() for p in bars]
    np.testing.assert_allclose(widths, np.nan_to_num(spe.set_index("condition").loc[keys, "estimate"]))
    fig = figures.trajectory_figure(trajectory, keys, "primary")
    closest = fig.axes[1]
    assert len(closest.lines) == len(keys)
    rows = trajectory[
        (trajectory["cohort"] == "primary") & (trajectory["condition"] == "c01") & (trajectory["depth"] != "all")
    ]
    np.testing.assert_allclose(closest.lines[1].get_ydata(), rows["closest"], equal_nan=True)
    styles = {(ln.get_color(), ln.get_marker(), ln.get_linestyle()) for ln in closest.lines}
    assert len(styles) == len(keys)  # told apart by marker and dash too, not by colour alone


def test_bars_draw_a_zero_and_put_n_a_on_its_own_row(inputs):
    metrics, trajectory, keys = inputs(5)  # c04 answers as the random baseline: no completion, SPE = 0, E n/a
    fig = figures.bars_figure(metrics, keys, "primary")
    ax = fig.axes[0]
    pooled = metrics[(metrics["grouping"] == "pooled") & (metrics["cohort"] == "primary")].set_index(
        ["condition", "metric"]
    )["estimate"]
    assert pooled[("c04", "SPE")] == 0 and np.isnan(pooled[("c04", "E")])
    e_bars, spe_bars = (next(c for c in ax.containers if c.get_label().startswith(m)) for m in ("E,", "SPE,"))
    assert len(e_bars) == 4 and len(spe_bars) == 5  # no bar at all for an undefined E
    e_row, spe_row = 4 - 0.19, 4 + 0.19
    notes = {t.get_text(): t.get_position() for t in ax.texts}
    assert notes["E n/a (no completed plan)"][1] == pytest.approx(e_row)  # on E's row, not beside SPE
    assert notes["0"][1] == pytest.approx(spe_row) and notes["0"][0] > 0
    stubs = [ln for ln in ax.lines if list(ln.get_xdata()) == [0, 0]]
    assert len(stubs) == 1 and np.mean(stubs[0].get_ydata()) == pytest.approx(spe_row)  # the zero is drawn
    assert len([t for t in ax.texts if t.get_text() == "0"]) == 1  # only the zero bar is labelled
    check_layout(fig)


def _hue(color) -> tuple[float, float]:
    from matplotlib.colors import rgb_to_hsv, to_rgb

    h, s, v = rgb_to_hsv(to_rgb(color))
    return 360 * h, s * v  # hue in degrees, chroma


def test_one_meaning_per_colour_across_the_figures(inputs):
    """Orange and blue mean poorer and better (Figure 1) and nothing else; Figure 2's metrics and Figure 3's
    conditions are told apart without them, and conditions are never grey (undefined in Figure 1)."""

    def orange_or_blue(color) -> bool:
        hue, chroma = _hue(color)
        return chroma > 0.15 and (10 <= hue <= 50 or 190 <= hue <= 245)

    assert orange_or_blue(figures.ORANGE) and orange_or_blue(figures.BLUE)  # the test tells them
    for color in figures.COLORS:
        hue, chroma = _hue(color)
        assert not orange_or_blue(color) and (chroma > 0.15 or color == "#000000"), color
    metrics, trajectory, keys = inputs(7)
    bars = figures.bars_figure(metrics, keys, "primary")
    for patch in bars.axes[0].patches:
        assert not orange_or_blue(patch.get_facecolor()), patch.get_facecolor()
    lines = figures.trajectory_figure(trajectory, keys, "primary")
    assert not any(orange_or_blue(ln.get_color()) for ax in lines.axes for ln in ax.lines)
    heat = figures.heatmap_figure(metrics, keys, "primary")
    scales = [ax.get_xlabel() for ax in heat.axes if "poorer" in ax.get_xlabel()]
    assert scales == ["orange poorer, blue better; grey n/a"] * 3  # each panel's scale says what its colours mean


def test_three_formats_byte_identical_across_runs(inputs, tmp_path):
    metrics, trajectory, keys = inputs(3)
    labels = {k: long_name(i) for i, k in enumerate(keys)}
    runs = []
    for run in ("a", "b"):
        out = tmp_path / run
        runs.append(
            figures.figure1_heatmap(metrics, keys, "primary", out / "f1", labels, titles=False)
            + figures.figure2_bars(metrics, keys, "primary", out / "f2.v1", labels)
            + figures.figure3_trajectories(trajectory, keys, labels, "primary", out / "f3")
        )
    first, second = runs
    assert [p.name for p in first] == [f"{s}.{e}" for s in ("f1", "f2.v1", "f3") for e in ("png", "svg", "pdf")]
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == sorted(p.name for p in first)  # no temporaries
    for a, b in zip(first, second):
        assert a.read_bytes() == b.read_bytes(), a.name
    pdf = first[2].read_bytes()
    assert pdf.startswith(b"%PDF") and b"CreationDate" not in pdf and b"Matplotlib" not in pdf
    assert b"/FontFile2" in pdf  # TrueType fonts embedded, no Type 3
    assert b"<dc:date>" not in first[1].read_bytes()
    from PIL import Image

    with Image.open(first[0]) as png:
        assert png.info["dpi"][0] == pytest.approx(150, abs=0.5) and png.size[0] == 1050  # 7 in at 150 dpi


def test_dpi_is_the_png_resolution_only(inputs, tmp_path):
    from PIL import Image

    metrics, _, keys = inputs(3)
    low = figures.figure1_heatmap(metrics, keys, "primary", tmp_path / "low" / "f1")
    high = figures.figure1_heatmap(metrics, keys, "primary", tmp_path / "high" / "f1", dpi=300)
    with Image.open(low[0]) as png_low, Image.open(high[0]) as png_high:
        assert (png_low.size[0], png_high.size[0]) == (1050, 2100) and png_high.info["dpi"][0] == pytest.approx(
            300, abs=0.5
        )
    for a, b in zip(low[1:], high[1:]):  # SVG and PDF are vector files: the same bytes at any dpi
        assert a.read_bytes() == b.read_bytes(), a.name


def test_warm_draws_nothing_that_changes_the_bytes(inputs, tmp_path):
    metrics, _, keys = inputs(3)
    cold = figures.figure2_bars(metrics, keys, "primary", tmp_path / "cold" / "f2")
    figures.warm()
    warmed = figures.figure2_bars(metrics, keys, "primary", tmp_path / "warm" / "f2")
    assert [p.read_bytes() for p in cold] == [p.read_bytes() for p in warmed]


def test_trajectory_frame_by_hand():
    rows = [  # cohort, condition, depth, L, status, first_error, min_h, revisits, goal_midway
        ("p", "x", 10, 12, "complete", -1, 0, 0, False),
        ("p", "x", 10, 8, "illegal", 4, 3, 1, False),
        ("p", "x", 10, 0, "illegal", -1, 10, 0, False),  # a format failure: no plan, no position
        ("p", "x", 20, 30, "legal_noncompletion", -1, 5, 2, True),
        ("p", "x", 20, 5, "illegal", 2, 18, 0, False),
        ("s", "x", 50, 50, "complete", -1, 0, 0, True),
        ("p", "w", 10, 10, "complete", -1, 0, 0, False),
    ]
    verdicts = pd.DataFrame(
        rows, columns=["cohort", "condition", "depth", "L", "status", "first_error", "min_h", "revisits", "goal_midway"]
    )
    nan = np.nan
    expected = pd.DataFrame(
        [
            ("p", "w", 10, 1, 0, nan, nan, 0.0, nan, 0.0),
            ("p", "w", "all", 1, 0, nan, nan, 0.0, nan, 0.0),
            ("p", "x", 10, 3, 2, 4 / 8, 4 / 10, 1 / 3, (3 / 10 + 10 / 10) / 2, 0.0),
            ("p", "x", 20, 2, 1, 2 / 5, 2 / 20, 1 / 2, (5 / 20 + 18 / 20) / 2, 1 / 2),
            (
                "p",
                "x",
                "all",
                5,
                3,
                (4 / 8 + 2 / 5) / 2,
                (4 / 10 + 2 / 20) / 2,
                2 / 5,
                (3 / 10 + 10 / 10 + 5 / 20 + 18 / 20) / 4,
                1 / 5,
            ),
            ("s", "x", 50, 1, 0, nan, nan, 0.0, nan, 1.0),
            ("s", "x", "all", 1, 0, nan, nan, 0.0, nan, 1.0),
        ],
        columns=TRAJECTORY_COLUMNS,
    )
    got = trajectory_frame(verdicts)
    pd.testing.assert_frame_equal(got, expected, check_dtype=False)
    assert list(got["depth"]) == [10, "all", 10, 20, "all", 50, "all"]


def test_trajectory_frame_on_scored_verdicts(scored):
    verdicts, _ = scored
    frame = trajectory_frame(verdicts)
    depth_rows, pooled = frame[frame["depth"] != "all"], frame[frame["depth"] == "all"]
    assert depth_rows["outputs"].sum() == pooled["outputs"].sum() == len(verdicts)
    assert pooled["illegal"].sum() == (verdicts["status"] == "illegal").sum()
    oracle = frame[frame["condition"] == "b0"]  # the oracle completes every board on a shortest path
    assert (oracle["illegal"] == 0).all() and oracle["closest"].isna().all() and (oracle["revisit_rate"] == 0).all()
    ratios = frame[["fail_at_L", "closest", "revisit_rate", "goal_midway_rate"]].to_numpy(float)
    assert np.nanmin(ratios) >= 0 and np.nanmax(ratios) <= 1
