"""Answers bound to their prompts: the prompt hash an answer records against the prompt its bank gives the board.

Every run-log line records ``prompt_text_sha256``, the ``contract.prompt_hash`` of the prompt it answered. A bank
rebuilt with another seed keeps its board ids (they come from the design) but not its boards, and a bank of another
domain may hold the same ids: answers scored there are a silent wrong number. So each recorded hash is compared with
the hash of the prompt the bank's domain renders for that board. Only the boards that answers refer to are rendered,
each once per bank (rendering a 100k-board bank takes seconds, hashing is cheap).

Answers of a prompt variant (``fastspe.prompting``: chain of thought, a template) record the hash of the variant's
user message: a caller that knows the variants the answers were asked with (the prompts sidecar beside them) adds each
with ``PromptHashes.accept``, and an answer then matches when its hash is that of its board's paper prompt or of its
board's message under one of those variants (rendered only for the answers that do not match the paper prompt).

A mismatch is refused (``InputError`` naming the file, the line and the board, and how many other lines mismatch)
unless the caller ignores it (``--ignore-prompt-hash``); the verdicts then record that in their metadata
(``CHECK_KEY``). Answers that record no hash (made elsewhere) are counted, for one warning.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..domains.contract import prompt_hash
from .errors import InputError, where
from .._text import count as count_of, plural

__all__ = [
    "HASH_COLUMN",
    "CHECK_KEY",
    "CHECKED",
    "IGNORED",
    "PromptHashes",
    "HashCheck",
    "UnhashedAnswers",
    "check_frame",
    "verdict_prompt_mismatches",
    "unhashed_warning",
    "mismatch_error",
    "unknown_variant_error",
]

HASH_COLUMN = "prompt_text_sha256"
SPEC_COLUMN = "prompt_spec_sha256"  # recorded by answers of a prompt variant (``fastspe.prompting``)
CHECK_KEY = "fastspe.prompt_check"  # verdicts metadata (and a verdicts frame's attrs): CHECKED or IGNORED
CHECKED, IGNORED = "checked", "ignored"
OVERRIDE = "--ignore-prompt-hash"


class UnhashedAnswers(UserWarning):
    """Answers that record no prompt hash were scored unchecked (``unhashed_warning``)."""


class PromptHashes:
    """The prompt hashes of a bank's boards (a ``boundary.banks.Bank``), rendered on demand and kept."""

    def __init__(self, bank):
        self.bank = bank
        self._hashes = np.full(len(bank), None, dtype=object)
        self._rendered = np.zeros(len(bank), dtype=bool)
        self._arrow: pa.Array | None = None
        self._variants: dict = {}  # key -> (texts_of(frame) -> list[str], {row: hash} rendered so far)

    def accept(self, key: str, texts_of) -> None:
        """Also accept, for each board, the hash of ``texts_of(frame)`` (its user message under a prompt variant:
        a function of a DataFrame of bank rows to their texts, in order, None where it has none); ``key`` names the
        variant (its spec hash), so a variant added twice is rendered once."""
        self._variants.setdefault(key, (texts_of, {}))

    def accepts(self, key: str) -> bool:
        """Whether the variant ``key`` (a spec hash) was added with ``accept``."""
        return key in self._variants

    def _variant_matches(self, rows: np.ndarray, recorded: list) -> np.ndarray:
        """Which of ``recorded`` (hashes of answers to bank rows ``rows``) is a known variant's hash of its row."""
        found = np.zeros(len(rows), dtype=bool)
        for texts_of, hashes in self._variants.values():
            todo = sorted({int(r) for r, hit in zip(rows, found) if not hit and int(r) not in hashes})
            if todo:
                hashes.update(
                    zip(todo, (None if t is None else prompt_hash(t) for t in texts_of(self.bank.rows_frame(todo))))
                )
            found |= np.fromiter(
                (h is not None and h == hashes.get(int(r)) for r, h in zip(rows, recorded)), bool, len(rows)
            )
        return found

    def of_rows(self, rows: np.ndarray) -> pa.Array:
        """The hash of the prompt of bank row ``rows[i]`` (int64), as an Arrow string array."""
        rows = np.asarray(rows, dtype=np.int64)
        wanted = np.zeros(len(self._rendered), dtype=bool)
        wanted[rows] = True  # (a mask, not np.unique: linear, a sort of 1M rows costs more than the check)
        todo = np.flatnonzero(wanted & ~self._rendered)
        if len(todo):
            domain = self.bank.domain
            frame = self.bank.rows_frame(todo)
            self._hashes[todo] = [prompt_hash(text) for text in domain.prompts(frame)]
            self._rendered[todo] = True
            self._arrow = None
        if self._arrow is None:
            self._arrow = pa.array(self._hashes, pa.string())
        return self._arrow.take(pa.array(rows))

    def check(self, rows: np.ndarray, recorded) -> "HashCheck":
        """Compare ``recorded`` (the answers' hashes: an Arrow or NumPy column, None when the answers have none)
        with the prompts of bank rows ``rows``; a null or empty hash is a missing one."""
        n = len(rows)
        if recorded is None or n == 0:
            return HashCheck(np.zeros(n, dtype=bool), n)
        if isinstance(recorded, (pa.Array, pa.ChunkedArray)):
            if pa.types.is_null(recorded.type):
                return HashCheck(np.zeros(n, dtype=bool), n)
            if not pa.types.is_string(recorded.type):
                recorded = recorded.cast(pa.string())  # (a hash of another type matches no prompt: refused)
        else:
            recorded = pa.array([v if isinstance(v, str) else None for v in recorded], pa.string())
        if isinstance(recorded, pa.ChunkedArray):
            recorded = recorded.combine_chunks()
        # an empty hash is a missing one (a CSV's empty cell): counted as unhashed, not refused as a mismatch
        recorded = pc.if_else(pc.equal(recorded, ""), pa.scalar(None, pa.string()), recorded)
        missing = recorded.null_count
        if missing == n:
            return HashCheck(np.zeros(n, dtype=bool), n)
        differs = pc.fill_null(pc.not_equal(recorded, self.of_rows(rows)), False)
        differs = np.asarray(differs.to_numpy(zero_copy_only=False), dtype=bool)
        if differs.any() and self._variants:
            at = np.flatnonzero(differs)
            differs[at[self._variant_matches(np.asarray(rows)[at], recorded.take(pa.array(at)).to_pylist())]] = False
        return HashCheck(differs, missing)


@dataclass(frozen=True)
class HashCheck:
    """What ``PromptHashes.check`` found: ``mismatched`` (bool per answer) and ``unhashed`` (answers without a
    hash)."""

    mismatched: np.ndarray
    unhashed: int

    @property
    def mismatches(self) -> int:
        return int(self.mismatched.sum())


def check_frame(bank, frame, source, unit: str, ignore: bool = False) -> HashCheck:
    """Check the answers of a checked responses frame (``responses.read_responses(..., positions=True)``: its
    ``POSITION`` column names the lines) against ``bank`` (a ``Bank``); refuse the first mismatch unless
    ``ignore``."""
    import pandas as pd

    from .responses import POSITION

    rows = pd.Index(bank.board_ids.to_pandas()).get_indexer(frame["board_id"].astype(str))
    found = bank.prompt_hashes.check(rows, frame[HASH_COLUMN].to_numpy(object) if HASH_COLUMN in frame else None)
    if found.mismatches and not ignore:
        first = int(np.flatnonzero(found.mismatched)[0])
        spec = frame[SPEC_COLUMN].iat[first] if SPEC_COLUMN in frame else None
        if isinstance(spec, str) and spec and not bank.prompt_hashes.accepts(spec):
            # a variant's answer whose spec was not found: its sidecar is missing, not its bank wrong
            raise unknown_variant_error(
                source,
                unit,
                int(frame[POSITION].iat[first]),
                frame["board_id"].iat[first],
                frame["prompt_variant"].iat[first] if "prompt_variant" in frame else None,
                spec,
            )
        raise mismatch_error(
            source,
            unit,
            int(frame[POSITION].iat[first]),
            frame["board_id"].iat[first],
            found.mismatches - 1,
            bank.source,
        )
    return found


def verdict_prompt_mismatches(df, source, bank, at: np.ndarray) -> np.ndarray | None:
    """Which verdicts of ``df`` (bank rows ``at``) carry a prompt hash that is not their board's in ``bank`` (a
    ``Bank``: it renders their prompts), to be refused; None when there is nothing to refuse. Verdicts scored with
    --ignore-prompt-hash (their metadata says so) pass, with a warning that says so."""
    if not hasattr(bank, "prompt_hashes") or HASH_COLUMN not in df.columns:
        return None
    found = bank.prompt_hashes.check(at, df[HASH_COLUMN].to_numpy(object))
    if found.mismatches and SPEC_COLUMN in df.columns:
        # a prompt variant's answers were checked against their variant when scored (its spec is beside the answers,
        # not the verdicts); the paper prompt's hash is no test of them here
        found = HashCheck(found.mismatched & df[SPEC_COLUMN].isna().to_numpy(), found.unhashed)
    if not found.mismatches:
        return None
    if df.attrs.get(CHECK_KEY) == IGNORED:
        warnings.warn(
            f"{source}: scored with {OVERRIDE}: {count_of(found.mismatches, 'answer')} made for another "
            f"prompt than the one the bank ({bank.source}) gives their board",
            stacklevel=5,
        )
        return None
    return found.mismatched


def mismatch_error(source, unit: str, pos: int, board_id, others: int, bank_source: str) -> InputError:
    """The error for an answer whose recorded prompt is not its board's in the bank (``others``: how many more)."""
    more = f"; {count_of(others, 'other ' + unit)} {plural(others, 'does')} not match either" if others else ""
    return InputError(
        f"{where(source, unit, pos, board_id)}: the answer's prompt (prompt_text_sha256) is not the "
        f"prompt the bank ({bank_source}) gives this board (a bank rebuilt with another seed, or of another domain, "
        f"holds the same id){more}; score against the bank the answers were made from, or pass "
        f"{OVERRIDE} to score them anyway (answers of a prompt variant are checked against the specs "
        f"in the prompts sidecar beside them, NAME.prompts.jsonl)"
    )


def unknown_variant_error(source, unit: str, pos: int, board_id, variant, spec: str) -> InputError:
    """The error for an answer of a prompt variant whose spec no prompts sidecar read keeps: it cannot be checked."""
    from .prompt_texts import sidecar_path

    return InputError(
        f"{where(source, unit, pos, board_id)}: the answer was asked with prompt variant {variant!r} "
        f"(prompt_spec_sha256 {spec[:12]}...), whose spec no prompts sidecar read keeps, so its prompt "
        f"cannot be checked; put the sidecar its run wrote ({sidecar_path(source).name}) beside "
        f"{source} (or give the export with --prompts), or pass {OVERRIDE} to score it anyway"
    )


def unhashed_warning(source, count: int) -> str:
    """The one warning for answers that record no prompt hash."""
    one = count == 1
    return (
        f"{source}: {count_of(count, 'answer')} {'records' if one else 'record'} no prompt hash ({HASH_COLUMN}); "
        f"{'it is' if one else 'they are'} scored without checking that {'it answers' if one else 'they answer'} "
        f"this bank's boards"
    )
