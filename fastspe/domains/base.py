"""The domain seam: what the shared pipeline (parsing, scoring, metrics, bootstrap, reports, runners) asks of a domain.

A domain (the sliding puzzle, Sokoban) says how its bank rows pack into the arrays its replay kernel reads, how a
plan of action codes (0 = U, 1 = D, 2 = L, 3 = R, anything else invalid; the shared parser makes them) replays
there, what its error kinds and its second stratum are called, and what its prompt is. The shared layers never
look inside a domain's boards; they see only the ``Packed`` arrays and the replay's per-plan outputs.

Error codes are shared where their meaning is: 0 none, 3 ``invalid_action``, 4 ``format`` (set by scoring for an
answer with no plan); 1 and 2 are the domain's own two kinds of illegal move (the sliding puzzle's ``boundary`` and
``obstacle``, Sokoban's ``wall`` and ``box_blocked``). Status codes are shared: 0 complete, 1 legal_noncompletion,
2 illegal. ``h`` is the domain's goal distance estimate that is 0 exactly at the goal (the sliding puzzle's h(s),
Sokoban's sum of box-to-nearest-goal push distances); replay reports the final and least h over the legal prefix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol

import numpy as np

__all__ = ["Packed", "Domain", "STATUS_NAMES", "SHARED_ERRORS"]

STATUS_NAMES = ("complete", "legal_noncompletion", "illegal")
SHARED_ERRORS = {0: "", 3: "invalid_action", 4: "format"}


class Packed(Protocol):
    """A checked bank packed for its domain's replay kernel: per-row arrays the shared layer reads."""

    ids: Any  # pa.Array of str (m,), the board ids
    depth: np.ndarray  # int64 (m,), the certified d*
    cohort_code: np.ndarray  # int32 (m,), index into cohort_names
    cohort_names: Any  # pa.Array of str
    layout_index: np.ndarray  # int64 (m,), index into layout_names
    layout_names: Any  # pa.Array of str: the sliding layout tag; Sokoban: the level's size "RxC"
    domain: str  # the name of the domain that packed it (a class attribute will do): scoring finds its replay

    def stratum_values(self) -> np.ndarray:  # int64 (m,), the second stratum (k, boxes)
        ...

    def rows_of(self, board_ids) -> np.ndarray:  # bank rows of board ids, -1 where unknown
        ...


@dataclass(frozen=True)
class Domain:
    """One domain's answers to the shared pipeline.

    name : the ``--domain`` value and the ``fastspe.domain`` key in bank and verdict file metadata
    stratum : the bank and verdict column of the second stratum (``k``, ``boxes``)
    stratum_label : how tables and figures name it ("blocked cells k", "boxes")
    error_names : error_kind name of each code 0..4 (see the module docstring)
    start_column : the bank column holding the start state (``board``, ``level``)
    pack : a checked bank table -> ``Packed``
    replay : (packed, rows int64 (n,), codes uint8, offsets int64 (n + 1,)) -> (status int8, error_kind int8,
        first_error int64, final_h int32, min_h int32, revisits int64, goal_midway bool), each (n,)
    render_prompt : a bank row (a mapping of its columns) -> the prompt text
    prompt_version : the prompt's version string, recorded with every answer
    prompt_sha256 : the sha256 of the prompt's template, recorded with every answer
    """

    name: str
    stratum: str
    stratum_label: str
    error_names: tuple[str, ...]
    start_column: str
    pack: Callable[[Any], Packed]
    replay: Callable[[Packed, np.ndarray, np.ndarray, np.ndarray], tuple]
    render_prompt: Callable[[Mapping], str]
    prompt_version: str
    prompt_sha256: str
