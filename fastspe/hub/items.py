"""A bank as procedural items for RL and reasoning-gym users: ``{question, answer, metadata}`` per bank row, and a
per-item scorer.

- ``question``: the paper's prompt for the row (``Domain.render_prompt``, what ``fastspe run`` sends);
- ``answer``: the row's certificate in the form the prompt asks for and the scorer reads (``MOVES: U,L,D``);
- ``metadata``: the row's bank columns (``board_id``, ``cohort``, ``depth`` = d*, the states, the certificate, ...)
  as JSON values, with ``domain`` and ``prompt_version``.

``score_answer(answer, item)`` is the SPE term of one answer: d*/L for a plan that reaches the goal in L moves, 0
otherwise, computed by ``RewardScorer`` (the same parser and replay as ``fastspe score``), so it equals
``RewardScorer(bank)([board_id], [answer]).spe[0]``. ``BankItems.score_answer`` scores with the items' own scorer
(one packed bank, for loops over many answers); the module's ``score_answer`` needs only the item (a JSONL line
written by ``write_items`` will do), rebuilding the row's one-row bank and keeping the last few thousand::

    from fastspe.hub import BankItems, score_answer
    items = BankItems(bank)                      # a Bank, a bank DataFrame or Arrow table
    item = items[0]                              # {"question": ..., "answer": "MOVES: ...", "metadata": {...}}
    items.score_answer(item["answer"], item)     # 1.0: the certificate is optimal
    score_answer("MOVES: U", item)               # the same scorer from the item alone
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import cached_property, lru_cache
import os
from typing import TYPE_CHECKING, Any, Union, overload

from ..boundary.banks import Bank, as_bank
from ..boundary.files import write_jsonl
from ..domains.registry import domain_named
from ..errors import UserError, UserTypeError
from ..scoring.rewards import RewardScorer
from ..scoring.score import check_score_options

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

__all__ = ["BankItems", "Item", "bank_items", "score_answer", "write_items"]

Item = dict[str, Any]  # {"question": str, "answer": str, "metadata": {column: JSON value}}
BankLike = Union[Bank, "pd.DataFrame", "pa.Table"]

SCORERS_KEPT = 4096  # one-row scorers ``score_answer`` keeps (an RL loop scores each item's answers many times)


class BankItems(Sequence[Item]):
    """The rows of a bank as ``{question, answer, metadata}`` items (a sequence: ``len``, indexing, iteration), in
    bank order and a pure function of the bank.

    Parameters
    ----------
    bank : a ``Bank``, or a bank DataFrame or Arrow table (checked here)
    domain : the domain of a DataFrame or table that does not record one (``load_dataset(...).to_pandas()``)
    parse, format_failure : as ``RewardScorer`` (``fastspe score``'s ``--parse`` and ``--format-failure``)
    """

    def __init__(
        self, bank: BankLike, domain: str | None = None, parse: str = "lenient", format_failure: str = "illegal"
    ):
        self.bank: Bank = as_bank(bank, domain)
        check_score_options(parse, format_failure)  # here, since the scorer is made on the first answer scored
        self.options = {"parse": parse, "format_failure": format_failure}

    @cached_property
    def scorer(self) -> RewardScorer:
        """The bank packed for scoring, on the first answer scored (items alone need no scorer)."""
        return RewardScorer(self.bank, **self.options)

    @property
    def domain(self):
        return self.bank.domain

    @cached_property
    def questions(self) -> list[str]:
        """Every row's prompt, rendered once (``Domain.prompts``)."""
        return self.domain.prompts(self.bank.frame)

    def __len__(self) -> int:
        return len(self.bank)

    @overload
    def __getitem__(self, index: int) -> Item: ...

    @overload
    def __getitem__(self, index: slice) -> list[Item]: ...

    def __getitem__(self, index: int | slice) -> Item | list[Item]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if not isinstance(index, int) or isinstance(index, bool):
            raise UserTypeError(f"index must be an int or a slice, got {type(index).__name__}")
        n = len(self)
        if not -n <= index < n:
            raise IndexError(f"item {index} of a bank of {n} rows")
        i = index % n
        return item_of(self.domain, row_of(self.bank, i), self.questions[i])

    def __iter__(self) -> Iterator[Item]:
        for i in range(len(self)):
            yield self[i]

    def score_answer(self, answer: str | None, entry: Mapping[str, Any]) -> float:
        """The SPE term of ``answer`` to the item ``entry`` (one of these items): d*/L for a complete plan, else 0;
        0.0 for None (no answer). An item of another bank's board (its question differs) is refused."""
        board_id = board_of(entry)
        rows = self.scorer.rows([board_id])
        if entry.get("question") != self.questions[int(rows[0])]:
            raise UserError(
                f"item {board_id!r}: its question is not the prompt this bank gives that board; score "
                "it with the items it came from, or with fastspe.hub.score_answer"
            )
        return spe_of(self.scorer, board_id, answer)


def row_of(bank: Bank, i: int) -> dict:
    """Bank row ``i`` as JSON values, the optional columns the row leaves empty left out."""
    row = bank.table.slice(i, 1).to_pylist()[0]
    return {k: v for k, v in row.items() if v is not None or k in bank.domain.bank_columns}


def item_of(domain, row: dict, question: str) -> Item:
    metadata = {**row, "domain": domain.name, "prompt_version": str(domain.prompt_version)}
    answer = domain.vocabulary.answer(str(row[domain.certificate_column]), separator=",")
    return {"question": question, "answer": answer, "metadata": metadata}


def bank_items(bank: BankLike, domain: str | None = None) -> list[Item]:
    """Every row of ``bank`` as a ``{question, answer, metadata}`` item (``BankItems``), in bank order."""
    return list(BankItems(bank, domain))


def board_of(item) -> str:
    if not isinstance(item, Mapping) or not isinstance(item.get("metadata"), Mapping):
        raise UserTypeError(
            f"item must be a mapping with a 'metadata' mapping (a fastspe.hub item), got {type(item).__name__}"
        )
    board_id = item["metadata"].get("board_id")
    if not isinstance(board_id, str):
        raise UserError("item['metadata'] holds no board_id: not a fastspe.hub item")
    return board_id


def spe_of(scorer: RewardScorer, board_id: str, answer: str | None) -> float:
    if answer is None:
        return 0.0
    if not isinstance(answer, str):
        raise UserTypeError(f"answer must be a str (or None), got {type(answer).__name__}")
    return float(scorer([board_id], [answer]).spe[0])


@lru_cache(maxsize=SCORERS_KEPT)
def one_row_scorer(metadata: str) -> RewardScorer:
    """A scorer of the one-row bank an item's metadata (JSON text, keys sorted) describes."""
    import pandas as pd

    row: dict[str, Any] = json.loads(metadata)
    domain = domain_named(str(row.get("domain")))
    columns = [c for c in (*domain.bank_columns, *domain.optional_columns) if c in row]
    return RewardScorer(
        as_bank(pd.DataFrame([{c: row[c] for c in columns}], columns=columns), domain, f"item {row.get('board_id')!r}")
    )


def score_answer(answer: str | None, item: Mapping[str, Any]) -> float:
    """The SPE term of ``answer`` to ``item`` (a ``BankItems`` item, or one read back from ``write_items``' JSONL):
    d*/L for a plan that reaches the goal in L moves, 0 otherwise (0.0 for None), as ``RewardScorer`` gives it."""
    board_id = board_of(item)
    if "domain" not in item["metadata"]:
        raise UserError(f"item {board_id!r}: its metadata names no domain; not a fastspe.hub item")
    try:
        key = json.dumps(dict(item["metadata"]), sort_keys=True)
    except TypeError as exc:
        raise UserTypeError(f"item {board_id!r}: its metadata must hold JSON values ({exc})") from None
    return spe_of(one_row_scorer(key), board_id, answer)


def write_items(items: Iterable[Item], path: str | os.PathLike[str]) -> int:
    """Write ``items`` (a ``BankItems``, or any iterable of items) to ``path`` as JSONL, atomically; the count."""
    return write_jsonl(iter(items), path)
