"""Batched answer parsing: decide the answers whose parse is provable from their bytes alone.

The answers of a column are one UTF-8 buffer ``data`` with int64 ``offsets``; answer i is
``data[offsets[i]:offsets[i + 1]]``. The kernels mirror ``fastspe.parse`` (the reference) for two
common shapes and mark every other answer ``UNDECIDED`` for the Python parser:

- ``EXACT``: the last label is a capital ``MOVES:`` with nothing but spaces or tabs before it on
  its line and no markup, not inside an open code fence, followed on its line by comma-separated
  tokens, each a single ``U``/``D``/``L``/``R`` or an ASCII alphanumeric token that the reference
  reads as no move at all (``X``, ``then``, ``3``: code ``INVALID_CODE``); or by nothing, when
  only whitespace follows to the end of the answer;
- ``NO_PLAN``: no label at all, and either only ASCII whitespace or an ASCII character outside a
  code-fence line that no bare move list may hold (prose).

Every pattern of the reference is ASCII, so byte offsets stand in for its code-point offsets; a
multi-byte character is never one of those bytes. Each ``\\r`` is read as a line break, as the
reference does after turning ``\\r\\n`` and lone ``\\r`` into ``\\n``. Anything unusual where it
matters (a non-ASCII byte in the counted line, unicode whitespace that ``str.strip`` would eat)
is left undecided, never guessed.

Byte classes come in as a table (``byte_class``, uint16 (256,)) built by the caller from the
reference's own patterns, so the two cannot drift apart; the bits are the ``LETTER`` ...
``LINE_BREAK`` constants below.
"""

from __future__ import annotations

import numpy as np

from .._numba import njit, prange
from .replay import INVALID_CODE

EXACT, NO_PLAN, UNDECIDED = 0, 2, -1  # EXACT and NO_PLAN match the mode codes of the domain layer

LETTER = 1  # an ASCII letter: a capital MOVES: right after one is not a label
LEAD = 2  # may stand before a lower-case label on its line (spaces, tabs, > # * _ ` -)
SPACE = 4  # space or tab
STRIP = 8  # ASCII whitespace that str.strip removes
BARE_BAD = 16  # an ASCII character that no bare move list holds
MARKUP = 32  # may follow the label word before its colon (* _ `)
TOKEN = 64  # ASCII letter or digit: a token of a comma-separated body
M_LETTER = 128  # m or M: a label may start here
LINE_BREAK = 256  # \n or \r

_NL, _CR, _COMMA, _COLON = 10, 13, 44, 58
_BACKTICK, _TILDE = 96, 126
_MOVE = np.frombuffer(b"move", dtype=np.uint8)
_MOVES_CAPS = np.frombuffer(b"MOVES", dtype=np.uint8)
# direction code of a one-byte token, -1 otherwise (the layout's U, D, L, R order)
_CODE = np.full(256, -1, dtype=np.int8)
for _c, _b in enumerate(b"UDLR"):
    _CODE[_b] = _c
_WORDS = np.frombuffer(b"updownleftright", dtype=np.uint8)  # the direction words, back to back
_WORD_OFFSETS = np.array([0, 2, 6, 10, 15], dtype=np.int64)
_UDLR_LOWER = np.frombuffer(b"udlr", dtype=np.uint8)


@njit
def _lower(b):
    """ASCII lower case of byte ``b`` (other bytes unchanged)."""
    return b | 0x20 if 65 <= b <= 90 else b


@njit
def _label_end(data, i, hi, byte_class):
    """(end, markup count) of a ``moves?[*_`]{0,3}[ \\t]*:`` match at ``i`` (any ASCII case); end -1 if none."""
    if i + 4 >= hi:  # "move" and at least the colon
        return -1, 0
    for k in range(4):
        if _lower(data[i + k]) != _MOVE[k]:
            return -1, 0
    j = i + 4
    if _lower(data[j]) == 115:  # the optional "s": no other branch can match when it is there
        j += 1
    markup = 0
    while j < hi and byte_class[data[j]] & MARKUP:
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
def _is_word(data, lo, hi):
    """Whether ``data[lo:hi]`` is up, down, left or right in any ASCII case."""
    for w in range(_WORD_OFFSETS.shape[0] - 1):
        start = _WORD_OFFSETS[w]
        if hi - lo == _WORD_OFFSETS[w + 1] - start:
            same = True
            for k in range(hi - lo):
                if _lower(data[lo + k]) != _WORDS[start + k]:
                    same = False
                    break
            if same:
                return True
    return False


@njit
def _is_udlr_run(data, lo, hi):
    """Whether every byte of ``data[lo:hi]`` is u, d, l or r in either case."""
    for k in range(lo, hi):
        lb = _lower(data[k])
        if lb != _UDLR_LOWER[0] and lb != _UDLR_LOWER[1] and lb != _UDLR_LOWER[2] and lb != _UDLR_LOWER[3]:
            return False
    return True


@njit
def _token_code(data, lo, hi):
    """Code of an alphanumeric token as the reference reads it without normalizing; -1 if it would normalize."""
    if hi - lo == 1 and _CODE[data[lo]] >= 0:
        return _CODE[data[lo]]
    # a run of u/d/l/r letters splits into moves and a word is read as one: both normalize
    if _is_udlr_run(data, lo, hi) or _is_word(data, lo, hi):
        return -1
    return INVALID_CODE


@njit
def _body_moves(data, lo, hi, byte_class, out, at, write):
    """Moves of an exact body ``data[lo:hi]`` (the rest of the label's line).

    Returns the number of moves (writing their codes to ``out[at:]`` when ``write``), 0 for a body
    of whitespace only, or -1 when the body is not ``token ([ \\t]*,[ \\t]* token)*`` between
    whitespace, or one of its tokens would be normalized.
    """
    while lo < hi and byte_class[data[lo]] & STRIP:
        lo += 1
    while hi > lo and byte_class[data[hi - 1]] & STRIP:
        hi -= 1
    count = 0
    i = lo
    while i < hi:
        start = i
        while i < hi and byte_class[data[i]] & TOKEN:
            i += 1
        if i == start:
            return -1
        code = _token_code(data, start, i)
        if code < 0:
            return -1
        if write:
            out[at + count] = code
        count += 1
        if i == hi:
            break
        while i < hi and byte_class[data[i]] & SPACE:
            i += 1
        if i == hi or data[i] != _COMMA:
            return -1
        i += 1
        while i < hi and byte_class[data[i]] & SPACE:
            i += 1
        if i == hi:  # a trailing comma: the list may go on, a normalization
            return -1
    return count


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
def _scan_answer(data, lo, hi, byte_class, no_output):
    """Verdict, moves, body span and multiple of one answer (see ``scan_answers``)."""
    labels = 0
    last_exact_form = False  # the last label: capital, no markup, only spaces/tabs before it
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
            while i < hi and not byte_class[data[i]] & stop:
                i += 1
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
                    last_exact_form = lead_ws and markup == 0 and _is_caps_moves(data, i)
                    last_end = end
                    fences_before_last = fences
        lead_ok = lead_ok and (cls & LEAD) != 0
        lead_ws = lead_ws and (cls & SPACE) != 0
        i += 1
    if labels == 0:
        if bare_bad or _all_strip(data, lo, hi, byte_class):
            return NO_PLAN, 0, 0, 0, False
        return UNDECIDED, 0, 0, 0, False
    if not last_exact_form or fences_before_last % 2:
        return UNDECIDED, 0, 0, 0, labels > 1
    line_end = _line_end(data, last_end, hi)
    count = _body_moves(data, last_end, line_end, byte_class, no_output, 0, False)
    if count > 0:
        return EXACT, count, last_end, line_end, labels > 1
    if count == 0 and _all_strip(data, line_end, hi, byte_class):  # a bare label with nothing after it
        return EXACT, 0, 0, 0, labels > 1
    return UNDECIDED, 0, 0, 0, labels > 1


@njit(parallel=True)
def scan_answers(data, offsets, byte_class):
    """First pass: decide each answer alone where the reference's result is provable.

    Parameters
    ----------
    data : uint8 (total,), the UTF-8 bytes of every answer back to back
    offsets : int64 (n + 1,), answer i is ``data[offsets[i]:offsets[i + 1]]`` (a null is empty)
    byte_class : uint16 (256,), class bits of each byte value (``LETTER`` ... ``LINE_BREAK``)

    Returns
    -------
    verdict : int8 (n,), EXACT, NO_PLAN or UNDECIDED
    n_moves : int64 (n,), moves of an EXACT answer, 0 otherwise
    body_start, body_end : int64 (n,), the byte span of an EXACT answer's list (for ``write_codes``)
    multiple : bool (n,), more than one label (meaningful for decided answers)
    """
    n = offsets.shape[0] - 1
    verdict = np.empty(n, dtype=np.int8)
    n_moves = np.empty(n, dtype=np.int64)
    body_start = np.empty(n, dtype=np.int64)
    body_end = np.empty(n, dtype=np.int64)
    multiple = np.empty(n, dtype=np.bool_)
    no_output = np.empty(0, dtype=np.uint8)  # a writable stand-in: this pass only counts the moves
    for a in prange(n):
        out = _scan_answer(data, offsets[a], offsets[a + 1], byte_class, no_output)
        verdict[a] = out[0]
        n_moves[a] = out[1]
        body_start[a] = out[2]
        body_end[a] = out[3]
        multiple[a] = out[4]
    return verdict, n_moves, body_start, body_end, multiple


@njit(parallel=True)
def write_codes(data, body_start, body_end, byte_class, other_codes, other_offsets, other_index, out_offsets):
    """Second pass: every answer's move codes into one flat array.

    Parameters
    ----------
    data, byte_class : as for ``scan_answers``
    body_start, body_end : int64 (n,), from ``scan_answers`` (an empty span writes nothing)
    other_codes : uint8 (m,), move codes of the answers parsed elsewhere, back to back
    other_offsets : int64 (k + 1,), their slices of ``other_codes``
    other_index : int64 (n,), the slice of answer i in ``other_offsets``, -1 if the kernel decided it
    out_offsets : int64 (n + 1,), answer i's codes go to ``codes[out_offsets[i]:out_offsets[i + 1]]``

    Returns
    -------
    codes : uint8 (out_offsets[n],), 0..3 = U, D, L, R and INVALID_CODE for a token that is not a move
    """
    n = body_start.shape[0]
    codes = np.empty(out_offsets[n], dtype=np.uint8)
    for a in prange(n):
        at = out_offsets[a]
        k = other_index[a]
        if k >= 0:
            lo = other_offsets[k]
            codes[at:at + other_offsets[k + 1] - lo] = other_codes[lo:other_offsets[k + 1]]
        elif body_end[a] > body_start[a]:
            _body_moves(data, body_start[a], body_end[a], byte_class, codes, at, True)
    return codes
