"""Sokoban's answers to the shared pipeline (``domains.base.Domain``): packing, replay, error kinds, the prompt."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from ...kernels.sokoban_replay import ERROR_NAMES, replay_levels
from ..base import Domain
from .pack import SokobanTables, pack_table
from .prompt import PROMPT_SHA256, PROMPT_VERSION, render_prompt

__all__ = ["DOMAIN", "replay"]


def replay(packed: SokobanTables, rows: np.ndarray, codes: np.ndarray, offsets: np.ndarray) -> tuple:
    """Replay plan i (``codes[offsets[i]:offsets[i + 1]]``) on bank row ``rows[i]``: the kernel's 7 outputs."""
    t = packed.tables
    return replay_levels(np.asarray(rows, dtype=np.int64), codes, offsets, t.moves, t.push_distance, t.player,
                         t.boxes, t.nboxes)


def _row_prompt(row: Mapping) -> str:
    return render_prompt(row["level"])


DOMAIN = Domain(name="sokoban", stratum="boxes", stratum_label="boxes", error_names=ERROR_NAMES,
                start_column="level", pack=pack_table, replay=replay, render_prompt=_row_prompt,
                prompt_version=PROMPT_VERSION, prompt_sha256=PROMPT_SHA256)
