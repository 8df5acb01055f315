"""The linter and the formatter agree with the code (``[tool.ruff]`` in pyproject.toml says which rules and why)."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff") or "ruff"


def _ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([RUFF, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_ruff_check_passes():
    done = _ruff("check", ".", "--output-format", "concise")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_ruff_check_can_fail(tmp_path):
    """The check above is live: an unused import in a file it is pointed at is found."""
    probe = tmp_path / "probe.py"
    probe.write_text("import os\n")
    done = _ruff("check", str(probe), "--output-format", "concise")
    assert done.returncode == 1 and "F401" in done.stdout


def test_ruff_format_check_passes():
    done = _ruff("format", "--check", ".")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
