"""Offline baseline planners for Sokoban: answers to a Sokoban bank in the ``MOVES:`` form, as model responses.

They go through the same files and scorer as model answers (condition ``baseline:<planner>``):

- ``oracle``: the certificate (R = Q = E = SPE = 1);
- ``greedy``: push a box one step closer to its nearest goal (h falls by one), the push drawn at random among those
  the player can walk to, walking there by a shortest path; stop when no push lowers h. Legal by construction: it
  completes (easy levels, mostly one box) or stops short (legal noncompletion);
- ``random``: d* uniformly random moves (on a push bank, as many as the certificate has; mostly illegal: walls and
  blocked pushes).

Every plan is a pure function of (seed, planner, board_id, trial): the random stream of a trial is NumPy's PCG64
seeded with (seed, planner, ``board_keys(board_id)``, trial), so shuffling, filtering or extending a bank, or
asking for more trials, leaves the answers already given unchanged.
"""

from __future__ import annotations

from collections import deque

import numpy as np
import pandas as pd

from ...boundary.files import require_columns
from .level import DIRECTIONS, Level, parse_level
from .prompt import render_prompt
from ...errors import UserError
from ...kernels import MAX_SEED
from ..baselines import ANSWER_PREFIX, TRIAL_SLOTS, board_keys, check_int, planner_name, response_frame

__all__ = ["SOKOBAN_PLANNERS", "sokoban_planner_name", "sokoban_baseline_responses", "greedy_plan", "random_plan"]

SOKOBAN_PLANNERS = {"oracle": 0, "greedy": 1, "random": 2}  # the code is part of each trial's random stream
_NEEDED = ["board_id", "level", "depth", "certificate"]


def sokoban_planner_name(planner: str) -> str:
    """``greedy`` or ``baseline:greedy`` -> ``greedy``; a ``UserError`` naming the choices otherwise."""
    return planner_name(planner, SOKOBAN_PLANNERS, "Sokoban ")


def random_plan(depth: int, rng: np.random.Generator) -> str:
    """``depth`` moves drawn uniformly from U, D, L, R."""
    return "".join(DIRECTIONS[d] for d in rng.integers(0, 4, size=max(int(depth), 0)))


def _walk(level: Level, player: int, boxes: set) -> tuple[dict, dict]:
    """Shortest walks of the player around the boxes: distance and (previous cell, direction) of each cell."""
    dist, came = {player: 0}, {}
    queue = deque([player])
    while queue:
        c = queue.popleft()
        for d in range(4):
            t = int(level.moves[c, d])
            if t >= 0 and t not in boxes and t not in dist:
                dist[t] = dist[c] + 1
                came[t] = (c, d)
                queue.append(t)
    return dist, came


def greedy_plan(level: Level, rng: np.random.Generator) -> str:
    """The greedy planner's moves on ``level`` (see the module docstring)."""
    back = (1, 0, 3, 2)
    boxes = set(level.boxes)
    player = level.player
    pushes = level.push_distance
    out = []
    while any(pushes[b] for b in boxes):
        dist, came = _walk(level, player, boxes)
        lower = []
        for b in sorted(boxes):
            for d in range(4):
                stand, beyond = int(level.moves[b, back[d]]), int(level.moves[b, d])
                if stand in dist and beyond >= 0 and beyond not in boxes and pushes[beyond] < pushes[b]:
                    lower.append((b, d, stand))
        if not lower:
            break
        b, d, stand = lower[int(rng.integers(len(lower)))]
        path, c = [], stand
        while c != player:
            c, step = came[c]
            path.append(DIRECTIONS[step])
        out.extend(reversed(path))
        out.append(DIRECTIONS[d])
        boxes.remove(b)
        boxes.add(int(level.moves[b, d]))
        player = b
    return "".join(out)


def sokoban_baseline_responses(bank: pd.DataFrame, planner: str, trials: int = 3, seed: int = 0) -> pd.DataFrame:
    """Answers of one baseline planner to every level of a Sokoban ``bank``, ``trials`` times each.

    Parameters
    ----------
    bank : DataFrame with at least ``board_id, level, depth, certificate`` (the certificate as U, D, L, R letters,
        commas allowed)
    planner : ``oracle``, ``greedy`` or ``random`` (a ``baseline:`` prefix is accepted)
    trials : int in 1..2**20; seed : int in 0..2**63-1

    Returns
    -------
    DataFrame with ``domains.baselines.RESPONSE_COLUMNS``, one row per (level, trial) in bank order and trials
    0..trials-1; ``response`` is ``"MOVES: U,D,L"`` and the metadata read as a completed API call.
    """
    name = sokoban_planner_name(planner)
    trials = check_int(trials, "trials", 1, TRIAL_SLOTS)
    seed = check_int(seed, "seed", 0, MAX_SEED)
    require_columns(bank, _NEEDED, "Sokoban bank rows", "build it with `fastspe bank build --domain sokoban`")
    if len(bank) == 0:
        raise UserError("the bank is empty: there is nothing to answer")
    keys = board_keys(bank["board_id"])
    levels: dict[str, Level] = {}
    texts = []
    aims = bank["objective"].fillna("moves").tolist() if "objective" in bank.columns else ["moves"] * len(bank)
    for bid, text, depth, cert, key, aim in zip(
        bank["board_id"], bank["level"], bank["depth"], bank["certificate"], keys, aims
    ):
        level = levels.get(text)
        if level is None:
            try:
                level = levels[text] = parse_level(text)
            except UserError as exc:
                raise UserError(f"board {bid!r}: {exc}") from None
        for t in range(trials):
            rng = np.random.default_rng([seed, SOKOBAN_PLANNERS[name], int(key), t])
            if name == "oracle":
                moves = str(cert).replace(",", "").replace(" ", "")
            elif name == "greedy":
                moves = greedy_plan(level, rng)
            else:
                moves = random_plan(int(depth) if aim == "moves" else len(str(cert).replace(",", "")), rng)
            texts.append(ANSWER_PREFIX + ",".join(moves))
    return response_frame(
        bank["board_id"].to_numpy(dtype=object),
        name,
        trials,
        texts,
        [render_prompt(level, aim) for level, aim in zip(bank["level"], aims)],
    )
