"""The Python examples of README and the Python how-to run as written, after ``fastspe demo`` (slow tier).

A block that scores a reader's own answers (``board_ids, texts`` stand for them) is only compiled.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = ("README.md", "docs/how-to/python.md")


def python_blocks(page: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (ROOT / page).read_text(), flags=re.S)


def test_every_page_has_python_examples():
    assert all(python_blocks(page) for page in PAGES)


@pytest.fixture(scope="module")
def demo_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("python-examples")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "FASTSPE_PROGRESS": "off"}
    subprocess.run([sys.executable, "-m", "fastspe", "demo"], cwd=folder, env=env, check=True, capture_output=True)
    return folder, env


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_python_examples_run(page, demo_folder):
    folder, env = demo_folder
    for i, block in enumerate(python_blocks(page)):
        compile(block, f"{page} block {i + 1}", "exec")
        if re.search(r"^r = scorer\(board_ids, texts\)", block, flags=re.M):
            continue  # the reader's own answers
        done = subprocess.run(
            [sys.executable, "-c", block], cwd=folder, env=env, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, f"{page} block {i + 1}:\n{done.stderr[-2000:]}"
