"""docs/how-to/hub.md runs as written: its bash lines in a fresh folder, then its Python blocks, each ``print``
giving what the comment beside it says."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from fastspe.cli import main

pytest.importorskip("datasets")  # in the test extra
PAGE = Path(__file__).resolve().parents[1] / "docs" / "how-to" / "hub.md"


def blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S)


def printed(code: str) -> list[str]:
    """What the comments beside a block's ``print`` calls say it prints (up to a `` (`` remark)."""
    return [
        re.sub(r" \(.*$", "", line.split("# ", 1)[1]).strip()
        for line in code.splitlines()
        if line.startswith("print(") and "# " in line
    ]


@pytest.mark.slow
def test_the_hub_page_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (bash,) = blocks("bash")
    for line in bash.splitlines():
        assert main(shlex.split(line)[1:]) == 0, line
    code = blocks("python")
    assert len(code) == 3
    for block in code:
        done = subprocess.run([sys.executable, "-c", block], cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
        lines = [ln for ln in done.stdout.splitlines() if ln.strip()]
        assert lines == printed(block), block


def test_the_page_names_the_upload_and_the_faces():
    text = PAGE.read_text(encoding="utf-8")
    assert "huggingface-cli upload" in text and "RewardScorer" in text and "score_answer" in text
    assert printed("print(x)  # 1.0 (a remark)") == ["1.0"]
