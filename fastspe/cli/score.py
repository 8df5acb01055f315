"""``fastspe score`` (responses -> verdicts) and ``fastspe metrics`` (verdicts -> metrics table)."""

from __future__ import annotations

from pathlib import Path

from ._common import cluster_options, cluster_starting, metrics_table, refuse_overwrite, say, warn
from .domain_options import domain_option
from ..domains.registry import DEFAULT_DOMAIN
from .progress import progress
from .import_inspect import inspect_task
from ..errors import UserError


def register(subparsers) -> None:
    p = subparsers.add_parser("score", help="parse and replay responses into verdicts",
                              description="Parse every answer, replay it on its board and write one verdict "
                                          "per output.")
    p.add_argument("--bank", required=True, help="bank file (.parquet or .jsonl)")
    responses_option(p, "responses or run log (.jsonl, .csv, .parquet), or an inspect_ai .eval log; repeat it for "
                        "several files, scored as one (an output in two of them is refused)")
    p.add_argument("--out", required=True, metavar="VERDICTS", help="verdicts file to write (.parquet or .csv)")
    p.add_argument("--parse", choices=("lenient", "strict"), default="lenient",
                   help="strict: answers that need normalizing are format failures")
    p.add_argument("--format-failure", choices=("illegal", "noncompletion"), default="illegal",
                   help="count an answer without a move list as illegal or as a legal noncompletion")
    p.add_argument("--skip-invalid", action="store_true", help="report bad response lines and score the rest")
    cluster_options(p)
    p.set_defaults(func=run_score, compile_seconds=20)  # (a fresh cache, 2 cores: bench_first_run)

    m = subparsers.add_parser("metrics", help="N, C, I, R, Q, E, G, O, SPE from verdicts",
                              description="Compute the SPE = R x Q x E metrics from a verdicts file.")
    m.add_argument("--verdicts", required=True, metavar="VERDICTS", help="verdicts file from `fastspe score`")
    m.add_argument("--by", default="cohort,condition", metavar="COLUMNS",
                   help="comma-separated group columns: cohort, condition, depth, layout and the domain's second "
                        "stratum (k, boxes, ...)")
    m.add_argument("--out", metavar="FILE.csv", help="CSV file to write the table to (default: print only)")
    domain_option(m, what="the domain of a CSV or JSONL verdicts file (they do not record it; a Parquet file does) "
                          f"(default: {DEFAULT_DOMAIN})")
    m.set_defaults(func=run_metrics)


def responses_option(parser, help_text: str) -> None:
    """``--responses FILE``, repeatable (``args.responses`` is a list)."""
    parser.add_argument("--responses", required=True, metavar="FILE", action="append", help=help_text)


def distinct_responses(paths: list[str]) -> dict:
    """``{"--responses FILE": FILE}`` for ``refuse_overwrite``; a file given twice (the same file by any
    name) is refused, naming it."""
    seen: dict = {}
    for i, path in enumerate(paths):
        first = paths[seen.setdefault(Path(path).resolve(), i)]
        if seen[Path(path).resolve()] != i:
            same = "" if first == path else f" (as {first} and {path})"
            raise UserError(f"--responses {path} is given twice{same}; give each file once")
    return {f"--responses {path}": path for path in paths}


def is_inspect_log(path) -> bool:
    return str(path).lower().endswith(".eval")


def read_response_files(paths: list[str], bank_ids, skip_invalid: bool = False):
    """Checked responses of ``paths`` as one frame: files through ``read_responses``, inspect_ai ``.eval`` logs
    imported in memory as ``fastspe import-inspect`` would (errored samples left out with a warning, an
    incomplete log refused); an output in two files is refused."""
    from ..boundary.responses import combine_responses, read_responses, validate_responses

    def one(path):
        if not is_inspect_log(path):
            return read_responses(path, bank=bank_ids, skip_invalid=skip_invalid)
        module = inspect_task()
        if module is None:
            raise UserError(f"{path}: scoring an inspect_ai .eval log needs inspect_ai: pip install 'fastspe[inspect]'")
        return validate_responses(module.responses_from_log(path), bank=bank_ids, skip_invalid=skip_invalid,
                                  source=str(path))

    return combine_responses((str(path), one(path)) for path in paths)


def run_score(args) -> int:
    from ..boundary.files import table_format

    refuse_overwrite({"--bank": args.bank, **distinct_responses(args.responses)}, {"--out": args.out})
    table_format(args.out, (".parquet", ".csv"))  # fail before any work on a bad output name
    if any(map(is_inspect_log, args.responses)):
        from ..boundary.banks import read_bank_table

        summary = _score_in_memory(read_bank_table(args.bank), args)
    else:  # the cluster starts before scoring is even imported: its workers' imports run beside ours, then
        # beside reading the bank and the first batch
        with cluster_starting(args, preload=("fastspe.scoring.score",)) as cluster:
            from ..boundary.banks import read_bank_table
            from ..distributed import executor
            from ..scoring.score import score_file

            with progress("score", None, "answers") as update:
                summary = score_file(read_bank_table(args.bank), args.responses, args.out, parse=args.parse,
                                     format_failure=args.format_failure, skip_invalid=args.skip_invalid,
                                     progress=update, executor=executor(cluster, once=True))
    if summary.lost_outputs:
        warn(f"{', '.join(args.responses)}: {summary.lost_outputs} output(s) have only failed attempts and are not "
             f"scored")
    parts = ", ".join(f"{getattr(summary, s)} {s}" for s in ("complete", "legal_noncompletion", "illegal"))
    say(f"scored {summary.scored} outputs ({parts}) -> {args.out}")
    return 0


def _score_in_memory(bank, args):
    """Responses with an inspect_ai log among them (``read_response_files``), scored as one frame."""
    import pandas as pd
    import pyarrow as pa

    from ..boundary.verdict_files import write_verdicts
    from ..scoring.score import ScoreSummary, score_responses

    ids = pd.DataFrame({"board_id": bank.column("board_id").to_pylist()})
    responses = read_response_files(args.responses, ids, skip_invalid=args.skip_invalid)
    verdicts = score_responses(bank, responses, parse=args.parse, format_failure=args.format_failure,
                               source=", ".join(args.responses))
    write_verdicts(verdicts, args.out)
    summary = ScoreSummary(streamed=False)
    summary.count(pa.array(verdicts["status"].to_numpy(object), pa.string()))
    return summary


def run_metrics(args) -> int:
    from ..boundary.verdict_files import read_verdicts
    from ..boundary.files import write_table
    from ..stats.metrics import compute_metrics

    refuse_overwrite({"--verdicts": args.verdicts}, {"--out": args.out})
    by = [b.strip() for b in args.by.split(",") if b.strip()]
    if args.out:
        from ..boundary.files import table_format
        table_format(args.out, (".csv",))
    table = compute_metrics(read_verdicts(args.verdicts, domain=args.domain), by=by)
    say(metrics_table(table))
    if args.out:
        write_table(table, args.out, formulas_escaped=True)
        say(f"wrote {args.out}")
    return 0
