"""Offline baseline planners for Hanoi banks: answers in the ``MOVES: AB, AC`` form, scored like model answers
(condition ``baseline:<planner>``).

- ``oracle``: the certificate (R = Q = E = SPE = 1);
- ``greedy``: the legal move that most lowers a weak heuristic, the number of disks not on C (ties drawn at random),
  until no move lowers it or 2 d* moves are made. Only a move onto C lowers it, so the planner stacks what it can
  on C and stops: legal by construction, complete only when the start allows it;
- ``random``: d* actions drawn uniformly from the six (mostly illegal).

Every plan is a pure function of (seed, planner, board_id, trial) (``fastspe.domains.baselines.board_keys``), so
shuffling, filtering or extending a bank, or asking for more trials, leaves the answers already given unchanged.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from fastspe.boundary.files import require_columns
from fastspe.domains.baselines import ANSWER_PREFIX, TRIAL_SLOTS, board_keys, check_int, planner_name, response_frame
from fastspe.domains.codes import NO_ERROR
from fastspe.errors import UserError
from fastspe.kernels import MAX_SEED

from .prompt import render_prompt
from .rules import GOAL_PEG, SYMBOLS, TOKENS, move, read_start

__all__ = ["PLANNERS", "greedy_plan", "random_plan", "baseline_responses"]

PLANNERS = {"oracle": 0, "greedy": 1, "random": 2}  # the code is part of each trial's random stream
_NEEDED = ["board_id", "rule", "depth", "start", "certificate"]


def greedy_plan(start: str, rule: str, depth: int, rng: np.random.Generator) -> list[str]:
    """The greedy planner's tokens from ``start`` (see the module docstring)."""
    pegs, out = read_start(start), []
    off_goal = sum(p != GOAL_PEG for p in pegs)
    while len(out) < 2 * depth:
        lowering = []
        for code in range(len(TOKENS)):
            after, _, error = move(pegs, code, rule)
            if error == NO_ERROR and sum(p != GOAL_PEG for p in after) < off_goal:
                lowering.append((code, after))
        if not lowering:
            break
        code, pegs = lowering[int(rng.integers(len(lowering)))]
        off_goal -= 1
        out.append(TOKENS[code])
    return out


def random_plan(depth: int, rng: np.random.Generator) -> list[str]:
    """``depth`` actions drawn uniformly from the six."""
    return [TOKENS[c] for c in rng.integers(0, len(TOKENS), size=max(int(depth), 0))]


def baseline_responses(bank: pd.DataFrame, planner: str, trials: int = 3, seed: int = 0) -> pd.DataFrame:
    """Answers of one planner to every row of a Hanoi bank DataFrame, ``trials`` each, in bank order
    (``fastspe.domains.baselines.RESPONSE_COLUMNS``)."""
    name = planner_name(planner, PLANNERS, "Hanoi ")
    trials = check_int(trials, "trials", 1, TRIAL_SLOTS)
    seed = check_int(seed, "seed", 0, MAX_SEED)
    require_columns(bank, _NEEDED, "Hanoi bank rows", "build it with `fastspe bank build --domain hanoi`")
    if len(bank) == 0:
        raise UserError("the bank is empty: there is nothing to answer")
    keys = board_keys(bank["board_id"])
    texts = []
    for start, rule, depth, cert, key in zip(bank["start"], bank["rule"], bank["depth"], bank["certificate"], keys):
        for t in range(trials):
            rng = np.random.default_rng([seed, PLANNERS[name], int(key), t])
            if name == "oracle":
                tokens = [TOKENS[SYMBOLS.index(s)] for s in cert]
            elif name == "greedy":
                tokens = greedy_plan(start, rule, int(depth), rng)
            else:
                tokens = random_plan(int(depth), rng)
            texts.append(ANSWER_PREFIX + ", ".join(tokens))
    return response_frame(
        bank["board_id"].to_numpy(dtype=object),
        name,
        trials,
        texts,
        [render_prompt(start, rule) for start, rule in zip(bank["start"], bank["rule"])],
    )
