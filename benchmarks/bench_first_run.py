"""A first run on a fresh kernel cache beside a warm run: the cold/warm ratio of ``score`` (the demo's 6,000
answers), ``demo`` and ``solve`` (a one-move board), each command in its own process as a user runs it.

Run with ``python -m benchmarks.bench_first_run [REPEATS]`` (prints a table of medians) or
``python -m pytest benchmarks/bench_first_run.py -s`` (slow: a few minutes on 2 cores). Each repeat gives each
command a new empty ``NUMBA_CACHE_DIR`` (cold), then runs it again on that folder (warm); the ratio is of the
medians. Targets (issue 37, 2 cores): score within 5x warm, demo within 2.5x, solve within 10 s.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from benchmarks.timing import target

ONE_MOVE = ["solve", "--board", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15"]
TARGETS = {"score": ("ratio", 5.0), "demo": ("ratio", 2.5), "solve": ("cold seconds", 10.0)}


def _seconds(argv: list[str], cache: Path, cwd: Path) -> tuple[float, str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "FASTSPE_NUMBA_CACHE": "1"}
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "fastspe", *argv], env=env, cwd=cwd, capture_output=True, text=True)
    took = time.perf_counter() - start
    assert proc.returncode == 0, proc.stderr[-2000:]
    return took, proc.stderr


def _commands(work: Path) -> dict[str, list[str]]:
    return {
        "score": [
            "score",
            "--bank",
            "answers/bank.parquet",
            "--responses",
            "answers/responses.jsonl",
            "--out",
            "verdicts.parquet",
        ],
        "demo": ["demo", "--out", "demo-out"],
        "solve": ONE_MOVE,
    }


def measure(repeats: int = 1) -> dict[str, dict[str, float]]:
    """Median cold and warm seconds and their ratio per command; each cold run also checks that it said it was
    compiling and each warm run that it did not."""
    with tempfile.TemporaryDirectory(prefix="fastspe-first-run-") as tmp:
        work = Path(tmp)
        _seconds(["demo", "--out", "answers", "--draws", "10"], work / "setup-cache", work)  # the answers to score
        times: dict[str, dict[str, list[float]]] = {}
        for r in range(repeats):
            for name, argv in _commands(work).items():
                cache = work / f"cache-{name}-{r}"
                cold, said = _seconds(argv, cache, work)
                assert "compiling fastspe's kernels" in said, said[-500:]
                warm, said = _seconds(argv, cache, work)
                assert "compiling fastspe's kernels" not in said, said[-500:]
                shutil.rmtree(cache)
                times.setdefault(name, {"cold": [], "warm": []})
                times[name]["cold"].append(cold)
                times[name]["warm"].append(warm)
    out = {}
    for name, t in times.items():
        cold, warm = statistics.median(t["cold"]), statistics.median(t["warm"])
        out[name] = {"cold": cold, "warm": warm, "ratio": cold / warm}
    return out


def _table(result) -> str:
    lines = [f"{'command':8} {'cold s':>8} {'warm s':>8} {'ratio':>7}"]
    lines += [f"{name:8} {r['cold']:8.1f} {r['warm']:8.2f} {r['ratio']:6.1f}x" for name, r in result.items()]
    return "\n".join(lines)


@pytest.mark.slow
def test_first_run_on_a_fresh_cache_beside_a_warm_run():
    result = measure(int(os.environ.get("FASTSPE_FIRST_RUN_REPEATS", "1")))
    print("\n" + _table(result))
    for name, (kind, limit) in TARGETS.items():
        value = result[name]["ratio" if kind == "ratio" else "cold"]
        target(value <= limit, f"first {name}: {kind} {value:.1f} (target {limit})")


if __name__ == "__main__":
    print(_table(measure(int(sys.argv[1]) if len(sys.argv) > 1 else 1)))
