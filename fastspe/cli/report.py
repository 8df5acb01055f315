"""``fastspe report --bank BANK --verdicts VERDICTS --out DIR [--draws N] [--seed N]``."""

from __future__ import annotations

import argparse

from .._text import count, coverage_text, plural
from ._common import cluster_client, cluster_options, draws_option, int_option, refuse_overwrite, say, seed_option, warn
from .progress import Stages

# Also in fastspe.stats.intervals (DEFAULT_DRAWS, DEFAULT_SEED); repeated here so that `--help` imports no numba.
DEFAULT_DRAWS = 5000
DEFAULT_SEED = 20261012
DEFAULT_DPI = 150  # also fastspe.report.figures.DPI; here so that `--help` imports no matplotlib
dpi_option = int_option(20, 1200)
STAGE_UNITS = {
    "bootstrap": "draws",
    "paired differences": "draws",
    "what the tool fixes": "draws",
    "tables and figures": "steps",
}


def register(sub: argparse._SubParsersAction) -> None:
    report = sub.add_parser(
        "report",
        help="tables, figures and bootstrap intervals from verdicts",
        description="Write DIR/metrics.csv (long form, 95% stratified whole-board bootstrap "
        "intervals), DIR/tables/ (CSV, Markdown, booktabs LaTeX), DIR/figures/ "
        "(PDF, PNG, SVG), DIR/report.md and DIR/report.html. Every table and figure "
        "is a view of the numbers in metrics.csv.",
    )
    report.add_argument("--bank", required=True, help="the bank the answers were scored against (.parquet or .jsonl)")
    report.add_argument("--verdicts", required=True, help="verdicts from `fastspe score` (.parquet, .csv or .jsonl)")
    report.add_argument("--out", required=True, metavar="DIR", help="report folder to write")
    report.add_argument("--draws", type=draws_option, default=DEFAULT_DRAWS, metavar="N", help="bootstrap draws")
    report.add_argument("--seed", type=seed_option, default=DEFAULT_SEED, metavar="N", help="bootstrap seed")
    report.add_argument(
        "--no-figures",
        action="store_true",
        help="write the tables only (no matplotlib needed; figures need fastspe[plots])",
    )
    report.add_argument(
        "--labels",
        metavar="FILE",
        help="display names and order of the conditions: CSV with header condition,label, or JSON "
        "{condition: label} (default: the condition keys, ranked by primary SPE)",
    )
    report.add_argument(
        "--dpi",
        type=dpi_option,
        default=DEFAULT_DPI,
        metavar="N",
        help="dots per inch of the PNG figures, 300 for print (SVG and PDF are vector files, the same at any)",
    )
    report.add_argument(
        "--no-titles", action="store_true", help="figures without titles (the captions go in the paper)"
    )
    report.add_argument(
        "--interval-cells", action="store_true", help="Markdown and LaTeX Table 1 cells as 'estimate [lo, hi]'"
    )
    report.add_argument(
        "--runs",
        nargs="+",
        metavar="LOG.jsonl",
        help="run logs of `fastspe run`: add a table of tokens, latency, retries and cost per condition",
    )
    cluster_options(report)
    report.set_defaults(func=cmd_report)


def cmd_report(args) -> int:
    import pandas  # noqa: F401 - loaded before the fork: the figure server needs it too
    from ..report.figure_server import figure_server

    # Forked before the other imports: matplotlib loads there while the inputs are read and the bootstrap runs
    server = None if args.no_figures else figure_server()
    try:
        return _report(args, server)
    except BaseException:
        if server is not None:
            server.cancel()
        raise


def _report(args, server) -> int:
    from ..boundary.banks import load_bank
    from ..boundary.verdict_files import read_verdicts
    from ..distributed import executor
    from ..report.labels import read_labels
    from ..report.write import ReportOptions, write_report

    # The report folder is replaced whole: it must not be, or hold, an input.
    inputs = {"--bank": args.bank, "--verdicts": args.verdicts, "--labels": args.labels}
    inputs.update({f"--runs {i + 1}": run for i, run in enumerate(args.runs or ())})
    refuse_overwrite(inputs, {"--out": args.out})
    labels = read_labels(args.labels) if args.labels else None
    bank = load_bank(args.bank)
    verdicts = read_verdicts(args.verdicts, bank=bank)
    if labels is not None:
        unknown = labels.unknown(sorted(map(str, verdicts.frame["condition"].unique())))
        if unknown:
            warn(
                f"{args.labels}: {count(len(unknown), 'labelled condition')} {plural(len(unknown), 'has')} no "
                f"verdicts and {plural(len(unknown), 'is')} left out: "
                f"{', '.join(map(repr, unknown[:5]))}{' ...' if len(unknown) > 5 else ''}"
            )
    options = ReportOptions(
        labels=labels,
        titles=not args.no_titles,
        interval_cells=args.interval_cells,
        figures=not args.no_figures,
        runs=tuple(args.runs or ()),
        dpi=args.dpi,
    )
    with cluster_client(args, preload=("fastspe.stats.intervals",)) as client, Stages("report", STAGE_UNITS) as stage:
        path = write_report(
            bank,
            verdicts,
            args.out,
            draws=args.draws,
            seed=args.seed,
            progress=stage,
            options=options,
            executor=executor(client),
            figure_server=server,
        )
    frame = verdicts.frame
    say(
        f"wrote {path} ({count(frame['condition'].nunique(), 'condition')}, {count(args.draws, 'draw')}, "
        f"seed {args.seed})",
        err=True,
    )
    covers = coverage_text(frame["board_id"].nunique(), len(bank), bank.domain.unit)
    if covers:
        warn(f"this report {covers} (it says so at its top)")
    return 0
