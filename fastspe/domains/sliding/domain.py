"""The sliding puzzle as a ``domains.base.Domain``: what exists (``pack.packed_bank``, ``kernels.replay``, the
Appendix B prompt), wrapped with no change in bytes or speed."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from ...kernels.replay import ERROR_NAMES, replay_plans
from ..base import Domain
from .pack import BankTables, packed_bank
from .prompt import PROMPT_SHA256, PROMPT_VERSION, render_prompt

__all__ = ["DOMAIN"]


def _replay(tables: BankTables, rows: np.ndarray, codes: np.ndarray, offsets: np.ndarray) -> tuple:
    return replay_plans(tables.boards, rows, codes, offsets, tables.layout_index[rows], tables.moves, tables.dist,
                        tables.goal_cell, tables.bits)


def _prompt(row: Mapping) -> str:
    return render_prompt(row["initial"], row["goal"], int(row["rows"]), int(row["cols"]))


DOMAIN = Domain(name="sliding", stratum="k", stratum_label="blocked cells k", error_names=ERROR_NAMES,
                start_column="initial", pack=packed_bank, replay=_replay, render_prompt=_prompt,
                prompt_version=PROMPT_VERSION, prompt_sha256=PROMPT_SHA256)
