"""Parse a whole column of answers at once, with results identical to ``fastspe.scoring.parse_reference``.

``parse_column(texts, strict, vocabulary)`` runs a compiled pass (``fastspe.kernels.parse``) over the UTF-8
bytes of the whole column. It decides alone the answers whose result it can prove (an Appendix B
answer, prose with no label) and hands every other answer to ``fastspe.scoring.parse_reference.parse_answer``, the
reference, so that for every answer ``(moves, mode, normalization, multiple)`` is exactly what
``parse_answer(text, strict, vocabulary)`` gives. Plans come back as flat action codes, ready for replay.

The compiled pass is built for ``DIRECTIONS`` (U/D/L/R: its byte classes and letter codes); with any other
vocabulary every answer goes to the reference, and its symbols become codes through ``vocabulary.code_of_byte``.
So does a small column (``REFERENCE_BYTES``): the reference reads the demo's 6,000 answers (393 KB) in 0.06 s,
faster than loading the compiled pass from the cache (0.2 s) and far faster than compiling it on a fresh cache
(about 7 s on 2 cores).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple, Sequence

import numpy as np
import pyarrow as pa

from . import parse_reference as _ref
from ..errors import UserTypeError
from ..kernels import parse as _kernel
from ..kernels import parse_bytes as _classes
from ..domains.vocabulary import DIRECTIONS, Vocabulary

__all__ = [
    "MODE_EXACT",
    "MODE_NORMALIZED",
    "MODE_NO_PLAN",
    "MODE_NAMES",
    "ParsedColumn",
    "parse_column",
    "moves_strings",
    "warm_parser",
]

MODE_EXACT, MODE_NORMALIZED, MODE_NO_PLAN = 0, 1, 2
MODE_NAMES = (_ref.EXACT, _ref.NORMALIZED, _ref.NO_PLAN)  # indexed by the mode codes
_MODE_OF_NAME = {name: code for code, name in enumerate(MODE_NAMES)}
# a column of at most this many bytes is read by the reference alone: typical answers take it about 0.1 s; a
# hostile one (a label every 9 bytes) up to 1.5 s, still less than compiling the pass
REFERENCE_BYTES = 512 * 1024
_DIRECTIONS = _ref._grammar(DIRECTIONS)  # the reference's reading of U/D/L/R, which the kernel's byte classes mirror


@dataclass(frozen=True)
class ParsedColumn:
    """Parsed answers of a column (n answers).

    codes : uint8 (total,), every plan's action codes back to back (``vocabulary.tokens[k]`` for code k, 0..3 = U,
        D, L, R for ``DIRECTIONS``; ``vocabulary.invalid_code`` for a token that is not an action)
    offsets : int64 (n + 1,), plan i is ``codes[offsets[i]:offsets[i + 1]]``
    mode : int8 (n,), ``MODE_EXACT``, ``MODE_NORMALIZED`` or ``MODE_NO_PLAN`` (names in ``MODE_NAMES``)
    normalization_code : int32 (n,), each answer's normalization as an index into ``normalization_names``
    normalization_names : tuple of str, the ``+``-joined normalization tags ("" when none); ``normalization``
        (object (n,)) gives them per answer
    multiple : bool (n,), more than one label appeared
    compiled : how many answers the kernel decided alone; the rest went to the Python parser
    vocabulary : the tokens the answers were read with (their codes, and the symbols of ``plan_strings``)
    """

    codes: np.ndarray
    offsets: np.ndarray
    mode: np.ndarray
    normalization_code: np.ndarray
    normalization_names: tuple
    multiple: np.ndarray
    compiled: int
    vocabulary: Vocabulary = DIRECTIONS

    def __len__(self) -> int:
        return len(self.mode)

    @property
    def normalization(self) -> np.ndarray:
        return np.array(self.normalization_names, dtype=object)[self.normalization_code]

    def normalization_array(self) -> pa.Array:
        """The normalizations as an Arrow string array, built from the codes (no Python string per answer)."""
        names = pa.array(self.normalization_names, pa.string())
        return pa.DictionaryArray.from_arrays(self.normalization_code, names).cast(pa.string())

    def plan_strings(self) -> pa.Array:
        """The stored plans, one symbol of ``vocabulary`` per action (``?`` for a token that is not an action), as
        an Arrow string array built from the buffers (``Vocabulary.plan_strings``)."""
        return self.vocabulary.plan_strings(self.codes, self.offsets)

    def to_plans(self) -> list[_ref.ParsedPlan]:
        """The answers as ``fastspe.scoring.parse_reference.ParsedPlan`` tuples (one Python object each: for checks)."""
        moves = self.plan_strings().to_pylist()
        return [
            _ref.ParsedPlan(m, MODE_NAMES[k], norm, bool(mult))
            for m, k, norm, mult in zip(moves, self.mode, self.normalization, self.multiple)
        ]


def moves_strings(codes: np.ndarray, offsets: np.ndarray) -> pa.Array:
    """One string per plan of ``DIRECTIONS`` codes, one character per action (``U D L R``, ``?`` for a token that
    is not a move): ``DIRECTIONS.plan_strings`` (a ``pa.StringArray``, or a ``pa.LargeStringArray`` when the plans
    hold 2**31 actions or more). Other vocabularies: ``Vocabulary.plan_strings`` or ``ParsedColumn.plan_strings``.
    """
    return DIRECTIONS.plan_strings(codes, offsets)


def _cleaning_tags(body: str) -> set:
    tags: set = set()
    _ref._clean_body(body, tags)
    return tags


def _reading_tags(body: str) -> set:
    tags: set = set()
    _ref._tokens_to_moves(body, tags, _DIRECTIONS)
    return tags


def _byte_classes() -> np.ndarray:
    """The kernel's byte-class table, read off the reference parser's own patterns and cleaning."""
    table = np.zeros(256, dtype=np.uint16)
    for b in range(128):  # every pattern is ASCII: a byte of a multi-byte character is in no class
        ch = chr(b)
        spacing = ch in " \t"
        table[b] = (
            (_classes.LETTER if ch in _ref._ASCII_LETTERS else 0)
            | (_classes.LEAD if _ref._LEAD.fullmatch(ch) else 0)
            | (_classes.SPACE if spacing else 0)
            | (_classes.STRIP if ch.isspace() else 0)
            | (_classes.BARE_BAD if not _DIRECTIONS.bare.fullmatch(ch) else 0)
            | (_classes.LABEL_MARKUP if not spacing and _ref._STRONG.fullmatch(f"MOVES{ch}:") else 0)
            | (_classes.TOKEN if ch.isalnum() else 0)
            | (_classes.M_LETTER if ch in "mM" else 0)
            | (_classes.LINE_BREAK if ch in "\r\n" else 0)
            | (_classes.LIST_MARKUP if ch in _ref._MARKUP else 0)
            | (_classes.END_PUNCT if "punctuation" in _cleaning_tags("U" + ch) else 0)
            | (_classes.LETTER_SEP if _ref._LETTER_SEPS.fullmatch(ch) else 0)
            | (_classes.TOKEN_SEP if not _ref._TOKEN.fullmatch(ch) else 0)
            | (_classes.WRAP if ch in _ref._WRAP else 0)
            | (_classes.TOKEN_TRIM if "punctuation" in _reading_tags("X" + ch) else 0)
        )
    return table


_BYTE_CLASS = _byte_classes()
# the normalization string of each tag mask, "+"-joined in sorted order as the reference writes it
_NORMALIZATION_OF_TAGS = np.array(
    [
        "+".join(sorted(name for k, name in enumerate(_classes.TAG_NAMES) if mask >> k & 1))
        for mask in range(1 << len(_classes.TAG_NAMES))
    ],
    dtype=object,
)


class _Texts(NamedTuple):
    """A column as the kernel reads it, and a way back to the items for the reference parser."""

    data: np.ndarray  # uint8 (total,), the UTF-8 bytes (an item that is not text, or null, is empty)
    offsets: np.ndarray  # int64 (n + 1,)
    items_at: Callable[[np.ndarray], list]  # the original items at some indices
    not_text: np.ndarray  # int64, indices of items that only the reference parser can read


def _is_string_type(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t)


def _arrow_texts(arr: pa.Array | pa.ChunkedArray) -> _Texts:
    """A (chunked) string array's bytes, without a copy of the text where it is one array or its chunks are
    back-to-back slices of one array (a scanned batch of a JSONL file)."""
    if isinstance(arr, pa.ChunkedArray):
        whole = _unsliced(arr)
        if whole is not None:
            arr = whole
        else:
            chunks = [c.cast(pa.large_string()) for c in arr.chunks]
            arr = pa.concat_arrays(chunks) if chunks else pa.array([], type=pa.large_string())
    if not pa.types.is_string(arr.type):
        arr = arr.cast(pa.large_string())
    if arr.null_count:  # a null's slot of the data may be non-empty: make it ""
        arr = arr.fill_null("")
    _, offset_buf, data_buf = arr.buffers()
    n = len(arr)
    offset_type = np.int32 if pa.types.is_string(arr.type) else np.int64
    offsets = (
        np.frombuffer(offset_buf, dtype=offset_type)[arr.offset : arr.offset + n + 1].astype(np.int64)
        if n
        else np.zeros(1, np.int64)
    )
    data = np.frombuffer(data_buf if data_buf is not None else b"", dtype=np.uint8)
    return _Texts(
        data, offsets, lambda idx: arr.take(pa.array(idx, type=pa.int64())).to_pylist(), np.empty(0, dtype=np.int64)
    )


def _unsliced(column: pa.ChunkedArray) -> pa.Array | None:
    """The one string array whose back-to-back slices ``column``'s chunks are (same buffers, each chunk starting
    where the one before ends), as one array over those buffers; None for any other chunked array."""
    chunks = column.chunks
    if not chunks or not pa.types.is_string(column.type):
        return None
    first = chunks[0]
    buffers = first.buffers()
    at = first.offset
    for chunk in chunks:
        if chunk.offset != at or any(
            (x is None) != (y is None) or x is not None and x.address != y.address
            for x, y in zip(chunk.buffers(), buffers)
        ):
            return None
        at += len(chunk)
    if buffers[1].size < 4 * (at + 1):
        return None
    return pa.Array.from_buffers(pa.string(), at - first.offset, buffers, offset=first.offset)


def _sequence_texts(items: Sequence) -> _Texts:
    """Any sequence: strings go to the kernel, other items (numbers, bytes, lists) to the reference."""
    items = list(items)
    not_text = np.empty(0, dtype=np.int64)
    try:  # the common column, str and None only, in one conversion
        if set(map(type, items)) <= {str, type(None)}:
            arr = pa.array(items, type=pa.large_string())
        else:
            arr = None
    except (pa.ArrowException, UnicodeError):  # lone surrogates: not UTF-8, the reference copes
        arr = None
    if arr is None:
        text = [x if isinstance(x, str) and _utf8_encodable(x) else None for x in items]
        not_text = np.array(
            [i for i, (x, t) in enumerate(zip(items, text)) if x is not None and t is None], dtype=np.int64
        )
        arr = pa.array(text, type=pa.large_string())
    return _arrow_texts(arr)._replace(items_at=lambda idx: [items[i] for i in idx], not_text=not_text)


def _utf8_encodable(s: str) -> bool:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _column_texts(texts) -> _Texts:
    if isinstance(texts, (pa.Array, pa.ChunkedArray)):
        if not _is_string_type(texts.type):
            raise UserTypeError(f"texts must hold strings, got a pyarrow array of {texts.type}")
        return _arrow_texts(texts)
    if isinstance(texts, (str, bytes)):
        raise UserTypeError("texts must be a column of answers, not one answer")
    return _sequence_texts(texts)


def parse_column(texts, strict: bool = False, vocabulary: Vocabulary = DIRECTIONS) -> ParsedColumn:
    """Parse every answer of ``texts`` exactly as ``fastspe.scoring.parse_reference.parse_answer(text, strict,
    vocabulary)`` would.

    Parameters
    ----------
    texts : a pyarrow string, large string or string view array, a chunked array of those, or any
        sequence (items that are not ``str``, and nulls, give what ``parse_answer`` gives for them)
    strict : every normalized answer is ``no_plan`` (its tags kept), as in ``parse_answer``
    vocabulary : the action tokens (``fastspe.domains.vocabulary``); the compiled pass reads ``DIRECTIONS`` only,
        any other vocabulary is read answer by answer by the reference (as is a column of at most
        ``REFERENCE_BYTES`` bytes)
    """
    if not isinstance(vocabulary, Vocabulary):
        raise UserTypeError(f"vocabulary must be a fastspe.domains.vocabulary.Vocabulary, got {vocabulary!r}")
    col = _column_texts(texts)
    if vocabulary == DIRECTIONS and len(col.data) > REFERENCE_BYTES:
        verdict, n_moves, list_start, list_end, multiple, tags = _kernel.scan_answers(
            col.data, col.offsets, _BYTE_CLASS
        )
        verdict[col.not_text] = _kernel.UNDECIDED
    else:  # the kernel knows U/D/L/R only, and a small column is read sooner than the kernel loads
        n = len(col.offsets) - 1
        verdict = np.full(n, _kernel.UNDECIDED, dtype=np.int8)
        n_moves, list_start, list_end = (np.zeros(n, dtype=np.int64) for _ in range(3))
        multiple, tags = np.zeros(n, dtype=np.bool_), np.zeros(n, dtype=np.uint8)
    undecided = np.flatnonzero(verdict == _kernel.UNDECIDED)
    plans = [_ref.parse_answer(t, strict, vocabulary) for t in col.items_at(undecided)]
    found = verdict == _kernel.PLAN
    normalized = found & (tags != 0)
    mode = np.full(len(verdict), MODE_NO_PLAN, dtype=np.int8)
    mode[found & (tags == 0)] = MODE_EXACT
    if strict:  # a normalized plan is a format failure; its tags say why
        n_moves[normalized] = 0
        list_end[normalized] = list_start[normalized]
    else:
        mode[normalized] = MODE_NORMALIZED
    normalization = tags.astype(np.int32)  # indices into _NORMALIZATION_OF_TAGS, then any name the reference adds
    names = list(_NORMALIZATION_OF_TAGS)
    other_index = np.full(len(mode), -1, dtype=np.int64)
    other_index[undecided] = np.arange(len(undecided))
    if plans:
        mode[undecided] = [_MODE_OF_NAME[p.mode] for p in plans]
        index = {name: code for code, name in enumerate(names)}
        for p in plans:
            if p.normalization not in index:
                index[p.normalization] = len(names)
                names.append(p.normalization)
        normalization[undecided] = [index[p.normalization] for p in plans]
        multiple[undecided] = [p.multiple for p in plans]
        n_moves[undecided] = [len(p.moves) for p in plans]
    other_offsets = np.zeros(len(plans) + 1, dtype=np.int64)
    np.cumsum(n_moves[undecided], out=other_offsets[1:])
    other_codes = vocabulary.code_of_byte[
        np.frombuffer("".join(p.moves for p in plans).encode("ascii"), dtype=np.uint8)
    ]
    offsets = np.zeros(len(mode) + 1, dtype=np.int64)
    np.cumsum(n_moves, out=offsets[1:])
    if len(undecided) == len(mode):  # the reference's codes are every answer's, in order
        codes = other_codes
    else:
        codes = _kernel.write_codes(
            col.data, list_start, list_end, _BYTE_CLASS, other_codes, other_offsets, other_index, offsets
        )
    return ParsedColumn(
        codes, offsets, mode, normalization, tuple(names), multiple, len(mode) - len(undecided), vocabulary
    )


def warm_parser() -> None:
    """Compile (or load) the answer parser (``fastspe cache warm``): a demo's answers are few enough for the reference
    parser alone, a model's may not be (a column over ``REFERENCE_BYTES``)."""
    answers = ["Think.\nMOVES: U, D, L", "moves: up, left", "MOVES: U\nMOVES: X (a remark)", "no plan"]
    parse_column(pa.array(answers * (REFERENCE_BYTES // 16)))
