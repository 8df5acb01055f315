"""``fastspe prompts export``: the exact requests of a run, one JSONL line per trial, for an engine outside fastspe."""

from __future__ import annotations

from .._text import count
from ..errors import UserError
from ._common import refuse_overwrite, say, trials_option
from .domain_options import domain_option
from .prompt_options import add_prompt_options, prompt_inputs, prompt_spec_of
from .run import condition_name


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "prompts",
        help="export the prompts of a run (OpenAI chat messages, one line a trial)",
        description="The prompts fastspe sends, for engines outside it: `fastspe prompts export` "
        "writes every trial's messages; `fastspe score --prompts` reads the "
        "answers back (docs/prompts.md).",
    )
    sub = p.add_subparsers(dest="prompts_command", metavar="SUBCOMMAND", required=True)
    e = sub.add_parser(
        "export",
        help="write every trial's messages to a JSONL file",
        description="Write one JSON line per trial: trial_id (the id `fastspe run` gives it), board_id, condition, "
        "trial, messages (the OpenAI chat format) and prompt_text_sha256. Answer them with any engine, "
        "then score the answers with `fastspe score --responses ANSWERS.jsonl --prompts OUT` (lines of "
        "trial_id and response) or without --prompts (lines of board_id, condition, trial and response). "
        "The prompt's spec is kept beside OUT (OUT's name with .prompts.jsonl). docs/prompts.md",
    )
    e.add_argument("--bank", required=True, help="bank file (.parquet or .jsonl)")
    e.add_argument("--out", required=True, metavar="PROMPTS.jsonl", help="the export to write (replaced whole)")
    e.add_argument("--trials", type=trials_option, default=3, help="trials per board (default: 3)")
    name = e.add_mutually_exclusive_group()
    name.add_argument(
        "--model",
        metavar="PROVIDER:MODEL",
        help="the condition is PROVIDER:MODEL with the prompt's suffix, as `fastspe run --model` names it",
    )
    name.add_argument("--condition", type=condition_name, metavar="NAME", help="the condition's name")
    domain_option(e, default=None, what="refuse a bank of another domain (default: the bank's own)")
    add_prompt_options(e)
    e.set_defaults(func=run_export)


def run_export(args) -> int:
    from ..boundary.banks import load_bank
    from ..runners.generation import default_condition
    from ..runners.export import export_prompts

    refuse_overwrite({"--bank": args.bank, **prompt_inputs(args)}, {"--out": args.out})
    if args.model is None and args.condition is None:
        raise UserError("give --model PROVIDER:MODEL or --condition NAME: a trial's id depends on its condition")
    spec = prompt_spec_of(args)
    condition = args.condition if args.condition is not None else default_condition(args.model, spec)
    bank = load_bank(args.bank)
    if args.domain is not None and args.domain != bank.domain.name:
        raise UserError(f"{args.bank}: a {bank.domain.name} bank, not a {args.domain} one")
    n = export_prompts(bank, args.out, condition, args.trials, spec)
    say(f"{condition}: {count(n, 'trial')} of {count(len(bank), bank.domain.unit)} -> {args.out}")
    return 0
