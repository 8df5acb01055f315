"""``fastspe score`` (responses -> verdicts) and ``fastspe metrics`` (verdicts -> metrics table)."""

from __future__ import annotations

from ._common import cluster_client, cluster_options, metrics_table, refuse_overwrite, say, warn
from .progress import progress
from ..errors import UserError


def register(subparsers) -> None:
    p = subparsers.add_parser("score", help="parse and replay responses into verdicts",
                              description="Parse every answer, replay it on its board and write one verdict "
                                          "per output.")
    p.add_argument("--bank", required=True, help="bank file (.parquet or .jsonl)")
    p.add_argument("--responses", required=True, metavar="FILE",
                   help="responses or run log (.jsonl, .csv, .parquet), or an inspect_ai .eval log")
    p.add_argument("--out", required=True, metavar="VERDICTS", help="verdicts file to write (.parquet or .csv)")
    p.add_argument("--parse", choices=("lenient", "strict"), default="lenient",
                   help="strict: answers that need normalizing are format failures")
    p.add_argument("--format-failure", choices=("illegal", "noncompletion"), default="illegal",
                   help="count an answer without a move list as illegal or as a legal noncompletion")
    p.add_argument("--skip-invalid", action="store_true", help="report bad response lines and score the rest")
    cluster_options(p)
    p.set_defaults(func=run_score)

    m = subparsers.add_parser("metrics", help="N, C, I, R, Q, E, G, O, SPE from verdicts",
                              description="Compute the SPE = R x Q x E metrics from a verdicts file.")
    m.add_argument("--verdicts", required=True, metavar="VERDICTS", help="verdicts file from `fastspe score`")
    m.add_argument("--by", default="cohort,condition", metavar="COLUMNS",
                   help="comma-separated group columns: cohort, condition, depth, k, layout")
    m.add_argument("--out", metavar="FILE.csv", help="CSV file to write the table to (default: print only)")
    m.set_defaults(func=run_metrics)


def run_score(args) -> int:
    from ..boundary.banks import read_bank_table
    from ..boundary.files import table_format
    from ..distributed import executor
    from ..scoring.score import score_file

    refuse_overwrite({"--bank": args.bank, "--responses": args.responses}, {"--out": args.out})
    table_format(args.out, (".parquet", ".csv"))  # fail before any work on a bad output name
    bank = read_bank_table(args.bank)
    if str(args.responses).lower().endswith(".eval"):
        summary = _score_inspect_log(bank, args)
    else:
        with cluster_client(args) as client, progress("score", None, "answers") as update:
            summary = score_file(bank, args.responses, args.out, parse=args.parse,
                                 format_failure=args.format_failure, skip_invalid=args.skip_invalid, progress=update,
                                 executor=executor(client))
    if summary.lost_outputs:
        warn(f"{args.responses}: {summary.lost_outputs} output(s) have only failed attempts and are not scored")
    parts = ", ".join(f"{getattr(summary, s)} {s}" for s in ("complete", "legal_noncompletion", "illegal"))
    say(f"scored {summary.scored} outputs ({parts}) -> {args.out}")
    return 0


def _score_inspect_log(bank, args):
    """An inspect_ai log imported in memory as `fastspe import-inspect` would (errored samples left out with a
    warning, an incomplete log refused) and scored as one frame."""
    import pyarrow as pa

    from ..boundary.verdicts import write_verdicts
    from ..scoring.score import ScoreSummary, score_responses
    from .import_inspect import inspect_task

    module = inspect_task()
    if module is None:
        raise UserError(f"{args.responses}: scoring an inspect_ai .eval log needs inspect_ai: "
                        "pip install 'fastspe[inspect]'")
    responses = module.responses_from_log(args.responses)
    verdicts = score_responses(bank, responses, parse=args.parse, format_failure=args.format_failure)
    write_verdicts(verdicts, args.out)
    summary = ScoreSummary(streamed=False)
    summary.count(pa.array(verdicts["status"].to_numpy(object), pa.string()))
    return summary


def run_metrics(args) -> int:
    from ..boundary.verdicts import read_verdicts
    from ..boundary.files import write_table
    from ..stats.metrics import compute_metrics

    refuse_overwrite({"--verdicts": args.verdicts}, {"--out": args.out})
    by = [b.strip() for b in args.by.split(",") if b.strip()]
    if args.out:
        from ..boundary.files import table_format
        table_format(args.out, (".csv",))
    table = compute_metrics(read_verdicts(args.verdicts), by=by)
    say(metrics_table(table))
    if args.out:
        write_table(table, args.out, formulas_escaped=True)
        say(f"wrote {args.out}")
    return 0
