"""Baseline answers and verdicts are bit-identical whatever the Numba thread count."""

from __future__ import annotations

import pytest

from .threads import digests_by_thread_count

SCRIPT = """
import hashlib, numba
import pandas as pd
from fastspe.domains.sliding.bank.build import build_bank
from fastspe.domains.sliding.planners.baselines import PLANNERS, baseline_responses
from fastspe.domains.sliding.bank.design import paper_design
from fastspe.scoring.score import score_responses
bank = build_bank(paper_design())
answers = pd.concat([baseline_responses(bank, p, trials=2, seed=4) for p in PLANNERS], ignore_index=True)
verdicts = score_responses(bank, answers)
print(numba.get_num_threads(), hashlib.sha256(answers.to_json().encode() + verdicts.to_json().encode()).hexdigest())
"""


def test_answers_and_verdicts_do_not_depend_on_threads():
    digests = digests_by_thread_count(SCRIPT)
    assert digests["1"] == digests["2"] and len(digests["1"]) == 64


STREAM_SCRIPT = """
import hashlib, numba, tempfile, os
import pandas as pd
from fastspe.domains.sliding.bank.build import build_bank
from fastspe.boundary.banks import write_bank
from fastspe.domains.sliding.planners.baselines import PLANNERS, baseline_responses
from fastspe.boundary.banks import read_bank_table
from fastspe.domains.sliding.bank.design import paper_design
from fastspe.scoring.score import score_file
bank = build_bank(paper_design())
answers = pd.concat([baseline_responses(bank, p, trials=2, seed=4) for p in PLANNERS], ignore_index=True)
folder = tempfile.mkdtemp()
answers.to_json(os.path.join(folder, "a.jsonl"), orient="records", lines=True)
write_bank(bank, os.path.join(folder, "b.parquet"))
score_file(read_bank_table(os.path.join(folder, "b.parquet")), os.path.join(folder, "a.jsonl"),
           os.path.join(folder, "v.parquet"), chunk_bytes=20000)
verdicts = pd.read_parquet(os.path.join(folder, "v.parquet"))
print(numba.get_num_threads(), hashlib.sha256(verdicts.to_json().encode()).hexdigest())
"""


@pytest.mark.slow
def test_streamed_verdicts_do_not_depend_on_threads():
    digests = digests_by_thread_count(STREAM_SCRIPT)
    assert digests["1"] == digests["2"] and len(digests["1"]) == 64
