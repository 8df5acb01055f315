"""Independent verdict verifier: re-parse and re-replay every answer in plain Python, compare with a verdicts file.

The paper replays every model output with a second implementation. This is it, shipped: it shares no code with
``fastspe.scoring`` (the parsers, the verdict table) or with any domain's kernels and packing. Only reading files is
shared (``fastspe.boundary``): that is not what is verified.

Re-derived here from the rules alone: the answer parse (``fastspe.verify.answer_format``, with the domain's action
vocabulary) and, by the domain's own independent replay (``Domain.verifier``: the sliding puzzle's re-derives each
layout's goal and graph distances with its own BFS, Sokoban's its room and push distances), each bank row's facts,
h, and a replay that stops at the first illegal action. Every verdict column is compared:

- from the bank: ``cohort``, the second stratum (``k``, ``boxes``, ...), ``layout``, ``depth``;
- from the parse: ``moves`` (one character per action, ``?`` for a token that is not a move),
  ``parse_mode``, ``normalization`` (the tags) and ``multiple_moves``;
- from the replay: ``L, status, error_kind, first_error, final_h, min_h, revisits, goal_midway``,
  then ``optimal, economy, excess``;
- ``truncated`` from the response's ``truncated`` / ``finish_reason`` / ``stop_reason`` fields;
- on a bank whose d* does not count moves (pushes, say), ``cost`` (the replay's count of that unit) and
  ``cost_unit``, from which ``optimal, economy, excess`` then follow;
- the domain's own columns (``verdict_extra_columns``, a first dead move, say) that its verifier re-derives,
  but where the verifier's search stopped at its bound (counted as not re-derived, never passed silently).

Not compared: metadata columns that ``fastspe score`` carries through (token counts, latency, ...).
The parse and format-failure options are not recorded in a verdicts file: pass the ones it was scored
with (``parse``, ``format_failure``, as for ``fastspe score``). Reading is lenient on purpose
(``fastspe.boundary.verdict_rows``: no check of what the verdicts mean): a cell
that does not even hold a value of its column's kind is named as a difference, not refused, so that a
damaged or edited file has every one of its bad rows named. A null ``economy``/``excess``, ``error_kind`` or
``first_error`` (the typed schema's "undefined") compares as NaN, ``""`` and -1.
"""

from __future__ import annotations

import math
import os
from itertools import repeat
from typing import Callable, NamedTuple

import numpy as np
import pandas as pd

from ..domains.contract import STRATUM, Domain, Verifier, VerifierBoard
from ..domains.registry import domain_named, domain_of
from ..errors import UserError
from .answer_format import parse_plan

__all__ = ["FIELDS", "COST_FIELDS", "Difference", "rederive", "compare_verdicts", "verify_verdicts_files"]

KEY = ("condition", "board_id", "trial")
FIELDS = (
    "cohort",
    STRATUM,
    "layout",
    "depth",
    "L",
    "status",
    "error_kind",
    "first_error",
    "parse_mode",
    "normalization",
    "multiple_moves",
    "truncated",
    "final_h",
    "min_h",
    "revisits",
    "goal_midway",
    "optimal",
    "economy",
    "excess",
    "moves",
)
COST_FIELDS = ("cost", "cost_unit")  # a bank whose d* counts something else than moves (verdict_schema.COST_TYPES)
CUT_OFF = {"length", "max_tokens", "max_output_tokens", "model_length", "token_limit"}
Progress = Callable[[int, int], None]


def _truncated(meta: dict) -> bool:
    """Cut off by the length limit, as the response's metadata says (only a true flag or the text "true")."""
    flag = meta.get("truncated")
    if isinstance(flag, (bool, np.bool_)) and flag or isinstance(flag, str) and flag.lower() == "true":
        return True
    return any(isinstance(meta.get(f), str) and meta[f].lower() in CUT_OFF for f in ("finish_reason", "stop_reason"))


def rederive(
    domain: Domain,
    board: VerifierBoard,
    response: str,
    parse: str = "lenient",
    format_failure: str = "illegal",
    meta: dict | None = None,
    verifier: Verifier | None = None,
) -> dict:
    """Every compared verdict field of one answer (``FIELDS``, the stratum under the domain's column), re-derived:
    the answer read by ``answer_format`` with the domain's vocabulary, the plan replayed by the domain's independent
    ``verifier``."""
    plan = parse_plan(response, strict=parse == "strict", vocabulary=domain.vocabulary)
    out = (verifier or domain.verifier).replay(board, plan.moves)
    if plan.mode == "no_plan":
        out["status"], out["error_kind"] = (
            ("illegal", "format") if format_failure == "illegal" else ("legal_noncompletion", "")
        )
    L, complete = len(plan.moves), out["status"] == "complete"
    unit = getattr(board, "cost_unit", "moves")  # what d* counts: an answer costs L moves unless the board says
    cost = L if unit == "moves" else int(out[unit])
    out[domain.stratum] = board.stratum
    out.update(
        cohort=board.cohort,
        layout=board.tag,
        depth=board.depth,
        L=L,
        parse_mode=plan.mode,
        normalization=plan.normalization,
        multiple_moves=plan.multiple,
        truncated=_truncated(meta or {}),
        optimal=complete and cost == board.depth,
        economy=(board.depth / cost if cost else 1.0) if complete else math.nan,
        excess=float(cost - board.depth) if complete else math.nan,
        moves=plan.moves,
        cost=cost,
        cost_unit=unit,
    )
    return out


# ---- comparison -----------------------------------------------------------------------------------------------


class Difference(NamedTuple):
    """One disagreement: a field whose stored and re-derived values differ, or a missing row (field
    ``"verdict"``: stored/derived say which side has it)."""

    condition: str
    board_id: str
    trial: int
    field: str
    stored: object
    derived: object

    def __str__(self) -> str:
        where = f"condition {self.condition!r}, board_id {self.board_id!r}, trial {self.trial}"
        if self.field == "verdict":
            return f"{where}: {self.stored}"
        return f"{where}: {self.field} is {self.stored!r} in the verdicts, re-derived {self.derived!r}"


def _present(value) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


_BLANK = ("", "nan", "na", "n/a", "null", "none")  # an empty cell, as text


def _as_int(v):
    if isinstance(v, bool):
        return v
    try:
        f = float(v)
    except (TypeError, ValueError):
        return v
    return int(f) if f.is_integer() else v


def _as_index(v):
    """``first_error``: a null (schema 2: no illegal action; an empty cell in text) is the re-derived -1."""
    blank = v is None or isinstance(v, float) and math.isnan(v) or isinstance(v, str) and v.strip().lower() in _BLANK
    return -1 if blank else _as_int(v)


def _as_flag(v):
    if isinstance(v, str):
        text = v.strip().lower()
        return True if text in ("true", "1", "1.0") else False if text in ("false", "0", "0.0") else v
    return bool(v) if v in (0, 1) else v  # numpy bools compare equal to 0/1 too


def _as_float(v):
    if v is None or (isinstance(v, str) and v.strip().lower() in _BLANK):
        return math.nan
    try:
        return float(v)
    except (TypeError, ValueError):
        return v


def _as_text(v):
    return "" if not _present(v) else v if isinstance(v, str) else str(v)


_KIND = {
    **dict.fromkeys(("depth", "L", "final_h", "min_h", "revisits"), _as_int),
    "first_error": _as_index,
    **dict.fromkeys(("multiple_moves", "truncated", "goal_midway", "optimal"), _as_flag),
    **dict.fromkeys(("economy", "excess"), _as_float),
}


def _same(stored, derived) -> bool:
    if isinstance(derived, float):
        if not isinstance(stored, float):
            return False
        if math.isnan(derived) or math.isnan(stored):
            return math.isnan(derived) and math.isnan(stored)
        return abs(stored - derived) <= 1e-12 * abs(derived)  # a float written as text and read back
    return type(stored) is type(derived) and stored == derived


def _verifier(domain: Domain) -> Verifier:
    """The domain's independent replay; a domain without one cannot have its verdicts verified."""
    if domain.verifier is None:
        raise UserError(f"the {domain.name} domain has no independent verifier of its answers")
    return domain.verifier


def compare_verdicts(
    domain,
    boards,
    responses: pd.DataFrame,
    verdicts: pd.DataFrame,
    parse: str = "lenient",
    format_failure: str = "illegal",
    progress: Progress | None = None,
    notes: dict | None = None,
) -> tuple[list[Difference], int]:
    """Re-derive the verdict of every output of ``responses`` and compare it with ``verdicts``.

    ``domain``: the bank's (a name or ``Domain``); ``boards`` maps board_id to its verifier's board
    (``domain.verifier.boards(bank)``); ``responses`` holds one row per output (``board_id, condition, trial,
    response`` and metadata, as ``read_responses`` returns them); ``verdicts`` the rows of a verdicts file as read
    (values of any type). Returns the differences (responses' order, then verdicts without a response) and the
    number of verdicts compared.

    Compared besides ``FIELDS``: ``cost`` and ``cost_unit`` where a board's d* does not count moves (or the verdicts
    have them), and each of the domain's ``verdict_extra_columns`` its verifier re-derives; a re-derived None
    (beyond the verifier's bound) is not compared. ``notes``, when given, gets ``fields`` (the columns compared)
    and ``unchecked`` (the (condition, board_id, trial, column) of each value not re-derived).
    """
    domain = domain_named(domain)
    verifier = _verifier(domain)
    fields = tuple(domain.named(FIELDS))
    if "cost" in verdicts.columns or any(getattr(b, "cost_unit", "moves") != "moves" for b in boards.values()):
        fields += COST_FIELDS
    extras = [c for c in domain.verdict_extra_columns if c in verdicts.columns]
    notes = {} if notes is None else notes
    notes["fields"], unchecked, rederived = list(fields), notes.setdefault("unchecked", []), set()
    kinds = {**_KIND, domain.stratum: _as_int, "cost": _as_int, **dict.fromkeys(extras, _as_int)}
    missing = [c for c in (*KEY, *fields) if c not in verdicts.columns]
    if missing:
        raise UserError(f"the verdicts lack columns {missing}; make them with `fastspe score`")
    keys = list(
        zip(verdicts["condition"].map(_as_text), verdicts["board_id"].map(_as_text), verdicts["trial"].map(_as_int))
    )
    stored_rows: dict[tuple, int] = {}
    diffs: list[Difference] = []
    for i, key in enumerate(keys):
        if key in stored_rows:
            diffs.append(
                Difference(
                    *key,
                    "verdict",
                    f"verdict appears again (data row {i + 1} of the "
                    f"verdicts; first at data row {stored_rows[key] + 1})",
                    None,
                )
            )
        stored_rows.setdefault(key, i)
    columns = {f: verdicts[f].tolist() for f in (*fields, *extras)}
    meta_names = [c for c in ("truncated", "finish_reason", "stop_reason") if c in responses.columns]
    meta = zip(*(responses[c].tolist() for c in meta_names)) if meta_names else repeat(())
    total, answered = len(responses), set()
    for n, (cond, bid, trial, text, values) in enumerate(
        zip(responses["condition"], responses["board_id"], responses["trial"], responses["response"], meta)
    ):
        key = (str(cond), str(bid), int(trial))
        answered.add(key)
        row = stored_rows.get(key)
        if row is None:
            diffs.append(Difference(*key, "verdict", "a response with no verdict", None))
            continue
        if key[1] not in boards:
            raise UserError(f"board_id {key[1]!r} of the responses is not in the bank")
        derived = rederive(domain, boards[key[1]], text, parse, format_failure, dict(zip(meta_names, values)), verifier)
        for f in fields:
            stored = kinds.get(f, _as_text)(columns[f][row])
            if not _same(stored, derived[f]):
                diffs.append(Difference(*key, f, stored, derived[f]))
        for f in extras:
            if f not in derived:
                continue  # a column this verifier does not re-derive
            rederived.add(f)
            if derived[f] is None:
                unchecked.append((*key, f))
                continue
            stored = _as_int(columns[f][row])
            if not _same(stored, derived[f]):
                diffs.append(Difference(*key, f, stored, derived[f]))
        if progress is not None and (n + 1) % 10_000 == 0:
            progress(n + 1, total)
    notes["fields"] += [f for f in extras if f in rederived]
    diffs += [
        Difference(*key, "verdict", "a verdict with no response", None) for key in stored_rows if key not in answered
    ]
    if progress is not None:
        progress(total, total)
    return diffs, len(keys)


# ---- files ----------------------------------------------------------------------------------------------------


def verify_verdicts_files(
    bank,
    responses,
    verdicts,
    parse: str = "lenient",
    format_failure: str = "illegal",
    progress: Progress | None = None,
    notes: dict | None = None,
) -> tuple[list[Difference], int]:
    """``compare_verdicts`` on files: a bank, the responses or run log it was scored from, a verdicts file.

    ``bank`` may be a checked bank table (``read_bank_table``) and ``responses`` checked responses (a DataFrame
    from ``read_responses`` or ``combine_responses``) instead of paths."""
    from ..boundary.banks import read_bank_table
    from ..boundary.responses import read_responses
    from ..boundary.verdict_rows import read_verdict_rows

    if parse not in ("lenient", "strict") or format_failure not in ("illegal", "noncompletion"):
        raise UserError(
            f"parse must be lenient or strict and format_failure illegal or noncompletion, got "
            f"{parse!r} and {format_failure!r}"
        )
    table = read_bank_table(bank) if isinstance(bank, (str, os.PathLike)) else bank
    domain = domain_of(table)
    boards = _verifier(domain).boards(table)
    answers = (
        responses
        if isinstance(responses, pd.DataFrame)
        else read_responses(responses, bank=pd.DataFrame({"board_id": list(boards)}))
    )
    stored = read_verdict_rows(verdicts)
    try:
        return compare_verdicts(domain, boards, answers, stored, parse, format_failure, progress, notes)
    except ValueError as exc:
        raise UserError(f"{verdicts}: {exc}") from None
