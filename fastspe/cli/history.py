"""``fastspe history add | show | compare``: a store of scored runs for trends across checkpoints."""

from __future__ import annotations

import argparse

from .._text import count
from ._common import as_options, cell, draws_option, refuse_overwrite, say, seed_option
from .compare import DEFAULT_SEED, metric_list, verdict_options

# Also in fastspe.stats.history; repeated so that `--help` imports no pandas or numba.
DEFAULT_STORE = "fastspe-history (or $FASTSPE_HISTORY)"
DEFAULT_HISTORY_DRAWS = 2000


# the API's parameter names (fastspe.errors.ParameterError) as this command's options
_OPTIONS = {
    "label": "--label",
    "store": "--store",
    "meta": "--meta",
    "draws": "--draws",
    "seed": "--seed",
    "metric": "--metric",
    "label_a": "LABEL_A",
    "label_b": "LABEL_B",
}


def _store_option(p) -> None:
    p.add_argument("--store", metavar="DIR", help=f"the history folder (default: {DEFAULT_STORE})")


def _meta(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"must be KEY=VALUE, got {text!r}")
    return key.strip(), value


def register(subparsers) -> None:
    history = subparsers.add_parser(
        "history",
        help="keep scored runs under labels; trends and comparisons across checkpoints",
        description="A history store is a folder of Parquet files with an append-only index: every run of one "
        "bank, kept under a label. The folder is ./fastspe-history unless --store or $FASTSPE_HISTORY "
        "names another.",
    )
    verbs = history.add_subparsers(dest="history_command", metavar="VERB", required=True)

    add = verbs.add_parser(
        "add",
        help="keep a verdicts file under a label",
        description="Keep the verdicts and their pooled estimates (bootstrap intervals) under "
        "LABEL. Refuses a label in use and a bank other than the stored runs'.",
    )
    add.add_argument("--bank", required=True, help="the bank the answers were scored against")
    add.add_argument("--verdicts", required=True, help="verdicts from `fastspe score`")
    add.add_argument("--label", required=True, help="the run's name, e.g. a checkpoint (unique in the store)")
    add.add_argument("--meta", action="append", type=_meta, metavar="KEY=VALUE", help="metadata to keep, repeatable")
    add.add_argument(
        "--draws",
        type=draws_option,
        default=DEFAULT_HISTORY_DRAWS,
        metavar="N",
        help="bootstrap draws of the stored intervals",
    )
    add.add_argument("--seed", type=seed_option, default=DEFAULT_SEED, metavar="N", help="bootstrap seed")
    _store_option(add)
    add.set_defaults(func=cmd_add)

    show = verbs.add_parser(
        "show",
        help="the trend of a metric across the stored runs",
        description="Print the pooled estimate and 95% interval of a metric per run (in the "
        "order added), cohort and condition; with --out, also a trend figure.",
    )
    show.add_argument("--metric", default="SPE", help="C, I, R, Q, E, G, O, SPE or Dc")
    show.add_argument("--out", metavar="DIR", help="folder for trend.csv and the trend figure (PDF, PNG, SVG)")
    _store_option(show)
    show.set_defaults(func=cmd_show)

    comp = verbs.add_parser(
        "compare",
        help="`fastspe compare` between two stored runs",
        description="Paired comparison of run B (candidate) against run A (baseline) for each "
        "condition they share (or their only conditions), as `fastspe compare`.",
    )
    comp.add_argument("label_a", metavar="LABEL_A", help="the baseline run")
    comp.add_argument("label_b", metavar="LABEL_B", help="the candidate run")
    verdict_options(comp)
    _store_option(comp)
    comp.set_defaults(func=cmd_compare)


def cmd_add(args) -> int:
    from ..boundary.banks import load_bank
    from ..boundary.verdict_files import read_verdicts
    from ..stats.history import History

    history = History(args.store)
    refuse_overwrite({"--bank": args.bank, "--verdicts": args.verdicts}, {"--store": history.root})
    bank = load_bank(args.bank)
    verdicts = read_verdicts(args.verdicts, bank=bank)  # (a Bank: the answers' prompts are checked too)
    with as_options(_OPTIONS):
        run = history.add(bank.table, verdicts, args.label, dict(args.meta or []), draws=args.draws, seed=args.seed)
    say(
        f"added run {run.number} {run.label!r} ({count(len(run.conditions), 'condition')}, bank {run.bank_hash[:12]}) "
        f"to {history.root}"
    )
    return 0


def cmd_show(args) -> int:
    from pathlib import Path

    from rich.table import Table

    from ..stats.history import History
    from ..boundary.files import write_table

    history = History(args.store)
    with as_options(_OPTIONS):
        trend = history.trend(args.metric)
    # every cell plain text (a label is never markup); `say` prints the table at its full width, so a long
    # label on a pipe or a narrow terminal never cuts the numbers to `…`
    view = Table(title=cell(f"{args.metric} by run ({history.root})"), title_justify="left", header_style="bold")
    for col in ("run", "label", "cohort", "condition", args.metric, "95% interval", "N"):
        view.add_column(cell(col), justify="right" if col in ("run", args.metric, "N") else "left", no_wrap=True)
    for r in trend.itertuples(index=False):
        interval = "n/a" if r.lo != r.lo else f"[{r.lo:.3f}, {r.hi:.3f}]"
        view.add_row(
            *map(
                cell,
                (
                    r.run,
                    r.label,
                    r.cohort,
                    r.condition,
                    "n/a" if r.estimate != r.estimate else f"{r.estimate:.3f}",
                    interval,
                    r.N,
                ),
            )
        )
    say(view)
    if args.out:
        out = Path(args.out)
        write_table(trend, out / "trend.csv", formulas_escaped=True)
        from ..extras import check_installed

        check_installed("matplotlib", "the trend figure")
        from ..report.figures import figure_trend

        cohort = "primary" if "primary" in set(trend["cohort"]) else sorted(trend["cohort"].unique())[0]
        figure_trend(trend, args.metric, cohort, out / f"trend_{args.metric}")
        say(f"wrote {out / 'trend.csv'} and trend_{args.metric}.pdf/.png/.svg", err=True)
    return 0


def cmd_compare(args) -> int:
    from ..stats.compare import compare
    from ..report.comparison import summary_markdown
    from ..stats.history import History, paired_runs

    history = History(args.store)
    with as_options(_OPTIONS):
        verdicts, pairs = paired_runs(history, args.label_a, args.label_b)
    metrics = metric_list(args)
    regressed = False
    for base, cand in pairs:
        part = verdicts[verdicts["condition"].isin([base, cand])]
        result = compare(part, base, [cand], metrics=metrics, margin=args.margin, draws=args.draws, seed=args.seed)
        say(summary_markdown(result))
        regressed |= bool(len(result.regressions()))
    return 1 if args.fail_on_regression and regressed else 0
