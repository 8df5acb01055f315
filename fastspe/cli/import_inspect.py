"""``fastspe import-inspect``: an inspect_ai eval log of a fastspe task (``fastspe/planning``, ...) -> a responses file.

inspect_ai is an optional extra, imported only when the command runs (``fastspe --help`` stays fast);
without it the command is one ``error:`` line and exit 2.
"""

from __future__ import annotations

import importlib

from .._text import count
from ._common import fail, refuse_overwrite, say

MISSING_EXTRA = "fastspe import-inspect needs inspect_ai: pip install 'fastspe[inspect]'"


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "import-inspect",
        help="turn an inspect_ai eval log into a responses file",
        description="Write the answers of an inspect_ai eval log of a fastspe task (fastspe/planning or a domain's own) "
        "as a responses file for `fastspe score`. Errored samples are left out "
        "with a warning (or kept with --keep-errors); a log whose run failed, "
        "was cancelled or never finished is refused (unless --allow-incomplete).",
    )
    p.add_argument("log", metavar="LOG", help="inspect eval log (.eval or .json)")
    p.add_argument("--out", required=True, metavar="RESPONSES", help="responses file to write (.jsonl, .csv, .parquet)")
    p.add_argument(
        "--condition",
        metavar="NAME",
        help="condition of the responses (default: the log's model, e.g. openai:gpt-4o, with fastspe run's "
        "suffixes for a prompt variant and a protocol: openai:gpt-4o+cot+tools)",
    )
    p.add_argument(
        "--keep-errors",
        action="store_true",
        help="keep errored samples as failed attempts (status error, no response); score skips them "
        "and counts them as lost outputs",
    )
    p.add_argument(
        "--allow-incomplete",
        action="store_true",
        help="import a log whose eval status is error, cancelled or started (with a warning)",
    )
    p.set_defaults(func=run_import)


def inspect_task():
    """``fastspe.inspect_task``, or None when inspect_ai is not installed."""
    try:
        # import_module, not `from .. import`: that would return a cached attribute without importing
        return importlib.import_module("fastspe.inspect_task")
    except ImportError as exc:
        cause = exc.__cause__ if isinstance(exc.__cause__, ImportError) else exc
        if (getattr(cause, "name", None) or "").split(".")[0] == "inspect_ai":
            return None
        raise  # inspect_ai is there but something else is broken: show it


def run_import(args) -> int:
    from ..boundary.files import table_format

    refuse_overwrite({"LOG": args.log}, {"--out": args.out})
    table_format(args.out)  # fail before any work on a bad output name
    module = inspect_task()
    if module is None:
        return fail(MISSING_EXTRA)
    responses = module.import_log(
        args.log,
        args.out,
        condition=args.condition,
        keep_errors=args.keep_errors,
        allow_incomplete=args.allow_incomplete,
    )
    errored = int((responses["status"] != "ok").sum())
    kept = f" and {count(errored, 'errored sample')} as failed attempts" if errored else ""
    conditions = ", ".join(sorted(responses["condition"].unique()))
    say(f"imported {count(len(responses) - errored, 'answer')}{kept} (condition {conditions}) -> {args.out}")
    if "prompt_variant" in responses.columns:
        from ..boundary.prompt_texts import sidecar_path

        say(
            f"the prompt variant ({responses['prompt_variant'].iat[0]}) and every message asked -> "
            f"{sidecar_path(args.out)} (keep it with the answers: score checks them against it)"
        )
    return 0
