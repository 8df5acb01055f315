"""The ``apply_moves`` tool in words, the same whoever runs the conversation (fastspe's runners, inspect_ai's tool
machinery): its name, what it says of itself and of its one parameter, and what it returns: the state after the
moves, or the first illegal move, why, and the state before it.

The moves are read as scoring reads a plan (the reference parser with the domain's vocabulary, after a ``MOVES:``
label), so the letters mean to the tool what they mean to the scorer, and played from the START state with
``Domain.playout``, which writes states as the domain's prompt writes them. No domain is named here.
"""

from __future__ import annotations

from typing import Mapping

from ..domains.contract import Domain, Playout
from ..domains.vocabulary import INVALID_SYMBOL
from ..scoring.parse_reference import parse_answer

__all__ = ["TOOL_NAME", "MOVES_ARGUMENT", "tool_description", "moves_description", "apply_moves_result", "playout_text"]

TOOL_NAME = "apply_moves"
MOVES_ARGUMENT = "moves"


def tool_description(domain: Domain) -> str:
    """What the tool says it does (the model reads it with the tool's definition)."""
    unit = domain.unit
    return (
        f"Play moves from the START {unit} (always the start, not the last result) and see the {unit} after them, "
        f"written as the prompt writes it; or the first illegal move, why it is illegal and the {unit} before it. "
        f"It does not answer for you: give your final plan in your answer."
    )


def moves_description(domain: Domain) -> str:
    """What the tool says of its one parameter, ``moves``."""
    tokens = domain.vocabulary.tokens
    return (
        f"The moves in order, comma-separated, in the same letters as a plan ({', '.join(tokens)}), "
        f'e.g. "{",".join(tokens[:3])}"'
    )


def apply_moves_result(domain: Domain, row: Mapping, moves_text: str) -> str:
    """What ``apply_moves(moves=moves_text)`` returns for bank row ``row`` (a mapping of its columns)."""
    # after a label every token is read, one that is no move as "?" (an illegal move 'invalid action' to the model),
    # and text of no tokens is the empty plan: the start state
    plan = parse_answer("MOVES: " + moves_text, vocabulary=domain.vocabulary).moves
    return playout_text(domain, domain.playout(row, plan))


def playout_text(domain: Domain, played: Playout) -> str:
    """A playout in words: the state alone when every move was legal, else ``Move N (X) is illegal: REASON. The
    UNIT before it:`` and that state (X the move's token as the model writes it, ``?`` for a token that is no
    move)."""
    if not played.illegal:
        return played.state
    vocabulary = domain.vocabulary
    at = vocabulary.symbols.find(played.action) if played.action and played.action != INVALID_SYMBOL else -1
    token = vocabulary.tokens[at] if at >= 0 else INVALID_SYMBOL
    return f"Move {played.illegal} ({token}) is illegal: {played.reason}. The {domain.unit} before it:\n{played.state}"
