"""``fastspe report --bank BANK --verdicts VERDICTS --out DIR [--draws N] [--seed N]``."""

from __future__ import annotations

import argparse

from ..bank import read_bank
from ..intervals import DEFAULT_DRAWS, DEFAULT_SEED
from ..report import write_report
from ..score import read_verdicts
from ._common import stderr


def register(sub: argparse._SubParsersAction) -> None:
    report = sub.add_parser("report", help="tables, figures and bootstrap intervals from verdicts",
                            description="Write DIR/metrics.csv (long form, 95% stratified whole-board bootstrap "
                                        "intervals), DIR/tables/, DIR/figures/, DIR/report.md and DIR/report.html.")
    report.add_argument("--bank", required=True, help="the bank the answers were scored against (.parquet or .jsonl)")
    report.add_argument("--verdicts", required=True, help="verdicts from `fastspe score` (.parquet, .csv or .jsonl)")
    report.add_argument("--out", required=True, metavar="DIR", help="report folder to write")
    report.add_argument("--draws", type=int, default=DEFAULT_DRAWS, metavar="N", help=f"bootstrap draws (default {DEFAULT_DRAWS})")
    report.add_argument("--seed", type=int, default=DEFAULT_SEED, metavar="N", help=f"bootstrap seed (default {DEFAULT_SEED})")
    report.set_defaults(func=cmd_report)


def cmd_report(args) -> int:
    bank = read_bank(args.bank)
    verdicts = read_verdicts(args.verdicts)
    path = write_report(bank, verdicts, args.out, draws=args.draws, seed=args.seed)
    stderr.print(f"wrote {path} ({verdicts['condition'].nunique()} conditions, {args.draws:,} draws, seed {args.seed})",
                 highlight=False)
    return 0
