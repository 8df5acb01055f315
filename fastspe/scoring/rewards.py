"""Rewards for training loops: score answers in memory, no files, NumPy arrays out.

Build a ``RewardScorer`` once per bank (it checks the bank and packs its boards and layouts), then call
it on each batch of rollouts::

    from fastspe import RewardScorer
    scorer = RewardScorer(bank)                 # a bank DataFrame or Arrow table
    r = scorer(board_ids, texts)                # sequences (or Arrow arrays) of equal length
    r.spe                                       # float64: d*/L for complete plans, 0 otherwise

``fastspe.reward(bank_or_scorer, board_ids, texts)`` does the same in one call (building a scorer
each time when given a bank). The verdicts are exactly those of ``fastspe score``: the same parser
(compiled), the same replay kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

import warnings

from ..errors import UserError, UserTypeError
from ..domains.codes import COMPLETE, STATUS_NAMES
from ..domains.contract import Packed
from ..domains.registry import DEFAULT_DOMAIN, domain_named
from .parse_column import MODE_NAMES
from ..boundary.banks import as_bank
from .score import packed_bank, replay_answers

__all__ = ["Rewards", "RewardScorer", "reward", "STATUS_NAMES", "MODE_NAMES"]


def __getattr__(name: str):
    if name == "ERROR_NAMES":  # the sliding puzzle's error names, before each domain had its own
        warnings.warn(
            "fastspe.scoring.rewards.ERROR_NAMES is the default domain's; use RewardScorer(bank).error_names "
            "(each domain names its own); the old name goes away in the release after 0.2",
            DeprecationWarning,
            stacklevel=2,
        )
        return domain_named(DEFAULT_DOMAIN).error_names
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class Rewards:
    """Per-answer results, all NumPy arrays of length n.

    status : int8, index into ``STATUS_NAMES`` (0 complete, 1 legal_noncompletion, 2 illegal)
    error_kind : int8, index into the bank's domain's ``error_names`` (``RewardScorer.error_names``; the sliding
        puzzle's: "" none, boundary, obstacle, invalid_action, format)
    parse_mode : int8, index into ``MODE_NAMES`` (exact, normalized, no_plan)
    L : int64, the plan's action count; first_error : int64, index of the first illegal action or -1
    depth : int64, the board's certified d*
    economy : float64, d*/L for complete plans, NaN otherwise (d*/cost on a bank whose d* does not count moves)
    spe : float64, the output's SPE contribution: d*/L for complete plans, 0 otherwise (mean = SPE)
    optimal : bool, complete with L = d* (cost = d*)
    final_h, min_h : int32, h of the last state reached and the least h along the legal prefix
    cost : int64, what the plan costs in ``cost_unit``, what d* counts (``Domain.cost_unit``): L on a bank of moves,
        the legal prefix's count of another unit (pushes, say) where d* counts that
    """

    status: np.ndarray
    error_kind: np.ndarray
    parse_mode: np.ndarray
    L: np.ndarray
    first_error: np.ndarray
    depth: np.ndarray
    economy: np.ndarray
    spe: np.ndarray
    optimal: np.ndarray
    final_h: np.ndarray
    min_h: np.ndarray
    cost: np.ndarray | None = None
    cost_unit: str = "moves"

    @property
    def complete(self) -> np.ndarray:
        return self.status == COMPLETE


class RewardScorer:
    """A bank checked and packed once, to score batches of answers in memory.

    Parameters
    ----------
    bank : a ``Bank`` (``fastspe.boundary.banks.read_bank``), a bank DataFrame or Arrow table of its domain's columns,
        or one already packed (``Domain.pack``)
    parse : "lenient" or "strict"; format_failure : "illegal" or "noncompletion" (as ``fastspe score``)

    Called with ``prompt_hashes`` (the ``prompt_text_sha256`` of the prompt each answer was made for), it refuses an
    answer to another prompt than the one the bank gives its board, as ``fastspe score`` does.
    """

    def __init__(self, bank, parse: str = "lenient", format_failure: str = "illegal"):
        self.bank = None if hasattr(bank, "stratum_values") else as_bank(bank)  # (a packed bank renders no prompts)
        self.tables: Packed = bank if self.bank is None else packed_bank(self.bank)
        self.error_names: tuple[str, ...] = domain_named(self.tables.domain).error_names
        self.parse, self.format_failure = parse, format_failure
        replay_answers(self.tables, np.zeros(0, dtype=np.int64), [], parse, format_failure)  # checks the options

    def rows(self, board_ids) -> np.ndarray:
        """Bank rows of ``board_ids``; a ``ValueError`` names the first id the bank does not hold."""
        rows = self.tables.rows_of(board_ids)
        unknown = np.flatnonzero(rows < 0)
        if len(unknown):
            i = int(unknown[0])
            bad = board_ids[i].as_py() if isinstance(board_ids, (pa.Array, pa.ChunkedArray)) else board_ids[i]
            raise UserError(f"board_ids[{i}] = {bad!r} is not in the bank ({len(unknown)} unknown ids)")
        return rows

    def check_prompts(self, rows: np.ndarray, board_ids, prompt_hashes) -> None:
        """``UserError`` for the first answer whose prompt hash is not the hash of its board's prompt."""
        if self.bank is None:
            raise UserError(
                "prompt_hashes need the bank's boards to render their prompts; give RewardScorer the bank, "
                "not a packed one"
            )
        if len(prompt_hashes) != len(rows):
            raise UserError(f"{len(rows)} board ids but {len(prompt_hashes)} prompt hashes; give one per text")
        found = self.bank.prompt_hashes.check(rows, prompt_hashes)
        if found.mismatches:
            i = int(np.flatnonzero(found.mismatched)[0])
            bad = board_ids[i].as_py() if isinstance(board_ids, (pa.Array, pa.ChunkedArray)) else board_ids[i]
            raise UserError(
                f"prompt_hashes[{i}] is not the hash of the prompt the bank gives board {bad!r} "
                f"({found.mismatches} such answers): they were made for another bank's boards"
            )

    def __call__(self, board_ids, texts, prompt_hashes=None) -> Rewards:
        for name, value in (("board_ids", board_ids), ("texts", texts)):
            if isinstance(value, (str, bytes)):
                raise UserTypeError(
                    f"{name} must be a sequence (a list or an Arrow array), one per answer, not one "
                    f"{type(value).__name__}"
                )
        if len(board_ids) != len(texts):
            raise UserError(f"{len(board_ids)} board ids but {len(texts)} texts; give one board id per text")
        rows = self.rows(board_ids)
        if prompt_hashes is not None:
            self.check_prompts(rows, board_ids, prompt_hashes)
        r = replay_answers(self.tables, rows, texts, self.parse, self.format_failure)
        return Rewards(
            status=r.status,
            error_kind=r.kind,
            parse_mode=r.parsed.mode,
            L=r.L,
            first_error=r.first_error,
            depth=r.depth,
            economy=r.economy,
            spe=np.where(r.complete, r.economy, 0.0),
            optimal=r.optimal,
            final_h=r.final_h,
            min_h=r.min_h,
            cost=r.cost,
            cost_unit=r.cost_unit,
        )


def reward(bank, board_ids, texts, prompt_hashes=None, **options) -> Rewards:
    """Score ``texts`` against the boards ``board_ids`` of ``bank`` (a bank or a ``RewardScorer``); with
    ``prompt_hashes``, each answer's prompt is checked to be its board's."""
    scorer = bank if isinstance(bank, RewardScorer) else RewardScorer(bank, **options)
    return scorer(board_ids, texts, prompt_hashes)
