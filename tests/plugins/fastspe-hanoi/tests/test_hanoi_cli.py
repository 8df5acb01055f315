"""The domain end to end through fastspe's command line, found by its entry point alone."""

from __future__ import annotations

import json

import pytest

from fastspe.cli import main
from fastspe_hanoi import DOMAIN
from hanoi_helpers import needs_entry_point

pytestmark = needs_entry_point


def test_domains_lists_the_plugin(capsys):
    assert main(["domains"]) == 0
    out = capsys.readouterr().out
    assert "hanoi" in out and "fastspe-hanoi" in out and "fastspe_hanoi:DOMAIN" in out


def test_solve_one_state_and_a_file(tmp_path, capsys):
    assert main(["solve", "--domain", "hanoi", "--start", "CAB", "--rule", "adjacent"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "length": 11,
        "moves": "CB,BA,BC,AB,BC,AB,CB,BA,BC,AB,BC",
        "start": "CAB",
        "rule": "adjacent",
    }
    assert main(["solve", "--domain", "sliding", "--start", "CAB"]) == 2
    assert "--start is an option of the hanoi domain: add --domain hanoi" in capsys.readouterr().err
    given = tmp_path / "in.jsonl"
    given.write_text('{"id": "a", "start": "AAA"}\n{"id": "b", "start": "AXA"}\n')
    assert main(["solve", "--domain", "hanoi", "--input", str(given), "--out", str(tmp_path / "out.jsonl")]) == 1
    a, b = (json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines())
    assert a["length"] == 7 and a["rule"] == "classic" and "id 'b': start must be" in b["error"]


@pytest.mark.slow
def test_bank_run_score_metrics_report_compare(tmp_path, capsys):
    bank, verdicts = str(tmp_path / "b.parquet"), str(tmp_path / "v.parquet")
    assert main(["bank", "build", "--domain", "hanoi", "--out", bank]) == 0
    assert main(["bank", "verify", bank]) == 0
    assert "ok: all 32 states verified" in capsys.readouterr().out
    logs = []
    for planner in DOMAIN.planners:
        logs += ["--responses", str(tmp_path / f"{planner}.jsonl")]
        assert main(["run", "--bank", bank, "--model", f"baseline:{planner}", "--out", logs[-1]]) == 0
    assert main(["score", "--bank", bank, *logs, "--out", verdicts]) == 0
    assert (
        main(["metrics", "--verdicts", verdicts, "--by", "cohort,condition,disks", "--out", str(tmp_path / "m.csv")])
        == 0
    )
    assert (
        main(
            [
                "report",
                "--bank",
                bank,
                "--verdicts",
                verdicts,
                "--out",
                str(tmp_path / "report"),
                "--draws",
                "200",
                "--no-figures",
            ]
        )
        == 0
    )
    report = (tmp_path / "report" / "report.md").read_text()
    assert "Primary completion percentages by disks" in report and "illegal\\_forbidden\\_move" in report
    assert (
        main(
            [
                "compare",
                "--bank",
                bank,
                "--verdicts",
                verdicts,
                "--baseline",
                "baseline:greedy",
                "--draws",
                "200",
                "--out",
                str(tmp_path / "compare"),
            ]
        )
        == 0
    )


@pytest.mark.slow
def test_demo(tmp_path, capsys):
    assert main(["demo", "--domain", "hanoi", "--out", str(tmp_path), "--draws", "200"]) == 0
    assert "baseline:oracle │ 1.000 │ 1.000 │ 1.000" in capsys.readouterr().out


# ---- the commands that read a scored bank ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    folder = tmp_path_factory.mktemp("scored")
    bank, log, verdicts = (str(folder / name) for name in ("b.parquet", "r.jsonl", "v.parquet"))
    assert main(["bank", "build", "--domain", "hanoi", "--out", bank]) == 0
    assert main(["run", "--bank", bank, "--model", "baseline:random", "--out", log]) == 0
    assert main(["score", "--bank", bank, "--responses", log, "--out", verdicts]) == 0
    return bank, log, verdicts


def test_bank_show(scored):
    assert main(["bank", "show", scored[0]]) == 0


def test_show_html(scored, tmp_path):
    bank, _, verdicts = scored
    assert (
        main(
            [
                "show",
                "--bank",
                bank,
                "--verdicts",
                verdicts,
                "--board",
                "primary-n3-classic-d7-000",
                "--trial",
                "0",
                "--html",
                str(tmp_path / "t.html"),
            ]
        )
        == 0
    )


def test_verdicts_verify(scored, capsys):
    bank, log, verdicts = scored
    assert main(["verdicts", "verify", "--bank", bank, "--responses", log, "--verdicts", verdicts]) == 0


def test_the_contracts_default_demo_bank():
    from fastspe.domains.contract import Domain

    assert Domain.demo_bank(DOMAIN).num_rows == 32
