"""Plain-Python twin of ``fastspe.domains.sliding.kernels.replay.replay_plans``, written from the rules alone.

It shares no code with the package: its own neighbour rule, the bank twin's BFS, h recomputed from
scratch at every state, states compared as tuples in a set, and the goal checked by comparing
boards (not via h == 0).
"""

from __future__ import annotations

from .naive_bank import distances

STEPS = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}


def naive_distances(rows, cols, blocks):
    """Free-cell graph distances ``dist[a][b]`` (the bank twin's BFS)."""
    return distances(rows, cols, set(blocks))


def naive_h(board, goal, dist):
    where = {v: c for c, v in enumerate(goal) if v > 0}
    return sum(dist[c][where[v]] for c, v in enumerate(board) if v > 0)


def naive_replay(initial, goal, rows, cols, blocks, plan, dist=None):
    """Replay ``plan`` (a sequence of tokens; "U", "D", "L", "R" are moves, anything else is not).

    Returns a dict with status, error_kind, first_error, final_h, min_h, revisits, goal_midway, L.
    """
    dist = naive_distances(rows, cols, blocks) if dist is None else dist
    blocked = set(blocks)
    board = list(initial)
    goal = list(goal)
    blank = board.index(0)
    states = [tuple(board)]
    kind, first_error = "", -1
    for i, action in enumerate(plan):
        if action not in STEPS:
            kind, first_error = "invalid_action", i
            break
        dr, dq = STEPS[action]
        r, q = divmod(blank, cols)
        rr, qq = r + dr, q + dq
        if not (0 <= rr < rows and 0 <= qq < cols):
            kind, first_error = "boundary", i
            break
        t = rr * cols + qq
        if t in blocked:
            kind, first_error = "obstacle", i
            break
        board[blank], board[t] = board[t], 0
        blank = t
        states.append(tuple(board))
    hs = [naive_h(s, goal, dist) for s in states]
    revisits = 0
    seen = set()
    for s in states:
        if s in seen:
            revisits += 1
        seen.add(s)
    L = len(plan)
    if kind:
        status = "illegal"
    elif list(states[-1]) == goal:
        status = "complete"
    else:
        status = "legal_noncompletion"
    # states[j] is the state before action j; it is "midway" if an action follows it
    midway = any(list(s) == goal for j, s in enumerate(states) if j < L)
    return {
        "status": status,
        "error_kind": kind,
        "first_error": first_error,
        "final_h": hs[-1],
        "min_h": min(hs),
        "revisits": revisits,
        "goal_midway": midway,
        "L": L,
    }
