"""What the model is told: the ``apply_moves`` tool's definition, its results and the verifier's feedback.

Every text is built from ``Domain.playout`` (the domain's replay in plain Python, its states written as its prompt
writes them) and the domain's vocabulary and unit, so no domain is named here. The moves a model passes the tool,
and the plans it answers, are read by fastspe's reference parser with the domain's vocabulary: the letters mean to
the tool exactly what they mean to the scorer.
"""

from __future__ import annotations

import json
from typing import Mapping

from ..domains.contract import Domain, Playout
from ..domains.vocabulary import INVALID_SYMBOL
from ..scoring.parse_reference import NO_PLAN, parse_answer
from .._text import count

TOOL_NAME = "apply_moves"
ARGUMENT = "moves"


def tool_definition(domain: Domain) -> dict:
    """The ``apply_moves`` tool in the OpenAI chat format (the Anthropic provider converts it)."""
    tokens = domain.vocabulary.tokens
    example = ",".join(tokens[:3])
    unit = domain.unit
    return {"type": "function", "function": {
        "name": TOOL_NAME,
        "description": (f"Play moves from the START {unit} (always the start, not the last result) and see the {unit} "
                        f"after them, written as the prompt writes it; or the first illegal move, why it is illegal "
                        f"and the {unit} before it. It does not answer for you: give your final plan in your answer."),
        "parameters": {"type": "object", "properties": {ARGUMENT: {
            "type": "string",
            "description": (f"The moves in order, comma-separated, in the same letters as a plan "
                            f"({', '.join(tokens)}), e.g. \"{example}\"")}},
            "required": [ARGUMENT], "additionalProperties": False}}}


def read_plan(domain: Domain, text: str) -> str | None:
    """The stored plan (one vocabulary symbol per action, ``?`` for a token that is none) of ``text``, as scoring
    reads an answer; None when no plan can be read."""
    parsed = parse_answer(text, vocabulary=domain.vocabulary)
    return None if parsed.mode == NO_PLAN else parsed.moves


def tool_moves(arguments: str) -> str | None:
    """The ``moves`` string of a tool call's JSON ``arguments``; None when they are not ``{"moves": "..."}``."""
    try:
        args = json.loads(arguments)
    except (ValueError, TypeError, RecursionError):
        return None
    value = args.get(ARGUMENT) if isinstance(args, dict) else None
    return value if isinstance(value, str) else None


def tool_result(domain: Domain, row: Mapping, name: str, arguments: str) -> str:
    """The text a call of tool ``name`` with ``arguments`` returns for bank row ``row``."""
    if name != TOOL_NAME:
        return f"error: there is no tool {name!r}; the one tool is {TOOL_NAME}"
    moves = tool_moves(arguments)
    if moves is None:
        return (f"error: the arguments must be a JSON object with one string, {ARGUMENT}, e.g. "
                f"{{\"{ARGUMENT}\": \"{','.join(domain.vocabulary.tokens[:3])}\"}}")
    plan = "" if not moves.strip() else read_plan(domain, "MOVES: " + moves)
    if plan is None:
        return f"error: no moves could be read from {moves!r}; give them as comma-separated {_tokens(domain)}"
    return _played(domain, domain.playout(row, plan), "from the start")


def feedback(domain: Domain, row: Mapping, answer: str) -> tuple[str, bool]:
    """The verifier's word on ``answer`` for bank row ``row`` and whether the plan solves it."""
    plan = read_plan(domain, answer)
    if plan is None:
        return (f"No plan could be read from your answer (a format failure). Give the whole plan from the start "
                f"{domain.unit} on a final line: MOVES: followed by comma-separated {_tokens(domain)}.", False)
    played = domain.playout(row, plan)
    solved = played.illegal == 0 and played.complete
    if solved:
        return "Your plan is legal and reaches the goal.", True
    verdict = _played(domain, played, "of your plan")
    if played.illegal == 0:
        verdict = f"Legal, but not at the goal. {verdict}"
    return (f"{verdict}\nTry again: give the whole plan from the start {domain.unit} on a final line: MOVES: followed "
            f"by comma-separated {_tokens(domain)}.", False)


def _played(domain: Domain, played: Playout, whose: str) -> str:
    """The playout in words: the state after the moves, or the first illegal move, why, and the state before it."""
    unit = domain.unit
    if played.illegal:
        return (f"Move {played.illegal} ({_token(domain, played.action)}) is illegal: {played.reason}. The {unit} before it, "
                f"after {count(played.applied, 'legal move')} {whose}:\n{played.state}")
    return f"{count(played.applied, 'move')} played, all legal. The {unit} now:\n{played.state}"


def _token(domain: Domain, symbol: str) -> str:
    """The token a model writes for a stored plan's ``symbol`` (``?`` for one that is no move)."""
    vocabulary = domain.vocabulary
    at = vocabulary.symbols.find(symbol) if symbol and symbol != INVALID_SYMBOL else -1
    return vocabulary.tokens[at] if at >= 0 else INVALID_SYMBOL


def _tokens(domain: Domain) -> str:
    return ", ".join(domain.vocabulary.tokens)
