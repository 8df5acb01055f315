"""Run a script in fresh interpreters at several Numba thread counts (determinism tests)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def digests_by_thread_count(script: str, counts=("1", "2")) -> dict[str, str]:
    """``{threads: digest}`` from ``script``, which prints ``numba.get_num_threads()`` and a digest.

    The printed thread count is checked, so a test cannot pass by running one count twice.
    """
    digests = {}
    for threads in counts:
        env = {**os.environ, "NUMBA_NUM_THREADS": threads, "PYTHONPATH": str(ROOT)}
        res = subprocess.run(
            [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
        )
        assert res.returncode == 0, res.stderr
        got_threads, digest = res.stdout.split()
        assert got_threads == threads
        digests[threads] = digest
    return digests
