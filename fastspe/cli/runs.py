"""``fastspe runs stats``: attempts, retries, 429s, tokens, latency and cost per condition from run logs."""

from __future__ import annotations

from .._text import count, plural
from ._common import metrics_table, refuse_overwrite, say, warn


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "runs", help="statistics of run logs", description="Read run logs written by `fastspe run`."
    )
    sub = p.add_subparsers(dest="runs_command", metavar="VERB", required=True)
    s = sub.add_parser(
        "stats",
        help="attempts, retries, 429s, tokens, latency and cost per condition",
        description="Per condition: answers, attempts, retries, failed and rate-limited (429) "
        "attempts, tokens and latency of completed attempts (mean, p50, p95), and cost "
        "in total, per answer and, with --verdicts, per completed plan. Several logs "
        "are read as one: a trial's attempts count together whichever log holds them.",
    )
    s.add_argument("logs", nargs="+", metavar="LOG.jsonl", help="run log(s) written by `fastspe run`")
    s.add_argument(
        "--verdicts", metavar="VERDICTS", help="verdicts file from `fastspe score`, for the cost per completed plan"
    )
    s.add_argument(
        "--out", metavar="FILE.csv", help="CSV file to write the statistics to, full precision (default: print only)"
    )
    s.set_defaults(func=run_runs_stats)


def run_runs_stats(args) -> int:
    import pandas as pd

    from ..boundary.files import table_format, write_table
    from ..report.run_stats import run_stats, run_stats_table

    refuse_overwrite(
        {**{f"run log {i}": log for i, log in enumerate(args.logs, 1)}, "--verdicts": args.verdicts},
        {"--out": args.out},
    )
    if args.out:
        table_format(args.out, (".csv",))  # fail before reading a large log
    verdicts = None
    if args.verdicts:
        from ..boundary.verdict_files import read_verdicts

        verdicts = read_verdicts(args.verdicts).frame
    stats = run_stats(args.logs, verdicts=verdicts)
    for path, skipped in stats.attrs["skipped_lines"].items():
        if skipped:
            warn(
                f"{path}: skipped {count(skipped, 'line')} that {plural(skipped, 'is')} not JSON objects (torn by a stopped run)"
            )
    if stats.empty:
        say("no attempts in the run log(s)")
    else:
        table = run_stats_table(stats)
        view = metrics_table(table.formatted(), title=table.caption)
        for column, name in zip(view.columns, table.frame.columns):
            if pd.api.types.is_numeric_dtype(table.frame[name]):
                column.justify = "right"  # the cells are formatted text; numbers still align right
        say(_FullWidth(view))
    if args.out:
        write_table(stats, args.out, formulas_escaped=True)
        say(f"wrote {args.out}")
    return 0


class _FullWidth:
    """A rich table rendered at its natural width even past the console's: rich would otherwise squeeze
    a wide table's narrow columns (the counts) down to nothing."""

    def __init__(self, table):
        self.table = table

    def __rich_console__(self, console, options):
        width = console.measure(self.table, options=options.update_width(1 << 16)).maximum
        yield from console.render(self.table, options.update_width(max(width, options.max_width)))
