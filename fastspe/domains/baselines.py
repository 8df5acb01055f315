"""What every domain's offline baseline planners share: their answers as a run log's answered attempts, stable
per-board random-number keys, the planner's name, and checked arguments.

A baseline answers every (board, trial) of a bank in the exact ``MOVES: ...`` form, under the condition
``baseline:NAME``; each plan is a pure function of (seed, planner, board_id, trial) through ``board_keys``, so
shuffling, filtering or extending a bank, or asking for more trials, leaves the answers already given unchanged.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Sequence

import numpy as np

from ..errors import UserError, UserTypeError
from .contract import prompt_hash
from ..kernels import TRIAL_SLOTS

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CONDITION_PREFIX",
    "ANSWER_PREFIX",
    "RESPONSE_COLUMNS",
    "TRIAL_SLOTS",
    "planner_name",
    "response_frame",
    "board_keys",
    "check_int",
]

CONDITION_PREFIX = "baseline:"
ANSWER_PREFIX = "MOVES: "
RESPONSE_COLUMNS = [
    "board_id",
    "condition",
    "trial",
    "response",
    "finish_reason",
    "status",
    "attempt",
    "prompt_text_sha256",
]


def planner_name(planner: str, planners: Sequence[str], what: str = "") -> str:
    """``greedy`` or ``baseline:greedy`` -> ``greedy`` when it is one of ``planners``; a ``UserError`` naming the
    choices otherwise (``what``: the domain's words, "Sokoban ")."""
    if not isinstance(planner, str):
        raise UserTypeError(f"planner must be a string, got {planner!r}")
    name = planner.removeprefix(CONDITION_PREFIX)
    if name not in planners:
        raise UserError(f"unknown {what}baseline planner {planner!r}; choose one of {', '.join(planners)}")
    return name


def response_frame(board_ids, name: str, trials: int, texts, prompts=None) -> pd.DataFrame:
    """A baseline's responses as a run log's answered attempts (``RESPONSE_COLUMNS``): ``trials`` per board, in
    board order, ``texts`` board-major; ``prompts``: each board's prompt (``Domain.prompts``), whose hash every
    answer records as a model's does, so that scoring can tell it belongs to this bank's board (None: no hash, as answers made elsewhere)."""
    import pandas as pd

    board_ids = np.asarray(board_ids, dtype=object)
    hashes = np.array(
        [None if prompts is None else prompt_hash(text) for text in prompts or [None] * len(board_ids)], dtype=object
    )
    return pd.DataFrame(
        {
            "board_id": np.repeat(board_ids, trials),
            "condition": CONDITION_PREFIX + name,
            "trial": np.tile(np.arange(trials, dtype=np.int64), len(board_ids)),
            "response": texts,
            "finish_reason": "stop",
            "status": "ok",
            "attempt": 1,
            "prompt_text_sha256": np.repeat(hashes, trials),
        },
        columns=RESPONSE_COLUMNS,
    )


def board_keys(board_ids) -> np.ndarray:
    """Stable RNG keys of board ids: the first 4 bytes of BLAKE2b(board_id), int64 (n,) in [0, 2**32)."""
    return np.array(
        [int.from_bytes(hashlib.blake2b(str(b).encode(), digest_size=4).digest(), "little") for b in board_ids],
        dtype=np.int64,
    )


def check_int(value, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise UserTypeError(f"{what} must be an integer, got {value!r}")
    if not low <= int(value) <= high:
        raise UserError(f"{what} must be between {low} and {high}, got {value}")
    return int(value)
