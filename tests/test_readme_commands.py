"""Every ``fastspe ...`` line of README's code blocks runs as written and exits 0.

Each line runs as ``python -m fastspe ...`` in one temporary folder, in README order (the bank the first line
builds is the bank later lines read), on inputs prepared here under the names README uses. Lines that call
a model API run against tests/fake_llm_server.py with a fake key (``OPENAI_BASE_URL`` / ``ANTHROPIC_BASE_URL``
point there, and README's ``http://localhost:8000`` becomes its address). ``[...]`` marks an optional part and
is left out. The few lines that cannot run here are in ``ILLUSTRATIVE``, each with its reason.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fake_llm_server import FakeLLMServer

ROOT = Path(__file__).resolve().parents[1]
KEY = "sk-fastspe-README-fake-k3y-0042"

# a README line containing the key: what is run instead ("--help": its command's --help; None: skipped), and why
ILLUSTRATIVE = {
    "--scheduler tcp://head:8786": ("--help", "names a Dask cluster that exists only in the example"),
    "--workers 8": ("--help", "starts 8 worker processes: too many for a test; tests/test_distributed.py runs 2"),
    "--heuristic 7-8": ("--help", "builds the 7-8 tables (minutes, 288 MB); tests/test_pdb_sweep.py builds stand-ins"),
    "logs/<log>.eval": (None, "needs an inspect_ai log; tests/test_cli_import_inspect.py and test_inspect_task.py"),
}


def readme_commands() -> list[list[str]]:
    """The ``fastspe`` lines of README's bash blocks as argument lists, continuation lines joined, comments
    and optional ``[...]`` parts dropped."""
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.strip()
            if line.startswith("fastspe "):
                commands.append(shlex.split(re.sub(r"\s*\[[^\]]*\]", "", line), comments=True))
    return commands


COMMANDS = readme_commands()


def test_the_readme_has_the_commands_this_test_prepares_for():
    assert len(COMMANDS) >= 25
    assert ["solve", "--board", "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3", "--goal", "blank-first"] in \
        [c[1:] for c in COMMANDS]
    used = {key for key in ILLUSTRATIVE if any(key in shlex.join(c) for c in COMMANDS)}
    assert used == set(ILLUSTRATIVE), "an ILLUSTRATIVE entry no README line needs any more"


def _design() -> str:
    """README's design example, the one it calls my-design.json."""
    blocks = re.findall(r"```json\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
    design = next(b for b in blocks if '"cells"' in b)
    json.loads(design)
    return design


def _sokoban_design() -> str:
    """README's Sokoban design example, the one it calls sokoban-design.json."""
    blocks = re.findall(r"```json\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
    design = next(b for b in blocks if '"boxes"' in b)
    json.loads(design)
    return design


def _prepare(folder: Path, env: dict) -> None:
    (folder / "my-design.json").write_text(_design())
    (folder / "sokoban-design.json").write_text(_sokoban_design())
    (folder / "level.xsb").write_text("#######\n#@ $ .#\n#######\n")
    # Microban's first five levels (tests/data/sokoban, CRLF as published), under the name README gives the whole
    microban = (ROOT / "tests" / "data" / "sokoban" / "microban.txt").read_bytes()
    (folder / "Microban.txt").write_bytes(microban[:microban.index(b"; 6")])
    (folder / "levels.jsonl").write_text('{"id": "a", "level": "#####\\n#@$.#\\n#####"}\n'
                                         '{"id": "b", "level": "#######\\n#@$ . #\\n# $ . #\\n#######"}\n')
    (folder / "boards.jsonl").write_text(
        '{"id": "a", "rows": 3, "cols": 3, "blocks": [], "board": [1, 2, 3, 4, 5, 6, 7, 0, 8]}\n'
        '{"id": "b", "rows": 4, "cols": 4, "blocks": [5, 10], "board": [1, 2, 3, 4, 0, -1, 5, 6, 7, 8, -1, 9, 10, 11, '
        '12, 13]}\n')


def _after(command: list[str], folder: Path, env: dict) -> None:
    """Inputs that later lines read, made once the bank exists: more.jsonl and answers.jsonl (another
    condition's answers, standing in for a second log and for an imported inspect_ai log)."""
    if command == ["fastspe", "bank", "build", "--out", "bank.parquet"]:
        for model, out in (("baseline:oracle", "more.jsonl"), ("baseline:detour", "answers.jsonl")):
            _fastspe(["run", "--bank", "bank.parquet", "--model", model, "--out", out], folder, env, check=True)


def _fastspe(args: list[str], folder: Path, env: dict, check: bool = False) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "fastspe", *args], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=600)
    if check:
        assert done.returncode == 0, done.stderr
    return done


@pytest.mark.slow
def test_every_readme_command_runs_as_written(tmp_path):
    with FakeLLMServer(key=KEY) as server:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "FASTSPE_PROGRESS": "off", "OPENAI_API_KEY": KEY,
               "ANTHROPIC_API_KEY": KEY, "OPENAI_BASE_URL": server.openai_url,
               "ANTHROPIC_BASE_URL": server.anthropic_url}
        _prepare(tmp_path, env)
        failures, ran = [], 0
        for command in COMMANDS:
            text = shlex.join(command)
            illustrative = next((v for k, v in ILLUSTRATIVE.items() if k in text), None)
            args = [a.replace("http://localhost:8000", server.anthropic_url) for a in command[1:]]
            if illustrative is not None:
                if illustrative[0] is None:
                    continue
                args = [a for a in args[:2] if not a.startswith("-")][:1] + ["--help"]
            done = _fastspe(args, tmp_path, env)
            ran += 1
            if done.returncode != 0:
                failures.append(f"{text}\n  exit {done.returncode}: {done.stderr.strip()[-600:]}")
            _after(command, tmp_path, env)
        assert not failures, "README lines that fail:\n" + "\n".join(failures)
        assert ran >= len(COMMANDS) - 1
        assert server.count > 0  # the API lines reached the fake server
