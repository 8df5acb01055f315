"""Optional dependencies: a command that needs a missing extra names it, before any work, with no traceback."""

from __future__ import annotations

import sys

import pytest

from fastspe import extras
from fastspe.domains.sliding.bank.build import build_bank
from fastspe.boundary.banks import write_bank
from fastspe.domains.sliding.planners.baselines import baseline_responses
from fastspe.cli import main
from fastspe.domains.sliding.bank.design import paper_design
from fastspe.boundary.files import write_table


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("extras")
    bank = build_bank(paper_design()).iloc[::40].reset_index(drop=True)
    write_bank(bank, folder / "bank.parquet")
    write_table(baseline_responses(bank, "greedy", trials=1), folder / "r.jsonl")
    assert (
        main(
            [
                "score",
                "--bank",
                str(folder / "bank.parquet"),
                "--responses",
                str(folder / "r.jsonl"),
                "--out",
                str(folder / "v.parquet"),
            ]
        )
        == 0
    )
    return folder


def missing(monkeypatch, *modules):
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)  # import raises ImportError, as when not installed


@pytest.mark.parametrize("provider, module", [("openai", "openai"), ("anthropic", "anthropic")])
def test_run_without_the_api_extra(files, tmp_path, monkeypatch, capsys, provider, module):
    missing(monkeypatch, module)
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    out = tmp_path / "r.jsonl"
    code = main(
        [
            "run",
            "--bank",
            str(files / "bank.parquet"),
            "--model",
            f"{provider}:m",
            "--base-url",
            "http://127.0.0.1:9",
            "--out",
            str(out),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and f"needs {module}, which is not installed: pip install 'fastspe[api]'" in err
    assert "Traceback" not in err and not out.exists()


def test_dry_run_needs_no_sdk(files, tmp_path, monkeypatch, capsys):
    missing(monkeypatch, "openai")
    assert (
        main(
            [
                "run",
                "--bank",
                str(files / "bank.parquet"),
                "--model",
                "openai:m",
                "--out",
                str(tmp_path / "r.jsonl"),
                "--dry-run",
            ]
        )
        == 0
    )
    assert "requests to send" in capsys.readouterr().out


def test_report_without_plots_fails_first_or_writes_tables_only(files, tmp_path, monkeypatch, capsys):
    missing(monkeypatch, "matplotlib")
    args = ["report", "--bank", str(files / "bank.parquet"), "--verdicts", str(files / "v.parquet"), "--draws", "50"]
    assert main(args + ["--out", str(tmp_path / "a")]) == 2
    err = capsys.readouterr().err
    assert "pip install 'fastspe[plots]'" in err and "--no-figures" in err and not (tmp_path / "a").exists()
    assert main(args + ["--out", str(tmp_path / "b"), "--no-figures"]) == 0
    report = (tmp_path / "b" / "report.md").read_text()
    assert "## Tables" in report and "## Figures" not in report and not (tmp_path / "b" / "figures").exists()


def test_demo_without_plots_stops_before_building(tmp_path, monkeypatch, capsys):
    missing(monkeypatch, "matplotlib")
    assert main(["demo", "--out", str(tmp_path / "demo")]) == 2
    assert "pip install 'fastspe[plots]'" in capsys.readouterr().err
    assert not (tmp_path / "demo").exists()


def test_a_broken_install_is_not_called_missing(tmp_path, monkeypatch):
    # the extra is there but its own import fails: that error is shown, not "install the extra"
    (tmp_path / "brokenpkg").mkdir()
    (tmp_path / "brokenpkg" / "__init__.py").write_text("import no_such_module_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(extras.EXTRA_OF, "brokenpkg", "api")
    with pytest.raises(ModuleNotFoundError, match="no_such_module_xyz"):
        extras.require("brokenpkg", "a test")
    with pytest.raises(extras.MissingExtra, match=r"fastspe\[api\]"):
        monkeypatch.setitem(extras.EXTRA_OF, "absentpkg_xyz", "api")
        extras.require("absentpkg_xyz", "a test")
