"""Baseline answers and verdicts are bit-identical whatever the Numba thread count."""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = """
import hashlib
import pandas as pd
from fastspe.bank import build_bank
from fastspe.baselines import PLANNERS, baseline_responses
from fastspe.design import paper_design
from fastspe.score import score_responses
bank = build_bank(paper_design())
answers = pd.concat([baseline_responses(bank, p, trials=2, seed=4) for p in PLANNERS], ignore_index=True)
verdicts = score_responses(bank, answers)
print(hashlib.sha256(answers.to_json().encode() + verdicts.to_json().encode()).hexdigest())
"""


def test_answers_and_verdicts_do_not_depend_on_threads():
    digests = set()
    for threads in ("1", "2"):
        env = dict(os.environ, NUMBA_NUM_THREADS=threads)
        out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True)
        digests.add(out.stdout.strip())
    assert len(digests) == 1 and len(digests.pop()) == 64
