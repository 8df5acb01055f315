"""Every ``fastspe ...`` line of the code blocks of README and the docs runs as written and exits 0.

Each document's lines run as ``python -m fastspe ...`` in document order in one temporary folder (the bank a line
builds is the bank later lines read), on inputs prepared here under the names the documents use. README and the
tutorial start from those inputs alone, as a newcomer does; docs/index.md runs the whole pipeline, and every other
page starts from a copy of what it left (a bank, run logs, verdicts). Lines that call a model API run against
tests/fake_llm_server.py with a fake key (``OPENAI_BASE_URL`` / ``ANTHROPIC_BASE_URL`` point there, and
``http://localhost:8000`` becomes its address). ``[...]`` marks an optional part and is left out. The few lines that
cannot run here are in ``ILLUSTRATIVE``, each with its reason; pages whose lines are not run are in ``UNTESTED``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fake_llm_server import FakeLLMServer

ROOT = Path(__file__).resolve().parents[1]
KEY = "sk-fastspe-README-fake-k3y-0042"
PIPELINE = "docs/index.md"  # its files are where the other pages start
FRESH = (
    "README.md",
    "docs/tutorial.md",
    PIPELINE,
    "docs/domains.md",
    "docs/how-to/sokoban-pushes.md",
)  # start from the prepared inputs alone
DOCUMENTS = (
    *FRESH,
    "docs/how-to/custom-design.md",
    "docs/how-to/run-models.md",
    "docs/how-to/batch.md",
    "docs/how-to/inspect.md",
    "docs/how-to/show.md",
    "docs/how-to/solver.md",
    "docs/how-to/sokoban.md",
    "docs/how-to/dask.md",
    "docs/how-to/regressions.md",
    "docs/explanation/metrics.md",
    "docs/explanation/verified.md",
    "docs/prompts.md",
    "docs/ci.md",
    "docs/sokoban-design.md",
)
# pages with ``fastspe`` lines that are not run, and why
UNTESTED: dict[str, str] = {"docs/how-to/hub.md": "tests/test_hub_docs.py runs its lines and checks what they print"}

# a line containing the key: what is run instead ("--help": its command's --help; None: skipped), and why
ILLUSTRATIVE = {
    "--scheduler tcp://head:8786": ("--help", "names a Dask cluster that exists only in the example"),
    "--workers 8": ("--help", "starts 8 worker processes: too many for a test; tests/test_distributed.py runs 2"),
    "--heuristic 7-8": ("--help", "builds the 7-8 tables (minutes, 288 MB); tests/test_pdb_sweep.py builds stand-ins"),
    "logs/<log>.eval": (None, "needs an inspect_ai log; tests/test_cli_import_inspect.py and test_inspect_task.py"),
    "rushhour": (None, "a domain docs/domains.md imagines; tests/test_plugin_domain.py runs the Hanoi plugin"),
    "--board ID": (None, "ID stands for a board id of the reader's bank"),
}


def document_commands(document: str) -> list[list[str]]:
    """The ``fastspe`` lines of a document's bash blocks as argument lists, continuation lines joined, comments
    and optional ``[...]`` parts dropped."""
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", (ROOT / document).read_text(), flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.strip()
            if line.startswith("fastspe "):
                commands.append(shlex.split(re.sub(r"\s*\[[^\]]*\]", "", line), comments=True))
    return commands


def readme_commands() -> list[list[str]]:
    return document_commands("README.md")


COMMANDS = {document: document_commands(document) for document in DOCUMENTS}


def test_the_documents_have_the_commands_this_test_prepares_for():
    every = [c for commands in COMMANDS.values() for c in commands]
    assert len(every) >= 60 and len(COMMANDS["README.md"]) >= 6 and len(COMMANDS["docs/tutorial.md"]) >= 8
    assert ["solve", "--board", "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3", "--goal", "blank-first"] in [
        c[1:] for c in every
    ]
    used = {key for key in ILLUSTRATIVE if any(key in shlex.join(c) for c in every)}
    assert used == set(ILLUSTRATIVE), "an ILLUSTRATIVE entry no line needs any more"


def test_every_page_with_commands_is_run_or_says_why_not():
    pages = ["README.md"] + sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md"))
    unplaced = [p for p in pages if document_commands(p) and p not in DOCUMENTS and p not in UNTESTED]
    assert not unplaced, f"pages whose fastspe lines no test runs: add them to DOCUMENTS (or UNTESTED): {unplaced}"


def _json_block(marker: str) -> str:
    """The JSON example of README or the docs that holds ``marker`` (a design the commands name)."""
    for document in DOCUMENTS:
        for block in re.findall(r"```json\n(.*?)```", (ROOT / document).read_text(), flags=re.S):
            if marker in block:
                json.loads(block)
                return block
    raise AssertionError(f"no JSON example holds {marker}")


def _prepare(folder: Path) -> None:
    (folder / "my-design.json").write_text(_json_block('"cells": [{"cohort": "primary", "blocks"'))
    (folder / "sokoban-design.json").write_text(_json_block('"boxes"'))
    (folder / "level.xsb").write_text("#######\n#@ $ .#\n#######\n")
    # Microban's first five levels (tests/data/sokoban, CRLF as published), under the name the docs give the whole
    microban = (ROOT / "tests" / "data" / "sokoban" / "microban.txt").read_bytes()
    (folder / "Microban.txt").write_bytes(microban[: microban.index(b"; 6")])
    (folder / "levels.jsonl").write_text(
        '{"id": "a", "level": "#####\\n#@$.#\\n#####"}\n{"id": "b", "level": "#######\\n#@$ . #\\n# $ . #\\n#######"}\n'
    )
    (folder / "boards.jsonl").write_text(
        '{"id": "a", "rows": 3, "cols": 3, "blocks": [], "board": [1, 2, 3, 4, 5, 6, 7, 0, 8]}\n'
        '{"id": "b", "rows": 4, "cols": 4, "blocks": [5, 10], "board": [1, 2, 3, 4, 0, -1, 5, 6, 7, 8, -1, 9, 10, 11, '
        "12, 13]}\n"
    )


def _after(command: list[str], folder: Path, env: dict) -> None:
    """Inputs that later lines read, made once the paper bank exists: more.jsonl and answers.jsonl (another
    condition's answers, standing in for a second log and for an imported inspect_ai log)."""
    if command == ["fastspe", "bank", "build", "--out", "bank.parquet"] and not (folder / "more.jsonl").exists():
        for model, out in (("baseline:oracle", "more.jsonl"), ("baseline:detour", "answers.jsonl")):
            _fastspe(["run", "--bank", "bank.parquet", "--model", model, "--out", out], folder, env, check=True)


def _fastspe(args: list[str], folder: Path, env: dict, check: bool = False) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "fastspe", *args], cwd=folder, env=env, capture_output=True, text=True, timeout=600
    )
    if check:
        assert done.returncode == 0, done.stderr
    return done


def _run_document(document: str, folder: Path, server: FakeLLMServer) -> tuple[list[str], int]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "FASTSPE_PROGRESS": "off",
        "OPENAI_API_KEY": KEY,
        "ANTHROPIC_API_KEY": KEY,
        "OPENAI_BASE_URL": server.openai_url,
        "ANTHROPIC_BASE_URL": server.anthropic_url,
    }
    failures, ran = [], 0
    for command in COMMANDS[document]:
        text = shlex.join(command)
        illustrative = next((v for k, v in ILLUSTRATIVE.items() if k in text), None)
        args = [a.replace("http://localhost:8000", server.anthropic_url) for a in command[1:]]
        if illustrative is not None:
            if illustrative[0] is None:
                continue
            args = [a for a in args[:2] if not a.startswith("-")][:1] + ["--help"]
        done = _fastspe(args, folder, env)
        ran += 1
        if done.returncode != 0:
            failures.append(f"{document}: {text}\n  exit {done.returncode}: {done.stderr.strip()[-600:]}")
        _after(command, folder, env)
    return failures, ran


@pytest.fixture(scope="module")
def pipeline_folder(tmp_path_factory):
    """The folder docs/index.md's pipeline leaves (run once; its failures are its own test's)."""
    folder = tmp_path_factory.mktemp("pipeline")
    _prepare(folder)
    with FakeLLMServer(key=KEY) as server:
        _run_document(PIPELINE, folder, server)
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("document", DOCUMENTS)
def test_every_command_runs_as_written(document, tmp_path, request):
    if document in FRESH:
        _prepare(tmp_path)
    else:
        shutil.copytree(request.getfixturevalue("pipeline_folder"), tmp_path, dirs_exist_ok=True)
    with FakeLLMServer(key=KEY) as server:
        failures, ran = _run_document(document, tmp_path, server)
        assert not failures, "lines that fail:\n" + "\n".join(failures)
        assert ran >= 1
        if any(_sends(c) for c in COMMANDS[document]):
            assert server.count > 0  # the API lines reached the fake server


def _sends(command: list[str]) -> bool:
    """Whether a line runs a model API (not a dry run, not a baseline)."""
    model = command[command.index("--model") + 1] if "--model" in command else ""
    return command[1] == "run" and model.startswith(("openai", "anthropic")) and "--dry-run" not in command
