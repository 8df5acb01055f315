"""The prompt options of ``fastspe run`` and ``fastspe prompts export`` (one argument group, read into a
``PromptSpec``): ``--prompt``, ``--system``, ``--shots``, ``--shots-bank``, ``--shots-seed``."""

from __future__ import annotations

import argparse

from ._common import int_option, seed_option, text_option

MAX_SHOTS = 64  # fastspe.prompting.shots.MAX_SHOTS (not imported: --help stays light)


def add_prompt_options(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group(
        "prompt",
        "what each trial asks (without these options: the paper's prompt alone, as before); part of "
        "the condition: a default condition name gains a suffix (+cot, +template:NAME, +system:HASH8, +Nshot), and a "
        "condition keeps one prompt (docs/prompts.md)",
    )
    g.add_argument(
        "--prompt",
        default="paper",
        type=text_option,
        metavar="paper|cot|FILE",
        help="paper: the domain's prompt; cot: think step by step, then the same final MOVES: line; FILE: "
        "a template with named fields {initial}, {goal}, {rules}, {answer}, ... (the bank's columns "
        "and the domain's prompt parts) (default: paper)",
    )
    g.add_argument(
        "--system",
        type=text_option,
        metavar="TEXT|FILE",
        help="a system message: the text of FILE when it names one, else TEXT; one word that looks like a "
        "file name (system.txt) but names no file is refused as a typo (default: none)",
    )
    g.add_argument(
        "--shots",
        type=int_option(0, MAX_SHOTS),
        default=0,
        metavar="N",
        help="N worked examples before the board's prompt: a board of --shots-bank and its certified "
        "optimal plan as the answer (default: 0)",
    )
    g.add_argument(
        "--shots-bank",
        metavar="BANK",
        help="the bank the worked examples are drawn from; none of its drawn boards may be a board "
        "asked (same id or start state)",
    )
    g.add_argument(
        "--shots-seed",
        type=seed_option,
        default=0,
        metavar="SEED",
        help="seed of the worked examples' draw (default: 0)",
    )


def prompt_spec_of(args: argparse.Namespace):
    """The ``PromptSpec`` the options ask for (the shots bank read and drawn from)."""
    from ..prompting import given_prompt_spec

    return given_prompt_spec(args.prompt, args.system, args.shots, args.shots_bank, args.shots_seed)


def prompt_inputs(args: argparse.Namespace) -> dict:
    """The files the prompt options read, for ``refuse_overwrite``."""
    return {"--shots-bank": args.shots_bank}
