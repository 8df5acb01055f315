"""``fastspe compare``: paired candidate - baseline differences with a verdict for CI."""

from __future__ import annotations

import json

from ._common import (
    cluster_client,
    cluster_options,
    draws_option,
    float_option,
    refuse_overwrite,
    say,
    seed_option,
    warn,
)

EXIT_REGRESSION = 1
# Also in fastspe.stats.intervals and fastspe.stats.compare; repeated so that `--help` imports no numba or pandas.
DEFAULT_DRAWS = 5000
DEFAULT_SEED = 20261012
DEFAULT_METRICS = "SPE,C,R,Q,E"
DEFAULT_MARGIN = 0.02


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "compare",
        help="paired comparison of candidates against a baseline, with regression verdicts for CI",
        description="For each candidate, the paired stratified whole-board bootstrap of candidate - baseline for "
        "each metric, pooled per cohort, by depth and by k, on the boards both answered. A pooled metric "
        "is a regression when its whole 95% interval is below 0 and the estimate below -MARGIN (an "
        "improvement: the mirror image). Rows by depth and by k keep such a verdict only when their "
        "paired bootstrap p-value, Holm-adjusted over all those rows of a candidate and cohort, is below "
        "0.05 (compare.csv: p_value, p_adjusted). Exit 1 with --fail-on-regression when a pooled metric "
        "of the primary cohort regresses, 2 on bad input, else 0. A candidate whose answers came from "
        "another protocol than the baseline's (NAME+tools against NAME) also gets \"What the tool "
        'fixes": on the trials both answered (same board and trial; the others are counted and left '
        "out), the paired differences in R, Q, E and SPE per depth with intervals, the plans turned "
        "illegal to legal and legal-but-incomplete to complete (and back), and tool calls per completed "
        "plan (compare.md, compare.json, what_the_tool_fixes.csv).",
    )
    p.add_argument("--bank", required=True, help="the bank the answers were scored against (.parquet or .jsonl)")
    p.add_argument("--verdicts", required=True, nargs="+", metavar="V", help="verdicts files from `fastspe score`")
    p.add_argument("--baseline", required=True, metavar="CONDITION", help="the reference condition")
    p.add_argument(
        "--candidate",
        action="append",
        metavar="CONDITION",
        help="a condition to judge, repeatable (default: every other condition)",
    )
    verdict_options(p)
    p.add_argument("--out", metavar="DIR", help="folder for compare.md, compare.csv and compare.json")
    cluster_options(p)
    p.set_defaults(func=cmd_compare)


def verdict_options(p) -> None:
    """The options of a paired comparison and its verdict (``compare``, ``history compare``)."""
    p.add_argument("--metrics", default=DEFAULT_METRICS, metavar="LIST", help="comma-separated metrics")
    p.add_argument(
        "--margin",
        type=float_option(0.0, 1e6),
        default=DEFAULT_MARGIN,
        help="the smallest difference that counts as a change",
    )
    p.add_argument("--draws", type=draws_option, default=DEFAULT_DRAWS, metavar="N", help="bootstrap draws")
    p.add_argument("--seed", type=seed_option, default=DEFAULT_SEED, metavar="N", help="bootstrap seed")
    p.add_argument(
        "--fail-on-regression", action="store_true", help="exit 1 when any pooled primary-cohort metric regresses"
    )


def metric_list(args) -> list[str]:
    return [m.strip() for m in args.metrics.split(",") if m.strip()]


def cmd_compare(args) -> int:
    from pathlib import Path

    import pandas as pd

    from ..boundary.banks import load_bank
    from ..boundary.verdict_files import read_verdicts
    from ..report.comparison import summary_markdown
    from ..report.protocol_effect import tool_effect_markdown, tool_effect_table
    from ..stats.compare import compare, summary_json
    from ..stats.protocol_effect import protocol_effects, tool_effect_json
    from ..distributed import executor
    from ..boundary.files import write_table, write_text

    inputs = {"--bank": args.bank, **{f"--verdicts {i + 1}": v for i, v in enumerate(args.verdicts)}}
    refuse_overwrite(inputs, {"--out": args.out})
    bank = load_bank(args.bank)
    # each file is checked against the bank; compare checks the joined table once more (keys across files)
    verdicts = pd.concat([read_verdicts(v, bank=bank).frame for v in args.verdicts], ignore_index=True)
    metrics = metric_list(args)
    with cluster_client(args, preload=("fastspe.stats.intervals",)) as client:
        result = compare(
            verdicts,
            args.baseline,
            args.candidate,
            metrics=metrics,
            margin=args.margin,
            draws=args.draws,
            seed=args.seed,
            executor=executor(client),
            domain=bank.domain,
        )
        effects = protocol_effects(
            verdicts,
            args.baseline,
            list(result.boards),
            draws=args.draws,
            seed=args.seed,
            level=result.level,
            executor=executor(client),
            domain=bank.domain,
        )
    text = summary_markdown(result)
    summary = summary_json(result)
    if effects:
        text += "\n" + tool_effect_markdown(effects)
        summary["what_the_tool_fixes"] = [tool_effect_json(e) for e in effects]
        for e in effects:
            if e.unpaired["baseline_only"] or e.unpaired["candidate_only"]:
                warn(
                    f"{e.candidate} against {e.baseline}: {e.unpaired['baseline_only']} trials only the baseline "
                    f'answered and {e.unpaired["candidate_only"]} only the candidate are left out of "What the tool '
                    'fixes" (it pairs trials exactly)'
                )
    say(text)
    if args.out:
        out = Path(args.out)
        write_text(text + "\n", out / "compare.md")
        write_table(result.table, out / "compare.csv", formulas_escaped=True)
        write_text(json.dumps(summary, indent=2, allow_nan=False) + "\n", out / "compare.json")
        if effects:
            write_table(tool_effect_table(effects).frame, out / "what_the_tool_fixes.csv", formulas_escaped=True)
        also = ", compare.json and what_the_tool_fixes.csv" if effects else " and compare.json"
        say(f"wrote {out / 'compare.md'}, compare.csv{also}", err=True)
    if args.fail_on_regression and len(result.regressions()):
        return EXIT_REGRESSION
    return 0
