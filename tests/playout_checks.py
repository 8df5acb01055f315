"""What every domain's ``Domain.playout`` must do, checked against the domain's independent verifier and its prompt:
shared by the sliding, Sokoban and Hanoi playout tests."""

from __future__ import annotations

from fastspe.domains.codes import SHARED_REASONS


def check_against_verifier(domain, row, board, plan: str, board_at=None):
    """``domain.playout(row, plan)`` says what ``domain.verifier.replay(board, plan)`` says: the first illegal move
    (1-based, its symbol and the domain's words for its kind), the moves applied, and complete exactly when the
    verifier calls the legal prefix complete. ``board_at(state text)``: the verifier's board starting in the state the
    playout wrote, whose h must be the one the verifier reached after the legal prefix. Returns the playout."""
    out = domain.playout(row, plan)
    verdict = domain.verifier.replay(board, plan)
    if verdict["status"] == "illegal":
        first = verdict["first_error"]
        reasons = {**SHARED_REASONS, **domain.error_reasons}
        assert (out.illegal, out.applied, out.action, out.reason) == (
            first + 1,
            first,
            plan[first],
            reasons[verdict["error_kind"]],
        )
    else:
        assert (out.illegal, out.applied, out.action, out.reason) == (0, len(plan), "", "")
    prefix = domain.verifier.replay(board, plan[: out.applied])
    assert out.complete == (prefix["status"] == "complete")
    if board_at is not None:
        there = domain.verifier.replay(board_at(out.state), "")
        assert (there["final_h"], there["status"]) == (prefix["final_h"], prefix["status"])
    return out


def check_start_and_certificate(domain, rows, initial_and_goal) -> None:
    """For each bank row: the empty plan plays out to the prompt's initial state, the certificate to its goal
    (``initial_and_goal``: a prompt's two state texts)."""
    for row in rows:
        initial, goal = initial_and_goal(domain.render_prompt(row))
        start = domain.playout(row, "")
        assert (start.state, start.applied, start.complete) == (initial, 0, row["depth"] == 0)
        end = domain.playout(row, row["certificate"])
        assert (end.state, end.applied, end.illegal, end.complete) == (goal, row["depth"], 0, True)


def between(text: str, before: str, after: str | None = None) -> str:
    """The part of a prompt between two of its headings (to its end when ``after`` is None)."""
    part = text.split(before, 1)[1]
    return part if after is None else part.split(after, 1)[0]
