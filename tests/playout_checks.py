"""What every domain's ``Domain.playout`` must do, checked against the domain's independent verifier and its prompt:
shared by the sliding, Sokoban and Hanoi playout tests."""

from __future__ import annotations

from fastspe.domains.codes import SHARED_REASONS


def check_against_verifier(domain, row, board, plan: str):
    """``domain.playout(row, plan)`` says what ``domain.verifier.replay(board, plan)`` says: the first illegal move
    (1-based, its symbol and the domain's words for its kind), the moves applied, and complete exactly when the
    verifier calls the legal prefix complete. Returns the playout."""
    out = domain.playout(row, plan)
    verdict = domain.verifier.replay(board, plan)
    if verdict["status"] == "illegal":
        first = verdict["first_error"]
        reasons = {**SHARED_REASONS, **domain.error_reasons}
        assert (out.illegal, out.applied, out.action, out.reason) == \
            (first + 1, first, plan[first], reasons[verdict["error_kind"]])
        prefix = domain.verifier.replay(board, plan[:first])
        assert out.complete == (prefix["status"] == "complete")
    else:
        assert (out.illegal, out.applied, out.action, out.reason) == (0, len(plan), "", "")
        assert out.complete == (verdict["status"] == "complete")
    return out


def between(text: str, before: str, after: str | None = None) -> str:
    """The part of a prompt between two of its headings (to its end when ``after`` is None)."""
    part = text.split(before, 1)[1]
    return part if after is None else part.split(after, 1)[0]
