"""``fastspe import-inspect`` without inspect_ai: help, start-up cost and the missing-extra error.

These run where inspect_ai is not installed (CI); the import itself is tested in test_inspect_task.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from fastspe.cli import main
from fastspe.cli.import_inspect import MISSING_EXTRA

REPO = Path(__file__).resolve().parents[1]
PROBE = """
import sys
from fastspe.cli import main
code = main(["import-inspect", "--help"])
loaded = [m for m in ("inspect_ai", "pandas", "numba", "pyarrow", "matplotlib") if m in sys.modules]
assert not loaded, loaded
sys.exit(code)
"""


def test_help_names_the_options(capsys):
    assert main(["import-inspect", "--help"]) == 0
    out = capsys.readouterr().out
    for option in ("LOG", "--out", "--condition", "--keep-errors", "--allow-incomplete"):
        assert option in out
    assert main(["--help"]) == 0 and "import-inspect" in capsys.readouterr().out


def test_help_imports_neither_inspect_ai_nor_heavy_modules():
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-c", PROBE], env=env, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_without_inspect_ai_the_command_is_one_error_line(tmp_path, capsys, monkeypatch):
    # as if inspect_ai were not installed, whether or not it is here; the importer module is dropped from the
    # cache so that it is imported again (and fails)
    monkeypatch.setitem(sys.modules, "inspect_ai", None)
    monkeypatch.delitem(sys.modules, "fastspe.inspect_task", raising=False)
    log, out = tmp_path / "run.eval", tmp_path / "answers.jsonl"
    log.write_bytes(b"PK")
    assert main(["import-inspect", str(log), "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"error: {MISSING_EXTRA}\n" and captured.out == ""
    assert MISSING_EXTRA == "fastspe import-inspect needs inspect_ai: pip install 'fastspe[inspect]'"
    assert not out.exists()


def test_out_must_be_a_responses_file_and_not_the_log(tmp_path, capsys):
    log = tmp_path / "run.eval"
    log.write_bytes(b"PK")
    assert main(["import-inspect", str(log), "--out", str(tmp_path / "answers.txt")]) == 2
    assert "unknown file type '.txt'" in capsys.readouterr().err
    assert main(["import-inspect", str(log), "--out", str(log)]) == 2
    assert "is the same file as LOG" in capsys.readouterr().err
    assert log.read_bytes() == b"PK"


def test_score_of_an_eval_log_without_inspect_ai_is_one_error_line(tmp_path, capsys, monkeypatch):
    from fastspe.domains.sliding.bank.build import build_bank
    from fastspe.boundary.banks import write_bank
    from fastspe.domains.sliding.bank.design import paper_design

    write_bank(build_bank(paper_design()).iloc[:2], tmp_path / "bank.parquet")
    monkeypatch.setitem(sys.modules, "inspect_ai", None)
    monkeypatch.delitem(sys.modules, "fastspe.inspect_task", raising=False)
    log, out = tmp_path / "run.eval", tmp_path / "verdicts.parquet"
    log.write_bytes(b"PK")
    assert main(["score", "--bank", str(tmp_path / "bank.parquet"), "--responses", str(log), "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"error: {log}: scoring an inspect_ai .eval log needs inspect_ai: pip install 'fastspe[inspect]'\n"
    )
    assert not out.exists()
