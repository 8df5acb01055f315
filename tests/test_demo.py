"""``fastspe demo`` end to end through the CLI: files, headline and what each baseline must score."""

from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pandas as pd
import pytest

from fastspe.cli import main
from fastspe.stats.metrics import compute_metrics

PLANNERS = ["oracle", "greedy", "detour", "noisy", "random"]


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo") / "out"
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(["demo", "--out", str(out), "--draws", "500"])
    return out, code, buf.getvalue()


def metrics_of(out):
    verdicts = pd.read_parquet(out / "verdicts.parquet")
    m = compute_metrics(verdicts[verdicts["cohort"] == "primary"], by=("condition",))
    return verdicts, m.set_index("condition")


@pytest.mark.slow
def test_demo_writes_every_file(demo):
    out, code, printed = demo
    assert code == 0
    for name in ("bank.parquet", "responses.jsonl", "verdicts.parquet", "report.md", "report.html", "metrics.csv"):
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
    for folder in ("tables", "figures"):
        assert (out / folder).is_dir() and any((out / folder).iterdir()), folder
    lines = (out / "responses.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 400 * 3 * len(PLANNERS)
    first = json.loads(lines[0])
    assert first["response"].startswith("MOVES: ") and first["condition"].startswith("baseline:")
    assert len(pd.read_parquet(out / "bank.parquet")) == 400
    assert len(pd.read_parquet(out / "verdicts.parquet")) == len(lines)
    metrics_csv = pd.read_csv(out / "metrics.csv")
    assert metrics_csv.astype(str).apply(lambda col: col.str.contains("baseline:random")).any().any()
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "baseline:detour" in report


@pytest.mark.slow
def test_demo_prints_report_path_and_headline(demo):
    out, _, printed = demo
    assert str(out / "report.md") in printed.replace("\n", "")
    for planner in PLANNERS:
        assert f"baseline:{planner}" in printed
    # best SPE first: the oracle heads the table
    rows = [line for line in printed.splitlines() if "baseline:" in line]
    assert "baseline:oracle" in rows[0]


@pytest.mark.slow
def test_demo_baselines_score_as_designed(demo):
    out, _, _ = demo
    verdicts, m = metrics_of(out)
    oracle, greedy, detour = m.loc["baseline:oracle"], m.loc["baseline:greedy"], m.loc["baseline:detour"]
    noisy, random = m.loc["baseline:noisy"], m.loc["baseline:random"]
    for name in ("R", "Q", "E", "SPE", "C", "O"):
        assert oracle[name] == pytest.approx(1.0), name
    assert oracle["G"] == pytest.approx(0.0)
    # detour: always legal and complete, but wasteful
    assert detour["C"] == pytest.approx(1.0) and detour["R"] == pytest.approx(1.0)
    assert detour["E"] < 1 and detour["G"] > 0 and detour["SPE"] == pytest.approx(detour["E"])
    # greedy: never illegal, sometimes stuck, and its completions are optimal
    assert greedy["I"] == 0 and 0 < greedy["Q"] < 1 and greedy["E"] == pytest.approx(1.0)
    # noisy: a mix of all three outcomes
    assert 0 < noisy["C"] < 1 and noisy["I"] > 0
    # random: mostly illegal
    assert random["I"] > 0.8 and random["SPE"] < 0.05
    # SPE = R x Q x E wherever C > 0
    for cond, row in m.iterrows():
        if row["C"] > 0:
            assert row["SPE"] == pytest.approx(row["R"] * row["Q"] * row["E"]), cond
    # statuses of the verdict file agree with the metrics
    det = verdicts[verdicts["condition"] == "baseline:detour"]
    assert (det["status"] == "complete").all() and (det["excess"] > 0).all()
    assert np.isin(verdicts["status"].unique(), ["complete", "legal_noncompletion", "illegal"]).all()


def test_demo_rejects_bad_arguments(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["demo", "--out", str(blocker)]) == 2
    assert "not a folder" in capsys.readouterr().err
    assert main(["demo", "--out", str(tmp_path / "d"), "--draws", "0"]) == 2
