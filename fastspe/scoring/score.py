"""Verdicts: parse every answer, replay every plan on its board, one row per output.

``score_responses(bank, responses)`` validates the responses, parses the answers with the bank's domain's action
vocabulary (``fastspe.scoring.parse_column``), packs all plans into one flat array of action codes and replays them in
one parallel kernel call (the domain's ``replay``), then derives the per-output columns of Section 2.2: completion,
legality, first error, economy d*/L and excess L - d* of completed plans.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections import deque
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .._names import moved_names
from ..boundary.banks import Bank, as_bank
from ..prompting.variant_check import accept_variants
from ..boundary.prompt_hashes import (
    CHECK_KEY,
    CHECKED,
    HASH_COLUMN,
    IGNORED,
    UnhashedAnswers,
    check_frame,
    unhashed_warning,
)
from ..errors import UserError
from ..boundary.parquet import parquet_stream
from ..boundary.response_stream import NeedsLineReader, ResponseChecker, response_tables
from ..boundary.responses import KEY, POSITION, combine_responses, read_responses, response_paths, validate_responses
from ..boundary.verdicts import FRAME_DOMAIN, VERDICT_COLUMNS, derived_columns
from ..boundary.verdict_files import write_verdicts
from ..boundary.verdict_schema import COST_COLUMNS, JSON_TEXT, json_cells, metadata_column, typed_verdicts
from ..executor import Executor
from ..boundary.files import table_format
from ..domains.codes import COMPLETE, FORMAT, ILLEGAL, LEGAL_NONCOMPLETION, STATUS_NAMES
from ..domains.contract import Packed
from ..domains.registry import domain_named, domain_of, with_domain
from ..domains.vocabulary import DIRECTIONS, Vocabulary
from .output_metadata import frame_metadata, metadata_columns, truncated_flags
from .parse_column import MODE_NAMES, MODE_NO_PLAN, parse_column

__all__ = ["ScoreSummary", "bank_tables", "packed_bank", "encode_moves", "score_responses", "score_file"]
# fastspe 0.1 offered the verdicts reader here too: it has moved
__getattr__ = moved_names(__name__, {"read_verdicts": "fastspe.boundary.verdict_files"})

PARSE_OPTIONS = ("lenient", "strict")
FORMAT_OPTIONS = ("illegal", "noncompletion")
# columns of a responses file not carried over (tool calls, their results and feedback: a conversation's turns' own)
_NOT_VERDICT = {"response", "status", "row", "event", POSITION, "tool_calls", "tool_results", "feedback"}


def _not_metadata(domain) -> set[str]:
    """The columns of a responses file that no verdict carries as metadata: the verdict columns, as ``domain`` names
    them (its stratum), and ``_NOT_VERDICT``."""
    return set(domain.named(VERDICT_COLUMNS)) | set(domain.verdict_extra_columns) | _NOT_VERDICT


Progress = Callable[[int, int | None], None]


def bank_tables(bank) -> Packed:
    """Check a bank (a ``Bank``, DataFrame or Arrow table; ``boundary.banks.as_bank``) and pack it for its domain's
    replay."""
    return packed_bank(as_bank(bank))


def packed_bank(table: pa.Table | Bank) -> Packed:
    """Pack a bank table that ``check_bank_table`` has checked (or a ``Bank``), for its domain."""
    if isinstance(table, Bank):
        return table.domain.pack(table.table)
    return domain_of(table).pack(table)


def encode_moves(moves: Sequence[str], vocabulary: Vocabulary = DIRECTIONS) -> tuple[np.ndarray, np.ndarray]:
    """Stored plans (one vocabulary symbol per action) as one flat uint8 code array and int64 offsets (n + 1,); any
    other character is a token that is not an action."""
    return vocabulary.encode(moves)


def check_score_options(parse: str, format_failure: str) -> None:
    """A one-line error unless ``parse`` and ``format_failure`` are among the options ``fastspe score`` takes."""
    if parse not in PARSE_OPTIONS:
        raise UserError(f"parse must be one of {PARSE_OPTIONS}, got {parse!r}")
    if format_failure not in FORMAT_OPTIONS:
        raise UserError(f"format_failure must be one of {FORMAT_OPTIONS}, got {format_failure!r}")


@dataclass(frozen=True)
class Replayed:
    """Every per-output array of a verdict, before it becomes a table (kernels' dtypes)."""

    L: np.ndarray
    status: np.ndarray
    kind: np.ndarray
    first_error: np.ndarray
    final_h: np.ndarray
    min_h: np.ndarray
    revisits: np.ndarray
    midway: np.ndarray
    depth: np.ndarray
    complete: np.ndarray
    economy: np.ndarray
    parsed: object  # parse_batch.ParsedColumn
    cost: np.ndarray  # int64: what the plan costs in ``cost_unit`` (``Domain.plan_costs``; L when it counts moves)
    cost_unit: str
    optimal: np.ndarray
    excess: np.ndarray


def replay_answers(
    tables: Packed, rows: np.ndarray, texts, parse: str = "lenient", format_failure: str = "illegal"
) -> Replayed:
    """Parse ``texts`` (Arrow strings or a sequence) and replay each on bank row ``rows[i]``."""
    check_score_options(parse, format_failure)
    domain = domain_named(tables.domain)
    parsed = parse_column(texts, strict=parse == "strict", vocabulary=domain.vocabulary)
    status, kind, first_error, final_h, min_h, revisits, midway = domain.replay(
        tables, rows, parsed.codes, parsed.offsets
    )
    no_plan = parsed.mode == MODE_NO_PLAN
    if format_failure == "illegal":
        status[no_plan] = ILLEGAL
        kind[no_plan] = FORMAT
    else:
        status[no_plan] = LEGAL_NONCOMPLETION
    L = np.diff(parsed.offsets)
    depth = tables.depth[rows]
    complete = status == COMPLETE
    unit = domain.cost_unit(tables)  # d* counts moves (cost L) unless the domain says otherwise
    cost = (
        L
        if unit == "moves"
        else np.asarray(domain.plan_costs(tables, rows, parsed.codes, parsed.offsets, status), dtype=np.int64)
    )
    optimal, economy, excess = derived_columns(cost, complete, depth)
    return Replayed(
        L,
        status,
        kind,
        first_error,
        final_h,
        min_h,
        revisits,
        midway,
        depth,
        complete,
        economy,
        parsed,
        cost,
        unit,
        optimal,
        excess,
    )


def verdict_table(
    tables: Packed,
    outputs: pa.Table,
    parse: str = "lenient",
    format_failure: str = "illegal",
    replayed: dict | None = None,
) -> pa.Table:
    """Verdict rows (``VERDICT_COLUMNS`` then scalar metadata) of checked outputs.

    ``outputs`` has ``board_id, condition, trial, response, row`` (the bank row) and any metadata;
    ``replayed``: its ``replayed_columns``, where they were computed elsewhere.
    """
    rows = outputs.column("row").to_numpy().astype(np.int64)
    domain = domain_named(tables.domain)
    if replayed is None:
        replayed = replayed_columns(tables, rows, outputs.column("response"), parse, format_failure)
    columns = {
        "board_id": outputs.column("board_id").cast(pa.string()),
        "condition": outputs.column("condition").cast(pa.string()),
        "trial": outputs.column("trial").cast(pa.int64()),
        "cohort": _coded(tables.cohort_code[rows], tables.cohort_names),
        domain.stratum: tables.stratum_values()[rows],
        "layout": _coded(tables.layout_index[rows], tables.layout_names),
        "depth": tables.depth[rows],
        **{name: replayed[name] for name in _REPLAYED[:7]},
        "truncated": truncated_flags(outputs),
        **{name: replayed[name] for name in (*_REPLAYED[7:], *domain.verdict_extra_columns)},  # the domain's last
        **{name: replayed[name] for name in COST_COLUMNS if name in replayed},  # d* not counting moves: its unit
    }
    skip = _not_metadata(domain) | {name for name in COST_COLUMNS if name in replayed}  # ours, not the answers'
    for name in metadata_columns(outputs, skip):
        columns[name] = metadata_column(outputs.column(name), name)
    return with_domain(pa.table(columns), domain)


_REPLAYED = (
    "L",
    "status",
    "error_kind",
    "first_error",
    "parse_mode",
    "normalization",
    "multiple_moves",
    "final_h",
    "min_h",
    "revisits",
    "goal_midway",
    "optimal",
    "economy",
    "excess",
    "moves",
)


def replayed_columns(
    tables: Packed, rows: np.ndarray, texts, parse: str = "lenient", format_failure: str = "illegal"
) -> dict:
    """The verdict columns that parsing and replaying give (``_REPLAYED``), from the outputs' bank rows and
    answer texts alone: the part of a verdict that an executor runs elsewhere."""
    domain = domain_named(tables.domain)
    r = replay_answers(tables, rows, texts, parse, format_failure)
    p = r.parsed
    columns = {
        "L": r.L,
        "status": _coded(r.status, _STATUS),
        "error_kind": _coded(r.kind, _error_names(domain)),
        "first_error": r.first_error,
        "parse_mode": _coded(p.mode, _MODES),
        "normalization": p.normalization_array(),
        "multiple_moves": p.multiple,
        "final_h": r.final_h,
        "min_h": r.min_h,
        "revisits": r.revisits,
        "goal_midway": r.midway,
        "optimal": r.optimal,
        "economy": r.economy,
        "excess": r.excess,
        "moves": domain.vocabulary.plan_strings(p.codes, p.offsets),
    }
    extras = domain.verdict_extras(tables, rows, columns) if domain.verdict_extra_columns else {}  # none for most
    costs = (
        {}
        if r.cost_unit == "moves"
        else {"cost": r.cost, "cost_unit": _coded(np.zeros(len(rows), np.int32), pa.array([r.cost_unit], pa.string()))}
    )
    return {**columns, **{name: np.asarray(extras[name], np.int64) for name in domain.verdict_extra_columns}, **costs}


def _replayed_batch(tables: Packed, answers: tuple, parse: str, format_failure: str) -> dict:
    rows, texts = answers
    return replayed_columns(tables, rows, texts, parse, format_failure)


def _verdict_tables(tables: Packed, batches, parse: str, format_failure: str, executor: Executor | None):
    """``verdict_table`` of each batch of outputs, in order. An executor is handed only each batch's bank rows
    and answer texts and hands back only the replayed columns (a fifth of the batch's bytes each way, for a
    run log's metadata); the batch's own columns are joined to them here."""
    if executor is None:
        for outputs in batches:
            yield verdict_table(tables, outputs, parse, format_failure)
        return
    waiting: deque = deque()

    def answers():
        for outputs in batches:
            waiting.append(outputs)
            yield outputs.column("row").to_numpy().astype(np.int64), outputs.column("response")

    for replayed in executor(_replayed_batch, tables, answers(), parse, format_failure):
        yield verdict_table(tables, waiting.popleft(), parse, format_failure, replayed)


_STATUS, _MODES = (pa.array(names, pa.string()) for names in (STATUS_NAMES, MODE_NAMES))
_ERRORS: dict[str, pa.Array] = {}


def _error_names(domain) -> pa.Array:
    if domain.name not in _ERRORS:
        _ERRORS[domain.name] = pa.array(domain.error_names, pa.string())
    return _ERRORS[domain.name]


def _coded(codes: np.ndarray, names: pa.Array) -> pa.Array:
    """The strings ``names[codes]`` as a string array, taken in Arrow from the codes (no Python string per row)."""
    return pa.DictionaryArray.from_arrays(codes.astype(np.int32, copy=False), names).cast(pa.string())


def _frame_outputs(resp: pd.DataFrame, tables: Packed) -> pa.Table:
    """Validated responses (a DataFrame) as the Arrow outputs ``verdict_table`` takes."""
    columns = {
        "board_id": pa.array(resp["board_id"].astype(str).to_numpy(object), pa.string()),
        "condition": pa.array(resp["condition"].astype(str).to_numpy(object), pa.string()),
        "trial": pa.array(resp["trial"].to_numpy(np.int64)),
        "response": pa.array(resp["response"].to_numpy(object), pa.string()),
    }
    for col in frame_metadata(resp, _not_metadata(domain_named(tables.domain))):
        if col in JSON_TEXT:
            columns[col] = json_cells(resp[col].tolist())
            continue
        try:
            columns[col] = pa.array(
                resp[col].to_numpy(object) if resp[col].dtype == object else resp[col], from_pandas=True
            )
        except (pa.ArrowException, TypeError, ValueError):
            continue  # values of mixed kinds: not carried
    table = pa.table(columns)
    return table.append_column("row", pa.array(tables.rows_of(table.column("board_id"))))


def score_responses(
    bank,
    responses: pd.DataFrame,
    parse: str = "lenient",
    format_failure: str = "illegal",
    source: str = "responses",
    ignore_prompt_hash: bool = False,
) -> pd.DataFrame:
    """One verdict row per output (columns ``VERDICT_COLUMNS`` then scalar metadata).

    Parameters
    ----------
    bank : a ``Bank`` (``fastspe.boundary.banks.read_bank``), or a bank DataFrame or Arrow table of its domain's
        columns, checked first (``fastspe.boundary.banks.as_bank``)
    responses : DataFrame with ``board_id, condition, trial, response`` (and metadata; run-log
        attempts are resolved to the completed one)
    parse : "lenient" (normalized answers are scored) or "strict" (they are format failures)
    format_failure : "illegal" (error_kind "format", L = 0) or "noncompletion" (legal, L = 0)
    source : what errors call the responses (``LOG.eval: row 2: ...``)
    ignore_prompt_hash : score answers whose recorded prompt hash (``prompt_text_sha256``) is not the hash of the
        prompt the bank gives their board (refused otherwise, naming the row and board); the verdicts' ``attrs``
        (and a Parquet file written from them) record it. Answers without a hash are scored with one warning.

    Notes
    -----
    ``L`` is the plan's action count, illegal plans included; ``first_error`` indexes the first
    illegal action (-1 when there is none, format failures included); ``final_h`` is h of the
    last state reached (before the illegal action, if any) and ``min_h`` the least h along the
    legal prefix, the initial state included; ``moves`` has one vocabulary symbol per action, ``?`` for
    a token that is not a move. ``economy`` = d*/L and ``excess`` = L - d* are NaN unless the
    plan is complete. Rows are sorted by (condition, board_id, trial).
    """
    check_score_options(parse, format_failure)
    bank = as_bank(bank)
    tables = packed_bank(bank)
    resp = validate_responses(responses, bank=_id_frame(tables), source=source, positions=True)
    found = check_frame(bank, resp, source, "row", ignore_prompt_hash)
    if found.unhashed:
        warnings.warn(unhashed_warning(source, found.unhashed), UnhashedAnswers, stacklevel=2)
    frame = _sorted_frame(verdict_table(tables, _frame_outputs(resp, tables), parse, format_failure))
    frame.attrs[CHECK_KEY] = _check_record(ignore_prompt_hash)
    return frame


def _check_record(ignore_prompt_hash: bool) -> str:
    return IGNORED if ignore_prompt_hash else CHECKED


def _as_checked_bank(bank: pa.Table | Bank | pd.DataFrame) -> Bank:
    """A ``Bank`` or a bank table ``check_bank_table`` checked as a ``Bank``; a DataFrame is checked (``as_bank``)."""
    return Bank(bank, domain_of(bank)) if isinstance(bank, pa.Table) else as_bank(bank)  # (a Bank as it is)


def _id_frame(tables: Packed) -> pd.DataFrame:
    return pd.DataFrame({"board_id": tables.ids.to_numpy(zero_copy_only=False)})


def _sorted_frame(verdicts: pa.Table) -> pd.DataFrame:
    frame = verdicts.to_pandas().sort_values(KEY, kind="stable").reset_index(drop=True)
    frame.attrs[FRAME_DOMAIN] = domain_of(verdicts).name
    return frame


@dataclass
class ScoreSummary:
    """What ``score_file`` did: outputs scored per status, how, and what it left out."""

    scored: int = 0
    complete: int = 0
    legal_noncompletion: int = 0
    illegal: int = 0
    streamed: bool = True
    lost_outputs: int = 0
    unhashed: int = 0  # answers without a recorded prompt hash (scored unchecked)
    mismatched: int = 0  # answers whose prompt hash is not their board's, scored with ``ignore_prompt_hash``
    invalid: tuple = ()
    boards: int = 0  # the bank's boards with a scored output
    bank_boards: int = 0  # the bank's boards
    _seen: np.ndarray | None = dataclasses.field(default=None, repr=False, compare=False)

    def cover(self, rows, bank_size: int) -> None:
        """Count the bank rows ``rows`` (int, any shape) as covered by scored outputs."""
        if self._seen is None or len(self._seen) != bank_size:
            self._seen, self.bank_boards = np.zeros(bank_size, dtype=bool), bank_size
        self._seen[np.asarray(rows, dtype=np.int64)] = True
        self.boards = int(np.count_nonzero(self._seen))

    def count(self, status: np.ndarray | pa.Array) -> None:
        values = pc.value_counts(status).to_pylist() if isinstance(status, (pa.Array, pa.ChunkedArray)) else []
        for item in values:
            setattr(self, item["values"], getattr(self, item["values"]) + item["counts"])
        self.scored = self.complete + self.legal_noncompletion + self.illegal


def score_file(
    bank: pa.Table | Bank | pd.DataFrame,
    responses,
    out,
    parse: str = "lenient",
    format_failure: str = "illegal",
    skip_invalid: bool = False,
    progress: Progress | None = None,
    chunk_bytes: int | None = None,
    executor: Executor | None = None,
    ignore_prompt_hash: bool = False,
) -> ScoreSummary:
    """Score a responses file or run log into a verdicts file, batch by batch.

    Parameters
    ----------
    bank : a ``Bank``, or an Arrow table checked by ``check_bank_table`` (``fastspe.boundary.banks.read_bank_table``)
    responses, out : paths (``responses`` may be a list of paths, scored as one file: an output in two of
        them is refused, naming both); ``out`` is ``.parquet`` (streamed, rows in the order of the responses)
        or ``.csv`` (in memory, sorted by condition, board_id, trial)
    skip_invalid : report bad lines (``ScoreSummary.invalid``) and score the rest
    progress : called with (outputs scored so far, None)
    executor : where the streamed batches are scored (``fastspe.distributed.executor`` for Dask); reading,
        the duplicate check and writing stay here, in order, so the file is the same byte for byte
    ignore_prompt_hash : score answers whose recorded prompt hash (``prompt_text_sha256``) is not the hash of
        the prompt the bank gives their board (``ScoreSummary.mismatched``; refused otherwise, naming the file,
        line and board); the verdicts' Parquet metadata records it (``boundary.prompt_hashes.CHECK_KEY``).
        Answers without a hash are scored and counted (``ScoreSummary.unhashed``). Answers of a prompt variant
        are checked against their board's message under the variants kept beside their file (``NAME.prompts.jsonl``,
        ``fastspe.prompting.variant_check``)

    Memory is set by the batch size (``chunk_bytes`` of JSONL/CSV per batch), not the file: the keys
    seen so far (8 bytes per output) are all that is kept across batches, so duplicates are still
    found exactly. A file the fast Arrow path cannot vouch for (a damaged line, a torn run-log line,
    a duplicate, ...) is read again with the precise line reader, which names the line at fault (or
    skips it with ``skip_invalid``); that path holds the file in memory.
    """
    check_score_options(parse, format_failure)
    bank = _as_checked_bank(bank)
    tables = packed_bank(bank)
    paths = response_paths(responses, out)
    fmt = table_format(out, (".parquet", ".csv"))
    accept_variants(bank, paths)  # answers of prompt variants: checked against the specs beside them
    summary = ScoreSummary()
    if fmt == "parquet":
        try:
            _stream(
                bank,
                tables,
                paths,
                out,
                parse,
                format_failure,
                summary,
                progress,
                chunk_bytes,
                executor,
                ignore_prompt_hash,
            )
            return summary
        except NeedsLineReader:
            summary = ScoreSummary(streamed=False)
    else:
        summary.streamed = False
    ids = _id_frame(tables)

    def checked(path) -> pd.DataFrame:
        resp = read_responses(path, bank=ids, skip_invalid=skip_invalid, positions=True)
        found = check_frame(bank, resp, path, "row" if table_format(path) == "parquet" else "line", ignore_prompt_hash)
        summary.unhashed += found.unhashed
        summary.mismatched += found.mismatches
        return resp.drop(columns=[POSITION])

    resp = combine_responses((str(p), checked(p)) for p in paths)
    if resp.empty:
        raise UserError(f"{_names(paths)}: no completed outputs to score")
    outputs = _frame_outputs(resp, tables)
    verdicts = _sorted_frame(verdict_table(tables, outputs, parse, format_failure))
    verdicts.attrs[CHECK_KEY] = _check_record(ignore_prompt_hash)
    write_verdicts(verdicts, out)
    summary.cover(outputs.column("row").to_numpy(), len(tables.ids))
    summary.count(pa.array(verdicts["status"].to_numpy(object), pa.string()))
    summary.invalid = tuple(resp.attrs.get("invalid", ()))
    if progress is not None:
        progress(summary.scored, summary.scored)
    return summary


def _names(paths) -> str:
    return ", ".join(map(str, paths))


def _stream(
    bank: Bank,
    tables: Packed,
    paths: list,
    out,
    parse,
    format_failure,
    summary: ScoreSummary,
    progress: Progress | None,
    chunk_bytes: int | None,
    executor: Executor | None = None,
    ignore_prompt_hash: bool = False,
) -> None:
    """Read, check, score and write batch by batch; the next batch is read and the last one written (both
    mostly outside the GIL: Arrow's JSON reader, hashing, Parquet compression) while this one is scored
    (by ``executor``, which may score several batches ahead elsewhere; they come back in order). An answer
    whose prompt is not its board's is left to the line reader, which names its line (unless ignored)."""
    from concurrent.futures import ThreadPoolExecutor

    checker = ResponseChecker(tables.ids)
    record = _check_record(ignore_prompt_hash)
    kwargs = {} if chunk_bytes is None else {"chunk_bytes": chunk_bytes}
    batches = (table for path in paths for table in response_tables(path, **kwargs))
    with parquet_stream(out, "verdicts") as write, ThreadPoolExecutor(2, thread_name_prefix="fastspe-io") as io:

        def checked_write(verdicts: pa.Table) -> None:
            try:
                typed = typed_verdicts(verdicts, f"verdicts to write to {out}", tables.domain)
                write(typed.replace_schema_metadata({**typed.schema.metadata, CHECK_KEY: record}))
            except (pa.ArrowException, ValueError, TypeError):
                raise NeedsLineReader("metadata columns change type between batches") from None

        def checked_outputs():
            reading = io.submit(next, batches, None)
            while (raw := reading.result()) is not None:
                reading = io.submit(next, batches, None)
                outputs = checker.check(raw)
                if outputs.num_rows:
                    summary.cover(outputs.column("row").to_numpy(), len(tables.ids))
                    hashes = outputs.column(HASH_COLUMN) if HASH_COLUMN in outputs.column_names else None
                    found = bank.prompt_hashes.check(outputs.column("row").to_numpy(), hashes)
                    if found.mismatches and not ignore_prompt_hash:
                        raise NeedsLineReader("an answer to another prompt")  # the line reader names its line
                    summary.unhashed += found.unhashed
                    summary.mismatched += found.mismatches
                    yield outputs

        writing = None
        for verdicts in _verdict_tables(tables, checked_outputs(), parse, format_failure, executor):
            if writing is not None:
                writing.result()  # in order, and any error surfaces here
            writing = io.submit(checked_write, verdicts)
            summary.count(verdicts.column("status"))
            if progress is not None:
                progress(summary.scored, None)
        if writing is not None:
            writing.result()
        if summary.scored == 0:
            raise UserError(f"{_names(paths)}: no completed outputs to score")
    summary.lost_outputs = checker.lost_outputs()
