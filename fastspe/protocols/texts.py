"""What the model is told in a conversation: the ``apply_moves`` tool's definition in the chat format and its results
for the calls a model writes (the tool's words themselves are ``tool_text``'s, shared with the inspect_ai task), and
the verifier's feedback on a plan.

Every text is built from ``Domain.playout`` (the domain's replay in plain Python, its states written as its prompt
writes them) and the domain's vocabulary and unit, so no domain is named here. Plans are read by fastspe's reference
parser with the domain's vocabulary: the letters mean to the protocols exactly what they mean to the scorer.
"""

from __future__ import annotations

import json
from typing import Mapping

from ..domains.contract import Domain
from ..scoring.parse_reference import NO_PLAN, parse_answer
from .tool_text import MOVES_ARGUMENT, TOOL_NAME, apply_moves_result, moves_description, playout_text, tool_description


def tool_definition(domain: Domain) -> dict:
    """The ``apply_moves`` tool in the OpenAI chat format (the Anthropic provider converts it)."""
    return {
        "type": "function",
        "function": {
            "name": TOOL_NAME,
            "description": tool_description(domain),
            "parameters": {
                "type": "object",
                "properties": {MOVES_ARGUMENT: {"type": "string", "description": moves_description(domain)}},
                "required": [MOVES_ARGUMENT],
                "additionalProperties": False,
            },
        },
    }


def read_plan(domain: Domain, text: str) -> str | None:
    """The stored plan (one vocabulary symbol per action, ``?`` for a token that is none) of an answer, as scoring
    reads it; None when no plan can be read."""
    parsed = parse_answer(text, vocabulary=domain.vocabulary)
    return None if parsed.mode == NO_PLAN else parsed.moves


def tool_moves(arguments: str) -> str | None:
    """The ``moves`` string of a tool call's JSON ``arguments``; None when they are not ``{"moves": "..."}``."""
    try:
        args = json.loads(arguments)
    except (ValueError, TypeError, RecursionError):
        return None
    value = args.get(MOVES_ARGUMENT) if isinstance(args, dict) else None
    return value if isinstance(value, str) else None


# What one turn may make fastspe play out: a model's calls cost fastspe CPU (a 1 MB moves string takes seconds to
# read), and no plan of a bank is near these sizes. Calls past them are answered with an error text, not played.
MAX_CALLS_PER_TURN = 32
MAX_ARGUMENT_CHARS = 65_536


def tool_result(domain: Domain, row: Mapping, name: str, arguments: str, index: int = 0) -> str:
    """The text call number ``index`` (0-based) of a turn, of tool ``name`` with JSON ``arguments``, returns for bank
    row ``row``: ``apply_moves``'s result, or an ``error:`` text for another tool, arguments that are not
    ``{"moves": "..."}``, or a call past ``MAX_CALLS_PER_TURN`` or ``MAX_ARGUMENT_CHARS``."""
    if index >= MAX_CALLS_PER_TURN:
        return f"error: at most {MAX_CALLS_PER_TURN} tool calls are played per turn; this one was not"
    if len(arguments) > MAX_ARGUMENT_CHARS:
        return f"error: the arguments are {len(arguments):,} characters long; at most {MAX_ARGUMENT_CHARS:,} are read"
    if name != TOOL_NAME:
        return f"error: there is no tool {name!r}; the one tool is {TOOL_NAME}"
    moves = tool_moves(arguments)
    if moves is None:
        return (
            f"error: the arguments must be a JSON object with one string, {MOVES_ARGUMENT}, e.g. "
            f'{{"{MOVES_ARGUMENT}": "{",".join(domain.vocabulary.tokens[:3])}"}}'
        )
    return apply_moves_result(domain, row, moves)


def answer_form(domain: Domain, row: Mapping) -> str:
    """What follows ``MOVES:`` in the words of the row's prompt ("comma-separated U,D,L,R"), so that feedback asks
    for the answer as the prompt did; in general words for a domain that names no prompt parts."""
    try:
        return domain.prompt_fields(row)["answer_form"]
    except (NotImplementedError, KeyError):
        return f"comma-separated {','.join(domain.vocabulary.tokens)}"


def feedback(domain: Domain, row: Mapping, answer: str) -> tuple[str, bool]:
    """The verifier's word on ``answer`` for bank row ``row`` and whether its plan solves it: the first illegal move
    and why with the state before it, "legal, but not at the goal" with the state after the plan, or a format
    failure; each but the solved one asks for the whole plan again."""
    again = (
        f"Try again: give the whole plan from the start {domain.unit} on a final line: MOVES: followed by "
        f"{answer_form(domain, row)}."
    )
    plan = read_plan(domain, answer)
    if plan is None:
        return f"No plan could be read from your answer (a format failure). {again}", False
    played = domain.playout(row, plan)
    if played.illegal:
        return f"Your plan is not legal. {playout_text(domain, played)}\n{again}", False
    if not played.complete:
        return f"Your plan is legal, but not at the goal. The {domain.unit} after it:\n{played.state}\n{again}", False
    return "Your plan is legal and reaches the goal.", True
