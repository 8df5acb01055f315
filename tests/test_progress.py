"""Progress display: plain periodic lines off a terminal, modes, stages, and the stages that report."""

from __future__ import annotations

import pandas as pd
import pytest

from fastspe.domains.sliding.bank.build import build_bank
from fastspe.cli import main
from fastspe.cli.progress import LineProgress, Stages, counts_text, progress
from fastspe.domains.sliding.bank.design import paper_design
from fastspe.domains.sliding.verify.bank import verify_bank


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def lines_of(total=None, every=5.0):
    clock, out = Clock(), []
    return LineProgress("score", total, "answers", every, out.append, clock), clock, out


def test_lines_come_every_interval_with_counts_rate_and_eta():
    lines, clock, out = lines_of(total=1000)
    lines(0)
    assert out == []  # nothing before the first interval: short stages stay silent
    clock.now += 5
    lines(250)
    clock.now += 1
    lines(300)  # within the interval: no line
    clock.now += 4
    lines(500, failed=2, rate_limited=3, spent_usd=0.125)
    lines.close()
    assert len(out) == 3
    assert out[0].startswith("score: 250/1,000 answers (25%), 50/s, elapsed 0:05, ETA 0:15")
    assert "500/1,000 answers (50%)" in out[1] and "ETA 0:10" in out[1]
    assert out[1].endswith("failed 2 · 429s 3 · $0.1250")
    assert "done in 0:10" in out[2] and "ETA" not in out[2]


def test_rate_and_eta_start_at_the_first_report_not_at_setup():
    lines, clock, out = lines_of(total=100_000)
    clock.now += 30  # reading and planning before anything is counted
    lines(2_000)
    clock.now += 5
    lines(12_000)
    assert "2,000/s" in out[-1] and "ETA 0:44" in out[-1]


def test_silent_when_the_stage_ends_before_the_first_interval():
    lines, clock, out = lines_of(total=10)
    lines(10)
    clock.now += 1
    lines.close()
    assert out == []


def test_a_failed_stage_says_stopped_not_done(monkeypatch, capsys):
    monkeypatch.setenv("FASTSPE_PROGRESS", "lines")
    monkeypatch.setenv("FASTSPE_PROGRESS_SECONDS", "0.000001")
    with pytest.raises(KeyboardInterrupt):
        with progress("build", 10, "boards") as update:
            update(4)
            raise KeyboardInterrupt
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("build: 4/10 boards (40%)") and "stopped after" in last and "done" not in last


def test_unknown_total_shows_count_and_rate():
    lines, clock, out = lines_of(total=None)
    clock.now += 6
    lines(1200)
    assert out == ["score: 1,200 answers, 200/s, elapsed 0:06"]


def test_counts_text_formats():
    assert counts_text({"answered": 1200, "retried": 0, "spent_usd": 2.5}) == "answered 1,200 · retried 0 · $2.5000"


def test_mode_off_and_lines_from_the_environment(monkeypatch, capsys):
    monkeypatch.setenv("FASTSPE_PROGRESS", "off")
    with progress("x", 3) as update:
        update(1, failed=1)
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("FASTSPE_PROGRESS", "lines")
    monkeypatch.setenv("FASTSPE_PROGRESS_SECONDS", "0.000001")
    with progress("stage", 3, "boards") as update:
        update(1)
        update(3)
    err = capsys.readouterr().err
    assert "stage: 3/3 boards (100%)" in err and "done in" in err


@pytest.mark.parametrize(
    "name, value",
    [("FASTSPE_PROGRESS", "sometimes"), ("FASTSPE_PROGRESS_SECONDS", "-1"), ("FASTSPE_PROGRESS_SECONDS", "soon")],
)
def test_bad_settings_are_refused_by_name(monkeypatch, name, value):
    monkeypatch.setenv("FASTSPE_PROGRESS", "lines")
    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=name):
        with progress("x", 1):
            pass


def test_stages_open_one_display_per_stage(monkeypatch, capsys):
    monkeypatch.setenv("FASTSPE_PROGRESS", "lines")
    monkeypatch.setenv("FASTSPE_PROGRESS_SECONDS", "0.000001")
    with Stages("report", {"bootstrap": "draws"}) as stage:
        stage("bootstrap", 500, 1000)
        stage("bootstrap", 1000, 1000)
        stage("figures", 1, 2)
    err = capsys.readouterr().err
    assert "report: bootstrap: 1,000/1,000 draws (100%)" in err
    assert err.index("report: bootstrap") < err.index("report: figures")


def test_verify_bank_reports_slices_and_finds_repeats_across_them(monkeypatch):
    import fastspe.domains.sliding.verify.bank as vb

    bank = build_bank(paper_design()).iloc[:60].reset_index(drop=True)
    monkeypatch.setattr(vb, "SLICE", 7)
    seen = []
    assert verify_bank(bank, progress=lambda done, total: seen.append((done, total))) == []
    assert seen[-1] == (60, 60) and len(seen) > 60 // 7
    assert all(a[0] < b[0] for a, b in zip(seen, seen[1:]))
    twin = bank.iloc[[3]].assign(board_id="twin")  # the same board as row 3, lands in a later slice
    failures = verify_bank(pd.concat([bank, twin], ignore_index=True))
    assert failures == [("twin", f"the same initial board as {bank['board_id'].iloc[3]}")]


@pytest.mark.slow
def test_cli_stages_print_lines_off_a_terminal(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FASTSPE_PROGRESS", "lines")
    monkeypatch.setenv("FASTSPE_PROGRESS_SECONDS", "0.000001")
    bank = tmp_path / "bank.parquet"
    assert main(["bank", "build", "--out", str(bank)]) == 0
    assert "bank build: 400/400 boards (100%)" in capsys.readouterr().err
    assert main(["bank", "verify", str(bank)]) == 0
    assert "bank verify: 400/400 boards (100%)" in capsys.readouterr().err
    responses = tmp_path / "r.jsonl"
    assert (
        main(["run", "--bank", str(bank), "--model", "baseline:greedy", "--out", str(responses), "--trials", "1"]) == 0
    )
    assert "run baseline:greedy: 400/400 trials (100%)" in capsys.readouterr().err
    verdicts = tmp_path / "v.parquet"
    assert main(["score", "--bank", str(bank), "--responses", str(responses), "--out", str(verdicts)]) == 0
    assert "score: 400 answers" in capsys.readouterr().err
    assert (
        main(
            [
                "report",
                "--bank",
                str(bank),
                "--verdicts",
                str(verdicts),
                "--out",
                str(tmp_path / "rep"),
                "--draws",
                "1200",
            ]
        )
        == 0
    )
    err = capsys.readouterr().err
    assert "report: bootstrap: 1,200/1,200 draws" in err
    assert "report: tables and figures:" in err


def test_no_eta_until_a_rate_is_measured_over_some_of_the_work():
    """A pattern-table build's first report counts 1 entry of millions and its first layers are tiny: an ETA
    from them read `ETA 3815:49:23`. None is shown until 1% of the work is done since the first report."""
    lines, clock, out = lines_of(total=11_531_520)
    lines(1)
    clock.now += 5
    lines(90)
    assert "ETA" not in out[-1] and out[-1].startswith("score: 90/11,531,520 answers (0%)")
    clock.now += 5
    lines(2_000_000)
    assert "ETA 0:48" in out[-1]  # (11.5M - 2M) at 200,000/s


def test_run_progress_says_what_failed_means_and_shows_no_cost_without_a_price():
    from fastspe.cli.run import RUN_UNIT, run_progress

    for priced, cost in ((False, ""), (True, " · $0.0300")):
        seen = []
        clock = Clock()
        lines = LineProgress("run openai:m", None, RUN_UNIT, 5.0, seen.append, clock)
        update = run_progress(lines, priced)
        update(0, 2, answered=0, failed=0, retried=0, rate_limited=0, spent_usd=0.0)
        clock.now += 6
        update(2, 2, answered=0, failed=2, retried=4, rate_limited=0, spent_usd=0.03)
        assert seen[-1] == (
            "run openai:m: 2/2 trials finished (100%), 0.33/s, elapsed 0:06, answered 0 · "
            f"without an answer 2 · retried 4 · 429s 0{cost}"
        )
