"""Batched answer parsing: decide the answers whose parse is provable from their bytes alone.

The answers of a column are one UTF-8 buffer ``data`` with int64 ``offsets``; answer i is
``data[offsets[i]:offsets[i + 1]]``. The kernels mirror ``fastspe.scoring.parse_reference`` (the reference) for the
common shapes and mark every other answer ``UNDECIDED`` for the Python parser:

- ``PLAN``: the last label (found as the reference finds labels) is followed on its line by an
  ASCII list that the reference reads in one of its three ways: comma-separated tokens (exact;
  a token that is no move, ``X``, ``then``, ``3``, is ``INVALID_CODE``), ``u``/``d``/``l``/``r``
  letters between spaces, tabs, ``, ; / |``, or token by token (letter runs, direction words,
  other tokens; punctuation around tokens), after stripping markup (``* _ ` ~``) and a trailing
  ``. ! ; ,`` from the list. Lists in brackets or quotes, with a remark in parentheses or a
  ``->``/``=>`` separator, are left to the reference. Or the list is empty and only whitespace
  follows to the end of the answer (so no list can go on on the next lines). ``tags`` says what
  was normalized (``TAG_NAMES``): none for an exact answer.
- ``NO_PLAN``: no label at all, and either only ASCII whitespace or an ASCII character outside a
  code-fence line that no bare move list may hold (prose).

Every pattern of the reference is ASCII, so byte offsets stand in for its code-point offsets; a
multi-byte character is never one of those bytes. Each ``\\r`` is read as a line break, as the
reference does after turning ``\\r\\n`` and lone ``\\r`` into ``\\n``. Anything unusual where it
matters (a non-ASCII byte in the counted line, unicode whitespace that ``str.strip`` would eat)
is left undecided, never guessed.

Byte classes come in as a table (``byte_class``, uint16 (256,)) built by the caller from the
reference's own patterns, so the two cannot drift apart; the bits are the ``LETTER`` ...
``WRAP`` constants of ``kernels.parse_bytes``. The list after the last label is read by
``kernels.parse_list``; this module finds the labels and decides each answer.
"""

from __future__ import annotations

import numpy as np

from .._numba import njit, prange
from .parse_bytes import (
    BARE_BAD,
    LABEL_MARKUP,
    LEAD,
    LETTER,
    LINE_BREAK,
    M_LETTER,
    SPACE,
    STRIP,
    TAG_CASE,
    TAG_FENCE,
    TAG_INLINE,
    TAG_LABEL,
    TAG_MARKUP,
    lower,
    skip_until,
)
from .parse_list import clean_list, comma_letters, list_moves, list_tags

PLAN, NO_PLAN, UNDECIDED = 0, 2, -1

_NL, _CR, _COLON = 10, 13, 58
_BACKTICK, _TILDE = 96, 126
_MOVE = np.frombuffer(b"move", dtype=np.uint8)
_MOVES_CAPS = np.frombuffer(b"MOVES", dtype=np.uint8)


@njit
def _label_end(data, i, hi, byte_class):
    """(end, markup count) of a ``moves?[*_`]{0,3}[ \\t]*:`` match at ``i`` (any ASCII case); end -1 if none."""
    if i + 4 >= hi:  # "move" and at least the colon
        return -1, 0
    for k in range(4):
        if lower(data[i + k]) != _MOVE[k]:
            return -1, 0
    j = i + 4
    if lower(data[j]) == 115:  # the optional "s": no other branch can match when it is there
        j += 1
    markup = 0
    while j < hi and byte_class[data[j]] & LABEL_MARKUP:
        markup += 1
        j += 1
    if markup > 3:
        return -1, 0
    while j < hi and byte_class[data[j]] & SPACE:
        j += 1
    if j < hi and data[j] == _COLON:
        return j + 1, markup
    return -1, 0


@njit
def _is_caps_moves(data, i):
    for k in range(5):
        if data[i + k] != _MOVES_CAPS[k]:
            return False
    return True


@njit
def _all_strip(data, lo, hi, byte_class):
    for i in range(lo, hi):
        if not byte_class[data[i]] & STRIP:
            return False
    return True


@njit
def _line_end(data, lo, hi):
    for i in range(lo, hi):
        if data[i] == _NL or data[i] == _CR:
            return i
    return hi


@njit
def _is_fence(data, i, hi):
    """Whether a ``` or ~~~ starts at ``i``."""
    if i + 3 > hi:
        return False
    b = data[i]
    return (b == _BACKTICK or b == _TILDE) and data[i + 1] == b and data[i + 2] == b


@njit
def _label_tags(data, i, markup, lead_ok, lead_ws):
    """Tags of a label at ``i`` (the reference's ``_labelled``), from the markup after its word and
    whether the line so far may lead a label (``lead_ok``) and holds only spaces/tabs (``lead_ws``)."""
    tags = 0
    if markup > 0 or (lead_ok and not lead_ws):
        tags |= TAG_MARKUP
    if not lead_ok:  # only a capital MOVES: counts after other text on its line
        tags |= TAG_INLINE
    if not _is_caps_moves(data, i):
        tags |= TAG_CASE if lower(data[i + 4]) == 115 else TAG_LABEL  # "moves" in other case, or "move"
    return tags


@njit
def _scan_answer(data, lo, hi, byte_class, no_output):
    """Verdict, moves, list span, multiple and tags of one answer (see ``scan_answers``)."""
    labels = 0
    last_tags = 0  # of the last label
    last_end = 0
    fences = 0  # code-fence lines so far
    fences_before_last = 0
    lead_ok = True  # data[line start:i] may precede a lower-case label
    lead_ws = True  # ... and holds only spaces and tabs
    on_fence = False
    bare_bad = False
    # past a line's lead only these bytes matter (BARE_BAD until one is found): the fast loop
    # below skips the rest, which is most of an answer
    stop = LINE_BREAK | M_LETTER | BARE_BAD
    i = lo
    while i < hi:
        if not lead_ok:  # (lead_ws implies lead_ok)
            i = skip_until(data, i, hi, byte_class, stop)
            if i == hi:
                break
        cls = byte_class[data[i]]
        if cls & LINE_BREAK:
            lead_ok = lead_ws = True
            on_fence = False
            i += 1
            continue
        if lead_ws and not cls & SPACE and _is_fence(data, i, hi):
            on_fence = True
            fences += 1
        if cls & BARE_BAD and not on_fence:
            bare_bad = True
            stop = LINE_BREAK | M_LETTER
        # no label match starts inside another, as none holds an "m" after its first byte
        if cls & M_LETTER:
            end, markup = _label_end(data, i, hi, byte_class)
            if end >= 0:
                if _is_caps_moves(data, i):
                    is_label = i == lo or not byte_class[data[i - 1]] & LETTER
                else:
                    is_label = lead_ok  # lower/mixed case only at a line start
                if is_label:
                    labels += 1
                    last_tags = _label_tags(data, i, markup, lead_ok, lead_ws)
                    last_end = end
                    fences_before_last = fences
        lead_ok = lead_ok and (cls & LEAD) != 0
        lead_ws = lead_ws and (cls & SPACE) != 0
        i += 1
    if labels == 0:
        if bare_bad or _all_strip(data, lo, hi, byte_class):
            return NO_PLAN, 0, 0, 0, False, 0
        return UNDECIDED, 0, 0, 0, False, 0
    multiple = labels > 1
    line_end = _line_end(data, last_end, hi)
    start, end, cleaning_tags, goes_on = clean_list(data, last_end, line_end, byte_class)
    if start < 0:
        return UNDECIDED, 0, 0, 0, multiple, 0
    if goes_on and not _all_strip(data, line_end, hi, byte_class):  # the next lines may hold moves
        return UNDECIDED, 0, 0, 0, multiple, 0
    tags = last_tags | cleaning_tags | (TAG_FENCE if fences_before_last % 2 else 0)
    if start == end:
        return PLAN, 0, start, end, multiple, tags
    count = comma_letters(data, start, end, no_output, 0, False)
    if count >= 0:  # the common exact list, in one pass
        return PLAN, count, start, end, multiple, tags
    reading = list_tags(data, start, end, byte_class)
    if reading < 0:
        return UNDECIDED, 0, 0, 0, multiple, 0
    count = list_moves(data, start, end, byte_class, no_output, 0, False)
    return PLAN, count, start, end, multiple, tags | reading


@njit(parallel=True)
def scan_answers(data, offsets, byte_class):
    """First pass: decide each answer alone where the reference's result is provable.

    Parameters
    ----------
    data : uint8 (total,), the UTF-8 bytes of every answer back to back
    offsets : int64 (n + 1,), answer i is ``data[offsets[i]:offsets[i + 1]]`` (a null is empty)
    byte_class : uint16 (256,), class bits of each byte value (``LETTER`` ... ``WRAP``)

    Returns
    -------
    verdict : int8 (n,), PLAN, NO_PLAN or UNDECIDED
    n_moves : int64 (n,), moves of a PLAN answer, 0 otherwise
    list_start, list_end : int64 (n,), the byte span of a PLAN answer's list (for ``write_codes``)
    multiple : bool (n,), more than one label (meaningful for decided answers)
    tags : uint8 (n,), the normalization tags of a PLAN answer (``TAG_NAMES``; 0 when exact)
    """
    n = offsets.shape[0] - 1
    verdict = np.empty(n, dtype=np.int8)
    n_moves = np.empty(n, dtype=np.int64)
    list_start = np.empty(n, dtype=np.int64)
    list_end = np.empty(n, dtype=np.int64)
    multiple = np.empty(n, dtype=np.bool_)
    tags = np.empty(n, dtype=np.uint8)
    no_output = np.empty(0, dtype=np.uint8)  # a writable stand-in: this pass only counts the moves
    for a in prange(n):
        out = _scan_answer(data, offsets[a], offsets[a + 1], byte_class, no_output)
        verdict[a] = out[0]
        n_moves[a] = out[1]
        list_start[a] = out[2]
        list_end[a] = out[3]
        multiple[a] = out[4]
        tags[a] = out[5]
    return verdict, n_moves, list_start, list_end, multiple, tags


@njit(parallel=True)
def write_codes(data, list_start, list_end, byte_class, other_codes, other_offsets, other_index, out_offsets):
    """Second pass: every answer's move codes into one flat array.

    Parameters
    ----------
    data, byte_class : as for ``scan_answers``
    list_start, list_end : int64 (n,), from ``scan_answers`` (an empty span writes nothing)
    other_codes : uint8 (m,), move codes of the answers parsed elsewhere, back to back
    other_offsets : int64 (k + 1,), their slices of ``other_codes``
    other_index : int64 (n,), the slice of answer i in ``other_offsets``, -1 if the kernel decided it
    out_offsets : int64 (n + 1,), answer i's codes go to ``codes[out_offsets[i]:out_offsets[i + 1]]``

    Returns
    -------
    codes : uint8 (out_offsets[n],), 0..3 = U, D, L, R and INVALID_CODE for a token that is not a move
    """
    n = list_start.shape[0]
    codes = np.empty(out_offsets[n], dtype=np.uint8)
    for a in prange(n):
        at = out_offsets[a]
        k = other_index[a]
        if k >= 0:
            lo = other_offsets[k]
            codes[at : at + other_offsets[k + 1] - lo] = other_codes[lo : other_offsets[k + 1]]
        elif list_end[a] > list_start[a] and comma_letters(data, list_start[a], list_end[a], codes, at, True) < 0:
            list_moves(data, list_start[a], list_end[a], byte_class, codes, at, True)
    return codes
