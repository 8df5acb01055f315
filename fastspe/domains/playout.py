"""The loop of every domain's ``Domain.playout``: moves played from a start state up to the first illegal one.

A domain gives its rules as one step, ``step(state, symbol) -> (next state, "")`` or ``(None, error kind)`` (a name of
its ``error_names``; ``invalid_action`` for ``?`` or any character that is no symbol), how its prompt writes a state,
and when a state is the goal; ``play_out`` does the rest, so that every domain stops, counts and words an illegal move
the same way. Plain Python: a tool call plays out a few hundred moves at most.
"""

from __future__ import annotations

from typing import Callable, Mapping, TypeVar

from .codes import SHARED_REASONS
from .contract import Playout

__all__ = ["play_out"]

State = TypeVar("State")


def play_out(
    start: State,
    plan: str,
    step: Callable[[State, str], tuple[State | None, str]],
    write: Callable[[State], str],
    at_goal: Callable[[State], bool],
    reasons: Mapping[str, str],
) -> Playout:
    """``plan`` (one vocabulary symbol per action) played from ``start`` with ``step``, stopping at the first illegal
    action; ``reasons``: the domain's ``error_reasons`` (the shared kinds' words are added here)."""
    state = start
    for number, symbol in enumerate(plan, start=1):
        after, error = step(state, symbol)
        if error:
            why = reasons.get(error) or SHARED_REASONS.get(error, error.replace("_", " "))
            return Playout(number - 1, at_goal(state), write(state), number, symbol, why)
        state = after
    return Playout(len(plan), at_goal(state), write(state))
