"""The report directory: files, metrics.csv against compute_metrics, determinism, CLI."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from fastspe.report import figures
from fastspe.cli import main
from fastspe.stats.metrics import compute_metrics
from fastspe.domains.contract import STRATUM
from fastspe.report.write import METRICS_CSV_COLUMNS, write_report

from .naive_bootstrap import synthetic_verdicts

TABLES = [
    "table1_primary",
    "table2_outcomes",
    "table3_rates",
    "table4_blocks",
    "table5_stress",
    "table6_intervals",
    "by_depth",
    "h90",
    "format_audit",
    "trajectories",
    "paired_differences",
]
FIGURES = ["figure1_horizon_metrics", "figure2_economy_spe", "figure3_trajectories"]


@pytest.fixture(scope="module")
def verdicts():
    return synthetic_verdicts(seed=3, conditions=("alpha", "beta", "gamma"), per_cell=4)


@pytest.fixture(scope="module")
def bank(verdicts):
    return verdicts.drop_duplicates("board_id")[["board_id", "cohort", "k", "depth"]].reset_index(drop=True)


@pytest.fixture(scope="module")
def report(tmp_path_factory, bank, verdicts):
    out = tmp_path_factory.mktemp("report")
    return write_report(bank, verdicts, out, draws=300, seed=5)


def test_writes_every_file(report):
    out = report.parent
    assert report == out / "report.md"
    expected = {"metrics.csv", "report.md", "report.html"}
    expected |= {f"tables/{t}.{ext}" for t in TABLES for ext in ("csv", "md", "tex")}
    expected |= {f"figures/{f}.{ext}" for f in FIGURES for ext in ("png", "svg", "pdf")}
    written = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert written == expected  # and no temporary files left behind
    for name in expected:
        assert (out / name).stat().st_size > 0


def test_metrics_csv(report, verdicts):
    m = pd.read_csv(report.parent / "metrics.csv", dtype={"depth": str, "k": str})
    assert list(m.columns) == [("k" if c == STRATUM else c) for c in METRICS_CSV_COLUMNS]
    assert set(m["metric"]) == {"C", "I", "R", "Q", "E", "G", "O", "SPE", "Dc"}
    pooled = m[(m["depth"] == "all") & (m["k"] == "all")]
    ref = compute_metrics(verdicts, by=["cohort", "condition"]).melt(["cohort", "condition"], var_name="metric")
    merged = pooled.merge(ref, on=["cohort", "condition", "metric"], validate="one_to_one")
    assert len(merged) == len(pooled) == 2 * 3 * 9
    np.testing.assert_allclose(merged["estimate"], merged["value"], rtol=1e-12)
    by_depth = m[(m["depth"] != "all") & (m["k"] == "all")]
    assert set(by_depth["depth"]) == {"10", "20", "30", "40", "50", "60"}
    ref = compute_metrics(verdicts, by=["cohort", "condition", "depth"]).melt(
        ["cohort", "condition", "depth"], var_name="metric"
    )
    ref["depth"] = ref["depth"].astype(str)
    merged = by_depth.merge(ref, on=["cohort", "condition", "depth", "metric"], validate="one_to_one")
    np.testing.assert_allclose(merged["estimate"], merged["value"], rtol=1e-12)
    by_k = m[(m["k"] != "all") & (m["depth"] == "all")]
    assert set(by_k["k"]) == {"0", "1", "2", "3"}
    cells = m[(m["k"] != "all") & (m["depth"] != "all")]  # every stratum cell, for Table 4
    ref = compute_metrics(verdicts, by=["cohort", "condition", "k", "depth"]).melt(
        ["cohort", "condition", "k", "depth"], var_name="metric"
    )
    ref[["k", "depth"]] = ref[["k", "depth"]].astype(str)
    merged = cells.merge(ref, on=["cohort", "condition", "k", "depth", "metric"], validate="one_to_one")
    assert len(merged) == len(cells) == 20 * 3 * 9
    np.testing.assert_allclose(merged["estimate"], merged["value"], rtol=1e-12)
    n = m[m["metric"] == "C"].merge(ref[ref["metric"] == "N"], on=["cohort", "condition", "k", "depth"])
    assert (n["N"] == n["value"]).all()  # N is the group's output count
    defined = m["draws_used"] > 0
    assert (m["draws_used"] <= 300).all()
    tol = 1e-12
    assert ((m["lo"] <= m["estimate"] + tol) & (m["estimate"] <= m["hi"] + tol))[defined].all()


def test_depth_table_shows_only_the_depths_each_cohort_tests(report, verdicts):
    table = pd.read_csv(report.parent / "tables" / "by_depth.csv")
    tested = verdicts[["cohort", "depth"]].drop_duplicates()
    shown = table[["cohort", "depth"]].drop_duplicates()
    assert sorted(map(tuple, shown.values.tolist())) == sorted(map(tuple, tested.values.tolist()))
    assert table["N"].notna().all() and (table["N"] > 0).all()


def test_report_states_the_method(report):
    md = report.read_text()
    assert "300 stratified whole-board bootstrap draws, seed 5" in md
    assert "20 strata (cohort x k x depth), 4 boards each" in md
    assert "95% percentile intervals" in md and "all trials of a board go together" in md
    headings = re.findall(r"^### (.+)$", md, flags=re.M)
    assert headings[:3] == [
        "Figure 1: Three factors of SPE = R × Q × E across certified depths, one row per condition",
        "Figure 2: Conditional economy E and joint SPE on the primary cohort",
        "Figure 3: Where plans fail on the primary cohort, by certified depth",
    ]
    assert headings[3:9] == [
        r"Table 1: Primary results pooled over d\* ∈ {10, 20, 30, 40}",
        "Table 2: Mutually exclusive primary outcomes",
        "Table 3: Primary completion, optimal completion and illegal-plan percentages",
        "Table 4: Primary completion percentages by block count",
        "Table 5: Separate stress cohort",
        "Table 6: Primary 95% percentile intervals",
    ]
    assert len(headings) == len(FIGURES) + len(TABLES) and not set(headings) & set(TABLES)  # titles, not file names
    for name in TABLES:
        assert f"Files: `tables/{name}.csv`, `.md`, `.tex`." in md
    for src in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md):
        assert (report.parent / src).is_file()
    page = (report.parent / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and page.count("<table") == len(TABLES)
    assert '<h3 id="table1_primary">Table 1: Primary results pooled over d* ∈ {10, 20, 30, 40}</h3>' in page
    assert "<h3>Figure 2: Conditional economy E and joint SPE on the primary cohort</h3>" in page
    srcs = re.findall(r'<img src="([^"]+)"', page)
    assert len(srcs) == len(FIGURES) and all(not s.startswith("/") and (report.parent / s).is_file() for s in srcs)
    assert "seed 5" in page


def test_byte_identical_across_runs(report, tmp_path, bank, verdicts):
    again = write_report(bank, verdicts, tmp_path / "again", draws=300, seed=5)
    first, second = report.parent, again.parent
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    for rel in files:
        assert (first / rel).read_bytes() == (second / rel).read_bytes(), rel
    svg = (first / "figures" / f"{FIGURES[0]}.svg").read_text()
    assert "<dc:date>" not in svg


def test_figures_drawn_here_are_the_bytes_drawn_in_a_child(report, tmp_path, bank, verdicts, monkeypatch):
    from fastspe.report import forked

    monkeypatch.setattr(forked, "can_fork", lambda: False)
    here = write_report(bank, verdicts, tmp_path / "here", draws=300, seed=5).parent
    for name in FIGURES:
        for ext in ("png", "svg", "pdf"):
            rel = f"figures/{name}.{ext}"
            assert (here / rel).read_bytes() == (report.parent / rel).read_bytes(), rel


def test_a_figure_that_fails_leaves_no_report(tmp_path, bank, verdicts, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("figure 1 broke")

    monkeypatch.setattr(figures, "figure1_heatmap", broken)  # raised in the forked child, where there is one
    with pytest.raises(RuntimeError, match="figure 1 broke"):
        write_report(bank, verdicts, tmp_path / "rep", draws=20)
    assert not (tmp_path / "rep").exists() and not list(tmp_path.iterdir())


def test_another_seed_changes_intervals_not_estimates(report, tmp_path, bank, verdicts):
    other = write_report(bank, verdicts, tmp_path / "other", draws=300, seed=6)
    a = pd.read_csv(report.parent / "metrics.csv")
    b = pd.read_csv(other.parent / "metrics.csv")
    pd.testing.assert_series_equal(a["estimate"], b["estimate"])
    assert not a["lo"].equals(b["lo"])


def test_bad_inputs_write_nothing(tmp_path, bank, verdicts):
    out = tmp_path / "bad"
    with pytest.raises(ValueError, match="not in the bank"):
        write_report(bank.iloc[1:], verdicts, out, draws=10)
    moved = bank.assign(depth=np.where(bank.index == 0, 99, bank["depth"]))
    with pytest.raises(ValueError, match="depth"):
        write_report(moved, verdicts, out, draws=10)
    with pytest.raises(ValueError, match="draws"):
        write_report(bank, verdicts, out, draws=0)
    with pytest.raises(ValueError, match="lack columns"):
        write_report(bank, verdicts.drop(columns=["status"]), out, draws=10)
    assert not out.exists()


def test_heatmap_columns_and_scale():
    by_depth = pd.DataFrame({"cohort": ["stress", "primary", "primary", "stress"], "depth": [60, 20, 10, 50]})
    assert figures.heatmap_columns(by_depth, "primary") == [
        ("primary", 10),
        ("primary", 20),
        None,
        ("stress", 50),
        ("stress", 60),
    ]
    assert figures.heatmap_columns(by_depth[by_depth["cohort"] == "primary"], "primary") == [
        ("primary", 10),
        ("primary", 20),
    ]
    assert figures.heat_scale(np.array([95.0, np.nan, 99.0])) == (90.0, 100.0)
    assert figures.heat_scale(np.array([41.5, 100.0])) == (40.0, 100.0)
    assert figures.heat_scale(np.array([np.nan])) == (0.0, 100.0)


def test_cli_end_to_end(tmp_path):
    from fastspe.domains.sliding.bank.build import build_bank
    from fastspe.boundary.banks import write_bank
    from fastspe.domains.sliding.planners.baselines import baseline_responses
    from fastspe.domains.sliding.bank.design import paper_design
    from fastspe.scoring.score import score_responses, write_verdicts

    bank = build_bank(paper_design())
    responses = pd.concat([baseline_responses(bank, p) for p in ("oracle", "detour", "greedy")], ignore_index=True)
    write_bank(bank, tmp_path / "bank.parquet")
    write_verdicts(score_responses(bank, responses), tmp_path / "verdicts.parquet")
    args = [
        "report",
        "--bank",
        str(tmp_path / "bank.parquet"),
        "--verdicts",
        str(tmp_path / "verdicts.parquet"),
        "--out",
        str(tmp_path / "rep"),
        "--draws",
        "200",
        "--seed",
        "9",
    ]
    assert main(args) == 0
    m = pd.read_csv(tmp_path / "rep" / "metrics.csv")
    oracle = m[(m["condition"] == "baseline:oracle") & m["metric"].isin(["R", "Q", "E", "SPE"])]
    assert (oracle[["estimate", "lo", "hi"]] == 1.0).all().all()
    assert "200 stratified whole-board bootstrap draws, seed 9" in (tmp_path / "rep" / "report.md").read_text()
    assert main(args[:-4] + ["--draws", "0"]) == 2


def test_paired_table_is_the_same_in_chunks(report, tmp_path, bank, verdicts, monkeypatch):
    import fastspe.report.write as rp

    monkeypatch.setattr(rp, "PAIRS_PER_PASS", 1)
    chunked = write_report(bank, verdicts, tmp_path / "chunked", draws=300, seed=5)
    name = "tables/paired_differences.csv"
    assert (chunked.parent / name).read_bytes() == (report.parent / name).read_bytes()
    paired = pd.read_csv(report.parent / name)
    assert len(paired) == 2  # three conditions: two adjacent pairs


# ---- the report folder is built aside and swapped in whole -------------------------------------------------


def snapshot(folder) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def siblings(folder) -> list[str]:
    return sorted(p.name for p in folder.parent.iterdir())


def dead_pid() -> int:
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_failure_midway_leaves_the_old_report_untouched(tmp_path, bank, verdicts, monkeypatch):
    import fastspe.report.write as rp

    out = tmp_path / "rep"
    write_report(bank, verdicts, out, draws=50, seed=1)
    (out / "notes.txt").write_text("mine")
    before = snapshot(out)
    real, calls = rp.write_table_files, []

    def dies_on_the_third(table, folder):
        calls.append(table.name)
        if len(calls) == 3:
            raise RuntimeError("killed mid-way")
        return real(table, folder)

    monkeypatch.setattr(rp, "write_table_files", dies_on_the_third)
    with pytest.raises(RuntimeError, match="killed mid-way"):
        write_report(bank, verdicts, out, draws=50, seed=2)  # metrics.csv and two tables were already new
    assert len(calls) == 3
    assert snapshot(out) == before
    assert siblings(out) == ["rep"]  # no temporary folder left


def test_rerun_replaces_every_report_file_and_keeps_others(tmp_path, bank, verdicts):
    out = tmp_path / "rep"
    write_report(bank, verdicts, out, draws=50, seed=1)
    (out / "tables" / "from_an_old_version.csv").write_text("stale")
    (out / "bank.parquet").write_bytes(b"the demo's bank")
    first = snapshot(out)
    write_report(bank, verdicts, out, draws=50, seed=2)
    second = snapshot(out)
    assert "tables/from_an_old_version.csv" not in second
    assert second["bank.parquet"] == b"the demo's bank"
    assert first["metrics.csv"] != second["metrics.csv"] and b"seed 2" in second["report.md"]
    assert siblings(out) == ["rep"]


def test_fresh_nested_folder(tmp_path, bank, verdicts):
    path = write_report(bank, verdicts, tmp_path / "a" / "b", draws=20, seed=1)
    assert path == tmp_path / "a" / "b" / "report.md" and path.is_file()
    assert siblings(path.parent) == ["b"]


def test_leftovers_of_a_dead_report_writer_are_removed(tmp_path, bank, verdicts):
    from fastspe.boundary.files import remove_stale_temps

    out = tmp_path / "rep"
    pid = dead_pid()
    (tmp_path / f".rep.{pid}.0123456789ab.tmp" / "tables").mkdir(parents=True)
    write_report(bank, verdicts, out, draws=20, seed=1)
    assert siblings(out) == ["rep"]
    # killed between its two renames: the old report was set aside and is put back
    old = snapshot(out)
    out.rename(tmp_path / f".rep.{pid}.0123456789ab.old")
    remove_stale_temps(out)
    assert siblings(out) == ["rep"] and snapshot(out) == old


def test_folders_a_report_must_not_replace(tmp_path, bank, verdicts, monkeypatch):
    from pathlib import Path

    a_file = tmp_path / "file"
    a_file.write_text("x")
    user = tmp_path / "user"
    (user / "src").mkdir(parents=True)
    own_figures = tmp_path / "photos"
    (own_figures / "figures").mkdir(parents=True)
    (tmp_path / "here" / "deep").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "here" / "deep")
    for out, why in [
        (a_file, "not a folder"),
        (Path("/"), "root folder"),
        (Path.home(), "home folder"),
        (Path("."), "current folder"),
        (Path(".."), "above the current one"),
        (user, "holds src/"),
        (own_figures, "holds figures/"),
    ]:
        with pytest.raises(ValueError, match=why):
            write_report(bank, verdicts, out, draws=10)
    assert a_file.read_text() == "x" and sorted(p.name for p in user.iterdir()) == ["src"]


def test_user_text_stays_inert_in_every_output(tmp_path, bank):
    nasty = "=cmd|`x` <b>bold</b>\n$y$"
    v = synthetic_verdicts(seed=4, conditions=("plain", "other"), per_cell=2)
    v["condition"] = v["condition"].replace({"plain": nasty})
    report = write_report(bank, v, tmp_path / "rep", draws=20, seed=1)
    metrics_csv = (report.parent / "metrics.csv").read_text()
    assert "'=cmd|`x` <b>bold</b>" in metrics_csv and "\n=cmd" not in metrics_csv and ",=cmd" not in metrics_csv
    md = report.read_text()
    assert "<b>" not in md and "\\<b\\>bold\\</b\\>" in md
    assert "<b>bold" not in (report.parent / "report.html").read_text()


@pytest.mark.slow
def test_cli_paper_options_labels_titles_interval_cells_runs(tmp_path, capsys):
    from fastspe.domains.sliding.bank.build import build_bank
    from fastspe.boundary.banks import write_bank
    from fastspe.domains.sliding.bank.design import paper_design

    bank_path, log = tmp_path / "bank.parquet", tmp_path / "run.jsonl"
    write_bank(build_bank(paper_design()).iloc[::10].reset_index(drop=True), bank_path)
    for planner in ("oracle", "greedy", "noisy"):
        assert main(["run", "--bank", str(bank_path), "--model", f"baseline:{planner}", "--out", str(log)]) == 0
    verdicts = tmp_path / "v.parquet"
    assert main(["score", "--bank", str(bank_path), "--responses", str(log), "--out", str(verdicts)]) == 0
    labels = tmp_path / "labels.csv"
    labels.write_text("condition,label\nbaseline:noisy,Noisy $x_1$\nbaseline:oracle,Oracle\nbaseline:gone,Gone\n")
    base = ["report", "--bank", str(bank_path), "--verdicts", str(verdicts), "--draws", "100"]
    capsys.readouterr()
    assert (
        main(
            base
            + [
                "--out",
                str(tmp_path / "a"),
                "--labels",
                str(labels),
                "--interval-cells",
                "--runs",
                str(log),
                "--no-titles",
            ]
        )
        == 0
    )
    assert "1 labelled condition has no verdicts and is left out: 'baseline:gone'" in capsys.readouterr().err
    a = tmp_path / "a"
    t1 = pd.read_csv(a / "tables" / "table1_primary.csv")
    assert list(t1["condition"]) == ["Noisy $x_1$", "Oracle", "baseline:greedy"]  # file order, then the ranking
    assert {"SPE_lo", "SPE_hi", "Dc"} <= set(t1.columns)
    md = (a / "tables" / "table1_primary.md").read_text()
    assert r"1.000 \[1.000, 1.000\]" in md and r"Noisy \$x\_1\$" in md  # brackets literal, not a link
    tex = (a / "tables" / "table1_primary.tex").read_text()
    assert r"Noisy \$x\_1\$" in tex and r"\toprule" in tex
    runs = pd.read_csv(a / "tables" / "run_stats.csv")
    assert (
        list(runs["condition"]) == ["Noisy $x_1$", "Oracle", "baseline:greedy"] and (runs["answers"] == 120).all()
    )  # 40 boards x 3 trials
    assert set(pd.read_csv(a / "metrics.csv")["condition"]) == {"baseline:noisy", "baseline:oracle", "baseline:greedy"}
    svg = (a / "figures" / "figure2_economy_spe.svg").read_text()
    assert main(base + ["--out", str(tmp_path / "b"), "--labels", str(labels), "--dpi", "300"]) == 0
    titled = (tmp_path / "b" / "figures" / "figure2_economy_spe.svg").read_text()
    assert len(titled) > len(svg)  # the title's glyphs are drawn only with titles
    from PIL import Image

    for folder, dpi in (("a", 150), ("b", 300)):  # 150 unless asked
        with Image.open(tmp_path / folder / "figures" / "figure2_economy_spe.png") as png:
            assert png.info["dpi"][0] == pytest.approx(dpi, abs=0.5) and png.size[0] == 3.5 * dpi
    assert main(base + ["--out", str(tmp_path / "d"), "--dpi", "5"]) == 2
    assert "--dpi: must be a whole number in 20..1,200, got '5'" in capsys.readouterr().err
    assert (tmp_path / "b" / "tables" / "table1_primary.csv").read_bytes() == (
        a / "tables" / "table1_primary.csv"
    ).read_bytes()
    assert not (tmp_path / "b" / "tables" / "run_stats.csv").exists()
    clash = tmp_path / "clash.json"
    clash.write_text('{"baseline:noisy": "baseline:oracle"}')
    assert main(base + ["--out", str(tmp_path / "c"), "--labels", str(clash)]) == 2
    assert "would both be shown as 'baseline:oracle'" in capsys.readouterr().err and not (tmp_path / "c").exists()


def test_one_report_checks_its_verdicts_once(tmp_path, bank, verdicts, monkeypatch):
    """A DataFrame is checked once where it enters; checked Verdicts read with the same bank not at all;
    the trajectory summary feeds the table and Figure 3 from one computation."""
    from fastspe.boundary import verdicts as bv
    from fastspe.report import write

    calls = {"check_verdicts": 0, "check_metric_inputs": 0, "check_against_bank": 0, "trajectory_frame": 0}

    def counted(module, name):
        real = getattr(module, name)

        def wrapper(*args, **kwargs):
            calls[name] += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, wrapper)

    checked = bv.check_verdicts(verdicts, bank=bank)
    for name in ("check_verdicts", "check_against_bank"):
        counted(bv, name)
    counted(bv, "check_metric_inputs")
    monkeypatch.setattr("fastspe.stats.metrics.check_metric_inputs", bv.check_metric_inputs)
    counted(write, "trajectory_frame")
    write_report(bank, verdicts, tmp_path / "raw", draws=20, seed=1, figures=False)
    assert calls == {"check_verdicts": 1, "check_metric_inputs": 0, "check_against_bank": 0, "trajectory_frame": 1}
    write_report(bank, checked, tmp_path / "checked", draws=20, seed=1, figures=False)
    assert calls == {"check_verdicts": 1, "check_metric_inputs": 0, "check_against_bank": 0, "trajectory_frame": 2}
    write_report(bank.copy(), checked, tmp_path / "other_bank", draws=20, seed=1, figures=False)
    assert calls["check_against_bank"] == 1 and calls["check_verdicts"] == 1  # another bank object: checked
    for name in ("metrics.csv", "report.md"):
        assert (tmp_path / "raw" / name).read_bytes() == (tmp_path / "checked" / name).read_bytes()
