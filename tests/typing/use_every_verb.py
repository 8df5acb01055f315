"""Every verb of fastspe's face, called with the types it takes.

tests/test_face.py runs ``mypy --strict --disallow-any-expr`` on this file: every value that comes out of fastspe has
a real type (no ``Any``), and a verb whose signature changes breaks here before it breaks a user's script. It also
runs as a script (``python tests/typing/use_every_verb.py OUT_DIR``): the whole pipeline, from a bank to a report.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

import fastspe
from fastspe.domains.sliding import solve
from fastspe.stats import BootstrapDraws, PackedSums, bootstrap_draws, interval_table, pack_sums


def pipeline(out: Path) -> list[str]:
    """Bank, baseline answers, verdicts, numbers and the report: what each verb gives, by type."""
    domains: list[str] = fastspe.domain_names()
    bank: pd.DataFrame = fastspe.build_bank("paper", seed=7)
    fastspe.write_bank(bank, out / "bank.parquet")
    again: pd.DataFrame = fastspe.read_bank(out / "bank.parquet")
    checked: fastspe.Bank = fastspe.load_bank(out / "bank.parquet")
    greedy: pd.DataFrame = fastspe.baseline_responses(checked, "greedy", trials=2, seed=0)
    answers = pd.concat([greedy, fastspe.baseline_responses(bank, "random", trials=2, seed=0)])
    answers.to_json(out / "answers.jsonl", orient="records", lines=True)
    read_back: pd.DataFrame = fastspe.read_responses(out / "answers.jsonl", bank=again)
    verdicts: pd.DataFrame = fastspe.score_responses(bank, read_back)
    summary: fastspe.ScoreSummary = fastspe.score_file(checked, out / "answers.jsonl", out / "verdicts.parquet")
    fastspe.write_verdicts(verdicts, out / "verdicts-again.parquet")
    stored: fastspe.Verdicts = fastspe.read_verdicts(out / "verdicts.parquet", bank=checked)
    metrics: pd.DataFrame = fastspe.compute_metrics(stored, by=["cohort", "condition", "depth"])
    sums: pd.DataFrame = fastspe.board_sums(verdicts)
    intervals: pd.DataFrame = fastspe.bootstrap_intervals(verdicts, draws=200, seed=0)
    packed: PackedSums = pack_sums(sums)
    draws: BootstrapDraws = bootstrap_draws(packed, draws=200, seed=0)
    table: pd.DataFrame = interval_table(draws)
    compared: fastspe.Comparison = fastspe.compare(verdicts, "baseline:random", draws=200)
    report: Path = fastspe.write_report(checked, stored, out / "report", draws=200, figures=False)
    exported: fastspe.HubExport = fastspe.export_hub(checked, out / "hub")
    items = fastspe.BankItems(checked)
    own: float = fastspe.score_answer(None, items[0]) + items.score_answer("MOVES: U", items[1])
    return [
        *domains,
        str(exported.rows),
        str(len(items)),
        str(own),
        str(summary.scored),
        str(len(metrics)),
        str(len(intervals)),
        str(len(table)),
        compared.primary,
        report.name,
    ]


def rewards(bank: pd.DataFrame) -> list[fastspe.Rewards]:
    """The in-memory scorer of training loops (its arrays are NumPy's, whose shapes numpy types as Any)."""
    scorer = fastspe.RewardScorer(bank)
    ids = ["primary-k0-d10-bnone-000", "primary-k0-d10-bnone-001"]  # the paper design's first boards
    texts = ["MOVES: U", "MOVES: L,L"]
    batch: fastspe.Rewards = scorer(ids, texts)
    once: fastspe.Rewards = fastspe.reward(bank, ids, texts)
    return [batch, once]


def solved() -> int:
    """Any domain's exact solver (its answer as `fastspe solve` prints it), and the default domain's typed one."""
    answer: dict[str, object] = fastspe.solve(board=[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0, 15])
    solution = solve([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0, 15], 4, 4)
    length: int = solution.length
    moves: str = solution.moves
    return length + len(moves) + len(answer)


def errors() -> str:
    """fastspe's errors are classes a caller catches."""
    try:
        fastspe.build_bank("no such design")
    except fastspe.UserError as exc:
        return str(exc)
    return ""


if __name__ == "__main__":
    where = Path(sys.argv[1])
    where.mkdir(parents=True, exist_ok=True)
    print(pipeline(where), rewards(fastspe.build_bank("paper")), solved(), errors())
