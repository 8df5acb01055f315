"""``fastspe score`` (responses -> verdicts) and ``fastspe metrics`` (verdicts -> metrics table)."""

from __future__ import annotations

from pathlib import Path

from .._text import count, coverage_text, plural
from ._common import cluster_options, cluster_starting, metrics_table, refuse_overwrite, say, warn
from .domain_options import domain_option
from ..domains.registry import DEFAULT_DOMAIN
from .progress import progress
from .import_inspect import inspect_task
from ..errors import UserError


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "score",
        help="parse and replay responses into verdicts",
        description="Parse every answer, replay it on its board and write one verdict per output.",
    )
    p.add_argument("--bank", required=True, help="bank file (.parquet or .jsonl)")
    responses_option(
        p,
        "responses or run log (.jsonl, .csv, .parquet), or an inspect_ai .eval log; repeat it for "
        "several files, scored as one (an output in two of them is refused)",
    )
    p.add_argument("--out", required=True, metavar="VERDICTS", help="verdicts file to write (.parquet or .csv)")
    p.add_argument(
        "--parse",
        choices=("lenient", "strict"),
        default="lenient",
        help="strict: answers that need normalizing are format failures",
    )
    p.add_argument(
        "--format-failure",
        choices=("illegal", "noncompletion"),
        default="illegal",
        help="count an answer without a move list as illegal or as a legal noncompletion",
    )
    p.add_argument("--skip-invalid", action="store_true", help="report bad response lines and score the rest")
    p.add_argument(
        "--prompts",
        metavar="EXPORT.jsonl",
        help="the prompt export (`fastspe prompts export`) the answers reply to: JSONL answers may then "
        "name their trial by trial_id alone (docs/prompts.md)",
    )
    p.add_argument(
        "--ignore-prompt-hash",
        action="store_true",
        help="score answers whose recorded prompt hash is not the hash of the prompt the bank gives their "
        "board (refused otherwise); the verdicts record that this was done",
    )
    cluster_options(p)
    p.set_defaults(func=run_score, compile_seconds=20)  # (a fresh cache, 2 cores: bench_first_run)

    m = subparsers.add_parser(
        "metrics",
        help="N, C, I, R, Q, E, G, O, SPE from verdicts",
        description="Compute the SPE = R x Q x E metrics from a verdicts file.",
    )
    m.add_argument("--verdicts", required=True, metavar="VERDICTS", help="verdicts file from `fastspe score`")
    m.add_argument(
        "--by",
        default="cohort,condition",
        metavar="COLUMNS",
        help="comma-separated group columns: cohort, condition, depth, layout and the domain's second "
        "stratum (k, boxes, ...)",
    )
    m.add_argument("--out", metavar="FILE.csv", help="CSV file to write the table to (default: print only)")
    domain_option(
        m,
        what="the domain of a CSV or JSONL verdicts file (they do not record it; a Parquet file does) "
        f"(default: {DEFAULT_DOMAIN})",
    )
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


def read_response_files(
    paths: list[str],
    bank_ids,
    skip_invalid: bool = False,
    bank=None,
    ignore_prompt_hash: bool = False,
    prompts: str | None = None,
):
    """Checked responses of ``paths`` as one frame: files through ``read_responses``, inspect_ai ``.eval`` logs
    imported in memory as ``fastspe import-inspect`` would (errored samples left out with a warning, an
    incomplete log refused); an output in two files is refused. With ``bank`` (a ``Bank``), each file's answers
    are bound to their prompts (``boundary.prompt_hashes.check_frame``; a prompt variant's answers to the variants
    kept beside the files and ``prompts``): a mismatch names the file and line. ``prompts``: a prompt export whose
    trial ids the answers may name instead of their board, condition and trial."""
    from ..boundary.prompt_hashes import check_frame
    from ..boundary.responses import POSITION, combine_responses, read_responses, validate_responses

    if bank is not None:
        from ..prompting.variant_check import accept_variants

        accept_variants(bank, [*paths, *([prompts] if prompts else [])])

    def one(path):
        if prompts is not None and not is_inspect_log(path):
            from ..boundary.trial_ids import resolve_trial_ids

            frame = validate_responses(
                resolve_trial_ids(path, prompts),
                bank=bank_ids,
                skip_invalid=skip_invalid,
                source=str(path),
                positions=True,
            )
            unit = "row"
        elif not is_inspect_log(path):
            frame = read_responses(path, bank=bank_ids, skip_invalid=skip_invalid, positions=True)
            unit = "row" if str(path).lower().endswith(".parquet") else "line"
        else:
            module = inspect_task()
            if module is None:
                raise UserError(
                    f"{path}: scoring an inspect_ai .eval log needs inspect_ai: pip install 'fastspe[inspect]'"
                )
            frame = validate_responses(
                module.responses_from_log(path),
                bank=bank_ids,
                skip_invalid=skip_invalid,
                source=str(path),
                positions=True,
            )
            unit = "row"
            if bank is not None:  # a log keeps its prompt variant itself (an import writes it to a sidecar)
                from ..prompting.variant_check import accept_specs

                accept_specs(bank, module.log_prompt_specs(path))
        if bank is not None:
            check_frame(bank, frame, path, unit, ignore_prompt_hash)
        return frame.drop(columns=[POSITION])

    return combine_responses((str(path), one(path)) for path in paths)


def run_score(args) -> int:
    from ..boundary.files import table_format

    refuse_overwrite(
        {"--bank": args.bank, "--prompts": args.prompts, **distinct_responses(args.responses)}, {"--out": args.out}
    )
    table_format(args.out, (".parquet", ".csv"))  # fail before any work on a bad output name
    if any(map(is_inspect_log, args.responses)) or args.prompts is not None:
        from ..boundary.banks import read_bank_table

        summary = _score_in_memory(_checked_bank(read_bank_table(args.bank), args.bank), args)
    else:  # the cluster starts before scoring is even imported: its workers' imports run beside ours, then
        # beside reading the bank and the first batch
        with cluster_starting(args, preload=("fastspe.scoring.score",)) as cluster:
            from ..boundary.banks import read_bank_table
            from ..distributed import executor
            from ..scoring.score import score_file

            with progress("score", None, "answers") as update:
                summary = score_file(
                    _checked_bank(read_bank_table(args.bank), args.bank),
                    args.responses,
                    args.out,
                    parse=args.parse,
                    format_failure=args.format_failure,
                    skip_invalid=args.skip_invalid,
                    progress=update,
                    executor=executor(cluster, once=True),
                    ignore_prompt_hash=args.ignore_prompt_hash,
                )
    if summary.unhashed:
        from ..boundary.prompt_hashes import unhashed_warning

        warn(unhashed_warning(", ".join(args.responses), summary.unhashed))
    if summary.mismatched:
        warn(
            f"{', '.join(args.responses)}: {count(summary.mismatched, 'answer')} made for another prompt than the one "
            f"the bank gives their board; scored as --ignore-prompt-hash asks (the verdicts record it)"
        )
    if summary.lost_outputs:
        lost = summary.lost_outputs
        warn(
            f"{', '.join(args.responses)}: {count(lost, 'output')} {plural(lost, 'has')} no answer (only failed "
            f"attempts, or a conversation not ended) and {plural(lost, 'is')} not scored"
        )
    parts = ", ".join(f"{getattr(summary, s)} {s}" for s in ("complete", "legal_noncompletion", "illegal"))
    say(f"scored {count(summary.scored, 'output')} ({parts}) -> {args.out}")
    covers = coverage_text(summary.boards, summary.bank_boards)
    if covers:
        say(f"{args.out} {covers}")  # (one file: "covers", "its numbers")
    return 0


def _checked_bank(table, path):
    """A bank table read from ``path`` as a ``Bank`` that names the file."""
    from ..boundary.banks import Bank
    from ..domains.registry import domain_of

    return Bank(table, domain_of(table), str(path))


def _score_in_memory(bank, args):
    """Responses with an inspect_ai log among them, or resolved through ``--prompts`` (``read_response_files``),
    scored as one frame."""
    import pandas as pd
    import pyarrow as pa

    from ..boundary.verdict_files import write_verdicts
    from ..scoring.score import ScoreSummary, score_responses

    ids = pd.DataFrame({"board_id": bank.board_ids.to_pylist()})
    responses = read_response_files(
        args.responses,
        ids,
        skip_invalid=args.skip_invalid,
        bank=bank,
        ignore_prompt_hash=args.ignore_prompt_hash,
        prompts=args.prompts,
    )
    # each file's answers were bound to their prompts above, naming its lines; this counts what lacks a hash
    verdicts = score_responses(
        bank,
        responses,
        parse=args.parse,
        format_failure=args.format_failure,
        source=", ".join(args.responses),
        ignore_prompt_hash=args.ignore_prompt_hash,
    )
    write_verdicts(verdicts, args.out)
    summary = ScoreSummary(streamed=False)
    summary.count(pa.array(verdicts["status"].to_numpy(object), pa.string()))
    summary.boards, summary.bank_boards = int(verdicts["board_id"].nunique()), len(bank.board_ids)
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
