"""`fastspe --help` and `--version` start fast: they import neither pandas, numba, pyarrow, matplotlib nor dask."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("pandas", "numba", "pyarrow", "matplotlib", "dask", "distributed")
PROBE = """
import sys
from fastspe.cli import main
try:
    code = main({argv!r})
except SystemExit as exc:  # argparse's own exit, should main let it through
    code = exc.code
heavy = [m for m in {heavy!r} if m in sys.modules]
assert not heavy, heavy
sys.exit(code)
"""


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["--version"],
        [],
        ["run", "--help"],
        ["bank", "build", "--help"],
        ["score", "--help"],
        ["metrics", "--help"],
        ["report", "--help"],
        ["demo", "--help"],
        ["compare", "--help"],
        ["solve", "--help"],
        ["show", "--help"],
        ["run", "--bank", "b.jsonl", "--model", "openai:x", "--out", "r.jsonl", "--trials", "0"],
    ],
)
def test_help_version_and_bad_options_import_no_heavy_module(argv):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.format(argv=argv, heavy=HEAVY)],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode in (0, 2) and "AssertionError" not in proc.stderr, proc.stderr


def test_cli_defaults_match_the_library():
    from fastspe import demo
    from fastspe.stats import intervals
    from fastspe.cli import demo as cli_demo
    from fastspe.cli import report as cli_report

    assert (cli_report.DEFAULT_DRAWS, cli_report.DEFAULT_SEED) == (intervals.DEFAULT_DRAWS, intervals.DEFAULT_SEED)
    from fastspe.report import figures

    assert cli_report.DEFAULT_DPI == figures.DPI
    assert (cli_demo.DEFAULT_OUT, cli_demo.DEMO_DRAWS, cli_demo.DEMO_SEED) == (
        demo.DEFAULT_OUT,
        demo.DEMO_DRAWS,
        demo.DEMO_SEED,
    )


@pytest.mark.parametrize(
    "command, given, expected",
    [
        (["bank", "build"], None, "0"),
        (["bank", "build"], "250", "250"),
        (["report"], None, "0"),
        ([], None, "0"),
        (["score"], None, "unset"),
        (["score"], "250", "250"),
    ],
)
def test_the_cli_asks_pyarrow_pool_to_hand_freed_pages_back_before_pyarrow_loads(command, given, expected):
    """``fastspe`` sets ``MIMALLOC_PURGE_DELAY`` (a streamed build's peak is otherwise the pages mimalloc keeps,
    and a report's forks copy their tables) before anything has loaded pyarrow, where mimalloc reads it; ``score``
    keeps mimalloc's reuse; a value the user set stays."""
    env = {k: v for k, v in os.environ.items() if k != "MIMALLOC_PURGE_DELAY"}
    env["PYTHONPATH"] = str(REPO)
    if given is not None:
        env["MIMALLOC_PURGE_DELAY"] = given
    probe = (
        "import os, sys\nimport fastspe.cli\nassert 'pyarrow' not in sys.modules\n"
        "print(os.environ.get('MIMALLOC_PURGE_DELAY', 'unset'))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe, *command], env=env, cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == expected


CLUSTER_FIRST = """
import contextlib, sys
import {module} as where
from fastspe.cli import main

@contextlib.contextmanager
def starting(*args, **kwargs):  # (records what was imported when the workers were asked for; scores in-process)
    print(sorted(m for m in {heavy!r} if m in sys.modules))
    yield None

where.{name} = starting
sys.exit(main(["score", "--bank", "missing.parquet", "--responses", "r.jsonl", "--out", "v.parquet", *{option!r}]))
"""


@pytest.mark.parametrize(
    "module, name, option",
    [
        ("fastspe.workers.pool", "process_pool", ["--workers", "2"]),
        ("fastspe.distributed", "cluster_in_background", ["--scheduler", "tcp://127.0.0.1:1"]),
    ],
)
def test_score_with_workers_starts_its_cluster_before_the_heavy_imports(module, name, option):
    """The workers' forkserver imports pandas and Numba (and Dask, for a cluster) on the other core while this
    program imports its own: a heavy import before the start (pandas, for checking the output's name) made the
    whole command wait for it."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    script = CLUSTER_FIRST.format(module=module, name=name, heavy=HEAVY, option=option)
    proc = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert proc.stdout.splitlines()[:1] == ["[]"], proc.stdout + proc.stderr
    assert "missing.parquet" in proc.stderr  # (then it went on to read the bank, in-process)
