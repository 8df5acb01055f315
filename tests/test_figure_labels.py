"""No figure cuts a label at the canvas edge at any dpi its files are written at: text does not scale with the dpi
exactly, so a label laid out at 100 dpi can be wider at 150 (Figure 2 once drew "laude Sonnet 4.5")."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from matplotlib import rc_context  # noqa: E402
from matplotlib.text import Text  # noqa: E402
from PIL import Image  # noqa: E402

from fastspe.report import figures  # noqa: E402

NAMES = [
    "Claude Sonnet 4.5",
    "GPT-5 mini",
    "Claude Opus 4.1 (thinking: 16k)",
    "Gemini 2.5 Pro Experimental",
    "Averyveryverylongmodelnamewithnospaces40",
    "Qwen3 235B A22B Instruct 2507",
]


def metrics_frame(names) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for c in names:
        for m in ("E", "SPE", "R", "Q"):
            v = float(rng.uniform(0.1, 0.9))
            rows.append(
                dict(
                    grouping="pooled",
                    cohort="primary",
                    condition=c,
                    metric=m,
                    estimate=v,
                    lo=v - 0.05,
                    hi=v + 0.05,
                    depth="all",
                    k="all",
                )
            )
            for d in (10, 20):
                rows.append(
                    dict(
                        grouping="depth",
                        cohort="primary",
                        condition=c,
                        metric=m,
                        estimate=v,
                        lo=v,
                        hi=v,
                        depth=d,
                        k="all",
                    )
                )
    return pd.DataFrame(rows)


def trajectory_frame(names) -> pd.DataFrame:
    return pd.DataFrame(
        [
            dict(cohort="primary", depth=d, condition=c, fail_at_dstar=0.3, closest=0.5, revisit_rate=0.2)
            for c in names
            for d in (10, 20)
        ]
    )


BUILD = {
    "heatmap": lambda n: figures.heatmap_figure(metrics_frame(n), n, "primary"),
    "bars": lambda n: figures.bars_figure(metrics_frame(n), n, "primary"),
    "trajectories": lambda n: figures.trajectory_figure(trajectory_frame(n), n, "primary"),
}


@pytest.mark.parametrize("kind", list(BUILD))
@pytest.mark.parametrize("names", [NAMES[:1], NAMES[:3], NAMES])
def test_every_text_lies_inside_the_figure_at_every_dpi_its_files_use(kind, names):
    fig = BUILD[kind](names)
    with rc_context(figures._RC):  # as the files are drawn
        for dpi in (100, figures.DPI, figures.PRINT_DPI):
            fig.set_dpi(dpi)
            fig.canvas.draw()
            renderer = fig.canvas.get_renderer()
            texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
            assert any("Claude" in t.get_text() for t in texts)
            for t in texts:
                box = t.get_window_extent(renderer)
                assert box.x0 >= 0 and box.y0 >= 0, (dpi, t.get_text(), box)
                assert box.x1 <= fig.bbox.width and box.y1 <= fig.bbox.height, (dpi, t.get_text(), box)


def test_the_png_has_no_ink_on_its_edge_columns(tmp_path):
    paths = figures.figure2_bars(metrics_frame(NAMES[:3]), NAMES[:3], "primary", tmp_path / "f2")
    ink = np.asarray(Image.open(paths[0]).convert("L")) < 200
    assert ink.any()
    assert not ink[:, :2].any() and not ink[:, -2:].any()
