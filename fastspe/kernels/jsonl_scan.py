"""Find the records, fields and values of clean JSONL in its bytes, or say that the bytes are not clean.

``scan_records(data, names, name_offsets)`` reads a buffer of JSON lines that each hold one flat object
and records, for every line and every known key, what kind of value it holds and where its bytes are.
It proves only a narrow, common shape and gives up on everything else, so that the caller can hand the
buffer to a full JSON reader instead:

- every line is ``{`` ... ``}`` right at its start, ended by ``\\n`` (or by the end of the buffer);
  between tokens only spaces (no tabs, no ``\\r``, no blank lines);
- keys are known (``names``), plain ASCII without escapes, each at most once per line;
- values are ``null``, ``true``, ``false``, numbers in JSON's grammar (an integer of at most 18
  digits is read here, others are left as text), or strings of printable ASCII whose only escapes
  are ``\\" \\\\ \\/ \\b \\f \\n \\r \\t`` (no ``\\u``, no byte >= 0x80: UTF-8 is not checked here);
  no arrays or objects.

Anything else ends the scan with ``UNCLEAN`` (or ``UNKNOWN_KEY`` and the key's bytes, so that the caller may
learn the key and scan again). The pieces of a buffer are scanned in parallel. Nothing is copied:
``gather_strings`` later writes the decoded strings of one column, back to back, for an Arrow string array.
"""

from __future__ import annotations

import numpy as np

from .._numba import njit, prange
from .._numba.words import load_word, same_bytes, store_word

ABSENT, NULL, FALSE, TRUE, INT, FLOAT, TEXT = 0, 1, 2, 3, 4, 5, 6
CLEAN, UNCLEAN, UNKNOWN_KEY = 0, 1, 2
MAX_INT_DIGITS = 18  # always within int64

_NL, _SPACE, _QUOTE, _BACKSLASH, _COLON, _COMMA = 10, 32, 34, 92, 58, 44
_OPEN, _CLOSE, _MINUS, _PLUS, _DOT = 123, 125, 45, 43, 46
# bytes a string that Arrow could read as a timestamp may hold (digits - : + T t Z z space): a string of
# only these, starting with a digit, is time-like (a "." is not among them: Arrow's timestamp[s] refuses
# fractional seconds)
_TIME_BYTE = np.zeros(256, dtype=np.bool_)
for _b in b"0123456789-:+TtZz ":
    _TIME_BYTE[_b] = True
_PLAIN = np.zeros(256, dtype=np.bool_)  # printable ASCII but the quote and the backslash
_PLAIN[32:127] = True
_PLAIN[[_QUOTE, _BACKSLASH]] = False
_UNESCAPED = np.zeros(256, dtype=np.uint8)  # the byte an escape stands for (0: not an escape handled here)
for _esc, _byte in zip(b'"\\/bfnrt', b'"\\/\b\f\n\r\t'):
    _UNESCAPED[_esc] = _byte


@njit(inline="always")
def _spaces(data, i, hi):
    while i < hi and data[i] == _SPACE:
        i += 1
    return i


_ONES, _HIGH = np.uint64(0x0101010101010101), np.uint64(0x8080808080808080)
_QUOTES, _BACKSLASHES, _DELS, _SPACES = (np.uint64(b * 0x0101010101010101) for b in (34, 92, 127, 32))


@njit(inline="always")
def _ordinary_word(x):
    """Whether all eight bytes of ``x`` are ``_PLAIN`` (printable ASCII but quote and backslash)."""
    q, s, d = x ^ _QUOTES, x ^ _BACKSLASHES, x ^ _DELS
    special = ((q - _ONES) & ~q) | ((s - _ONES) & ~s) | ((d - _ONES) & ~d) | ((x - _SPACES) & ~x) | x
    return special & _HIGH == 0


@njit(inline="always")
def _string_end(data, i, hi, unescaped):
    """(index after the closing quote, decoded length, escaped) of the string whose content starts at ``i``;
    index -1 if it is not a plain string."""
    lo = i
    escapes = 0
    while i + 8 <= hi and _ordinary_word(load_word(data, i)):
        i += 8
    while i < hi:
        b = data[i]
        if _PLAIN[b]:  # (one test per byte for the common case)
            i += 1
            continue
        if b == _QUOTE:
            return i + 1, i - lo - escapes, escapes > 0
        if b != _BACKSLASH or i + 1 >= hi or unescaped[data[i + 1]] == 0:
            return -1, 0, False
        escapes += 1
        i += 2
    return -1, 0, False


@njit
def _time_like(data, lo, hi, time_byte):
    if lo == hi or not 48 <= data[lo] <= 57:
        return False
    for i in range(lo, hi):
        if not time_byte[data[i]]:
            return False
    return True


@njit
def any_untimely(data, kind, start, end):
    """Whether one of a column's strings (``kind``, ``start``, ``end``: the column of ``scan_records``' arrays) is
    not time-like, so that Arrow's inference, which reads a column of only time-like strings as timestamps,
    makes it a string column. (Asked per column after the scan, not per value in it: the answer is almost
    always the column's first string.)"""
    for r in range(len(kind)):
        if kind[r] == TEXT and not _time_like(data, start[r], end[r], _TIME_BYTE):
            return True
    return False


@njit
def _digits(data, i, hi):
    j = i
    while j < hi and 48 <= data[j] <= 57:
        j += 1
    return j


@njit
def _number_end(data, i, hi):
    """(end, is an integer of at most MAX_INT_DIGITS digits, its value) of a JSON number at ``i``; end -1 if none
    (an integer of more digits too: Arrow and Python may not agree on it)."""
    j = i + 1 if data[i] == _MINUS else i
    if j >= hi or not 48 <= data[j] <= 57:
        return -1, False, 0
    first = j
    j = _digits(data, j, hi)
    if data[first] == 48 and j - first > 1:  # a leading zero
        return -1, False, 0
    whole = True
    if j < hi and data[j] == _DOT:
        k = _digits(data, j + 1, hi)
        if k == j + 1:
            return -1, False, 0
        j, whole = k, False
    if j < hi and (data[j] | 0x20) == 101:  # e or E
        j += 1
        if j < hi and (data[j] == _PLUS or data[j] == _MINUS):
            j += 1
        k = _digits(data, j, hi)
        if k == j:
            return -1, False, 0
        j, whole = k, False
    if not whole:
        return j, False, 0
    if j - first > MAX_INT_DIGITS:
        return -1, False, 0
    value = 0
    for k in range(first, j):
        value = value * 10 + (data[k] - 48)
    return j, True, -value if data[i] == _MINUS else value


@njit
def _literal(data, i, hi, word):
    if i + len(word) > hi:
        return False
    for k in range(len(word)):
        if data[i + k] != word[k]:
            return False
    return True


@njit
def _key_is(data, lo, hi, names, name_offsets, k):
    """Whether ``data[lo:hi]`` is key ``k``'s bytes."""
    a, b = name_offsets[k], name_offsets[k + 1]
    if b - a != hi - lo:
        return False
    return same_bytes(data, lo, hi, names, a)


@njit(inline="always")
def _key_follows(data, lo, hi, names, name_offsets, k):
    """Whether key ``k`` and the quote that ends it start at ``data[lo]``: then the key string there is key ``k``,
    as ``_string_end`` and ``_key_index`` would find (a known key is printable ASCII, without quote or backslash),
    in one pass over its bytes."""
    end = lo + name_offsets[k + 1] - name_offsets[k]
    return end < hi and data[end] == _QUOTE and _key_is(data, lo, end, names, name_offsets, k)


@njit
def _key_index(data, lo, hi, names, name_offsets):
    """The index of the key ``data[lo:hi]`` (-1 if unknown)."""
    for k in range(len(name_offsets) - 1):
        if _key_is(data, lo, hi, names, name_offsets, k):
            return k
    return -1


@njit
def _segments(data, parts):
    """Up to ``parts`` (lo, hi, first line) pieces of ``data`` cut after newlines, for scanning in parallel."""
    hi = len(data)
    bounds = np.zeros(parts + 1, dtype=np.int64)
    for p in range(1, parts):
        i = max(bounds[p - 1], hi * p // parts)
        while 0 < i < hi and data[i - 1] != _NL:
            i += 1
        bounds[p] = i
    bounds[parts] = hi
    lines = np.zeros(parts + 1, dtype=np.int64)
    for p in prange(parts):
        piece = data[bounds[p] : bounds[p + 1]]
        n = 0
        for i in range(len(piece)):  # (indices from 0 into a slice: no negative index to wrap, so LLVM vectorizes
            n += piece[i] == _NL  # the count; over range(lo, hi) of data it does not, 10x slower)
        if bounds[p + 1] > bounds[p] and data[bounds[p + 1] - 1] != _NL:
            n += 1
        lines[p + 1] = n
    return bounds, np.cumsum(lines)


class Scratch:
    """``scan_records``' per-field arrays, kept from one chunk of a file to the next: each chunk's values are copied
    out into its table before the next chunk is scanned, and fresh arrays (25 MB for a 32 MB chunk of a run log)
    would be faulted in from the system again, which costs a third of the scan."""

    def __init__(self):
        self._flat: tuple = ()

    def arrays(self, n: int, nk: int) -> tuple:
        need = n * nk
        if not self._flat or self._flat[0].size < need:
            size = max(need, 2 * self._flat[0].size if self._flat else 0)
            self._flat = tuple(np.empty(size, dtype=t) for t in (np.int8, np.int64, np.int64, np.int64, np.bool_))
        return tuple(a[:need].reshape(n, nk) for a in self._flat)


def scan_records(data, names, name_offsets, parts=8, scratch: Scratch | None = None):
    """Kinds and spans of every known key's value on every line of ``data`` (uint8), in ``parts`` pieces at once.

    Parameters
    ----------
    names, name_offsets : the known keys' bytes back to back; key k is ``names[name_offsets[k]:name_offsets[k + 1]]``
        (printable ASCII without quote or backslash, as ``boundary.jsonl_records.KnownKeys`` keeps them)
    scratch : where the per-field arrays are made (views of it are returned, valid until its next use); fresh
        arrays without it

    Returns
    -------
    status : CLEAN, UNCLEAN or UNKNOWN_KEY (then ``where`` holds the first unknown key's byte span)
    kind : int8 (lines, keys), ABSENT ... TEXT
    start, end : int64 (lines, keys), the value's bytes (a string's without its quotes, still escaped)
    value : int64 (lines, keys), an INT's value or a string's decoded length
    escaped : bool (lines, keys), the string holds escapes
    (line-major: a line's fields lie together, so that the scan writes and the gather reads a few cache lines
    per line, not one page per key; all zero where a key is absent)
    first : int64 (keys,), the order in which the keys first appear (line * 65536 + place), -1 if never
    where : int64 (2,)
    line_start : int64 (lines + 1,), where each line begins (and the end of ``data``)
    """
    # (keys are compared a word at a time: each must be one run of bytes; a no-op for a file's buffer)
    data, names = np.ascontiguousarray(data), np.ascontiguousarray(names)
    bounds, line0 = _segments(data, parts)
    n, nk = int(line0[parts]), len(name_offsets) - 1
    kind, start, end, value, escaped = (scratch or Scratch()).arrays(n, nk)
    status, first, where, line_start = _scan_parts(
        data, names, name_offsets, bounds, line0, kind, start, end, value, escaped
    )
    return status, kind, start, end, value, escaped, first, where, line_start


@njit(parallel=True)
def _scan_parts(data, names, name_offsets, bounds, line0, kind, start, end, value, escaped):
    """``scan_records`` over the pieces ``bounds`` (lines from ``line0``) at once, into the given arrays."""
    parts = len(bounds) - 1
    n = line0[parts]
    nk = len(name_offsets) - 1
    line_start = np.zeros(n + 1, dtype=np.int64)
    line_start[n] = len(data)
    firsts = np.full((parts, nk), -1, dtype=np.int64)
    status = np.zeros(parts, dtype=np.int64)
    wheres = np.zeros((parts, 2), dtype=np.int64)
    for p in prange(parts):
        lo, hi = line0[p], line0[p + 1]  # (the arrays may hold an earlier chunk's values: zero this piece's rows)
        kind[lo:hi] = ABSENT
        start[lo:hi] = 0
        end[lo:hi] = 0
        value[lo:hi] = 0
        escaped[lo:hi] = False
        status[p] = _scan_lines(
            data,
            bounds[p],
            bounds[p + 1],
            lo,
            hi,
            names,
            name_offsets,
            kind,
            start,
            end,
            value,
            escaped,
            firsts[p],
            wheres[p],
            line_start,
        )
    first = np.full(nk, -1, dtype=np.int64)
    for p in range(parts):  # the first piece that fails decides (an unknown key there is learned first)
        if status[p] != CLEAN:
            return status[p], first, wheres[p], line_start
        for k in range(nk):
            if first[k] < 0:
                first[k] = firsts[p, k]
    return CLEAN, first, wheres[0], line_start


@njit
def _scan_lines(
    data, i, hi, line_lo, line_hi, names, name_offsets, kind, start, end, value, escaped, first, where, line_start
):
    """Scan the lines ``line_lo:line_hi`` of ``data[i:hi]`` into the arrays (see ``scan_records``); the status."""
    null, true, false = (
        np.frombuffer(b"null", np.uint8),
        np.frombuffer(b"true", np.uint8),
        np.frombuffer(b"false", np.uint8),
    )
    nk = len(name_offsets) - 1
    after = np.full(nk + 1, -1, dtype=np.int64)  # the key that last followed each key (nk: a line's start):
    # lines of one file mostly repeat one order of keys, so the guess, compared in place, saves the key's scan and
    # the search through the names
    for line in range(line_lo, line_hi):
        line_start[line] = i
        if i >= hi or data[i] != _OPEN:
            return UNCLEAN
        i = _spaces(data, i + 1, hi)
        place = 0
        prev = nk
        while True:
            if i >= hi or data[i] != _QUOTE:
                return UNCLEAN
            k = after[prev]
            if k >= 0 and _key_follows(data, i + 1, hi, names, name_offsets, k):
                key_end = i + 2 + name_offsets[k + 1] - name_offsets[k]
            else:
                key_end, _, key_escaped = _string_end(data, i + 1, hi, _UNESCAPED)
                if key_end < 0 or key_escaped:
                    return UNCLEAN
                k = _key_index(data, i + 1, key_end - 1, names, name_offsets)
            after[prev], prev = k, k
            if k < 0:
                where[0], where[1] = i + 1, key_end - 1
                return UNKNOWN_KEY
            if kind[line, k] != ABSENT:  # a duplicate key
                return UNCLEAN
            if first[k] < 0:
                first[k] = line * 65536 + place
            place += 1
            i = _spaces(data, key_end, hi)
            if i >= hi or data[i] != _COLON:
                return UNCLEAN
            i = _spaces(data, i + 1, hi)
            if i >= hi:
                return UNCLEAN
            b = data[i]
            if b == _QUOTE:
                j, length, esc = _string_end(data, i + 1, hi, _UNESCAPED)
                if j < 0:
                    return UNCLEAN
                start[line, k], end[line, k], value[line, k], escaped[line, k] = i + 1, j - 1, length, esc
                kind[line, k] = TEXT
            elif b == 110 and _literal(data, i, hi, null):
                kind[line, k], j = NULL, i + 4
            elif b == 116 and _literal(data, i, hi, true):
                kind[line, k], j = TRUE, i + 4
            elif b == 102 and _literal(data, i, hi, false):
                kind[line, k], j = FALSE, i + 5
            else:
                j, whole, v = _number_end(data, i, hi)
                if j < 0:
                    return UNCLEAN
                kind[line, k] = INT if whole else FLOAT
                start[line, k], end[line, k], value[line, k] = i, j, v
            i = _spaces(data, j, hi)
            if i < hi and data[i] == _COMMA:
                i = _spaces(data, i + 1, hi)
                continue
            if i < hi and data[i] == _CLOSE:
                break
            return UNCLEAN
        i = _spaces(data, i + 1, hi)
        if i < hi:
            if data[i] != _NL:
                return UNCLEAN
            i += 1
    return CLEAN


@njit
def block_cuts(data, block_size):
    """Where a reader of ``block_size`` bytes at a time that cuts each block after its last newline (and carries
    the rest into the next) cuts ``data``: pyarrow's JSON reader, whose blocks become the chunks of its columns.
    Empty when a line is longer than a block (pyarrow refuses such a buffer)."""
    hi = len(data)
    cuts = [0]
    lo = 0
    read_to = 0
    while lo < hi:
        before, read_to = read_to, min(read_to + block_size, hi)
        cut = hi
        if read_to > before:
            cut = read_to
            while cut > lo and data[cut - 1] != _NL:
                cut -= 1
            if cut == lo:  # a line longer than a block, which pyarrow refuses: no cuts
                return np.zeros(0, dtype=np.int64)
        cuts.append(cut)
        lo = cut
    return np.array(cuts, dtype=np.int64)


@njit(inline="always")
def _copy_bytes(out, at, data, lo, n):
    """``out[at:at + n] = data[lo:lo + n]`` a word at a time, the last word overlapping the one before (so that
    nothing past ``at + n`` is written: other threads write there)."""
    if n < 8:
        for i in range(n):
            out[at + i] = data[lo + i]
        return
    i = 0
    while i + 8 < n:
        store_word(out, at + i, load_word(data, lo + i))
        i += 8
    store_word(out, at + n - 8, load_word(data, lo + n - 8))


@njit(parallel=True)
def gather_strings(data, columns, valid, start, end, length, escaped):
    """The decoded strings ``data[start[r, k]:end[r, k]]`` of the keys ``columns`` (m,), of the rows where
    ``valid[r, c]``, each column's back to back, all in one pass over the lines (each line's bytes are read once).

    Returns
    -------
    offsets : int32 (m, n + 1), column c's string r is ``chars[base[c] + offsets[c, r]:base[c] + offsets[c, r + 1]]``
        (empty (0, 0) when a column would pass 2**31 - 1 bytes)
    chars : uint8, the strings
    base : int64 (m + 1,), where each column's strings begin in ``chars``
    """
    n, m = valid.shape
    offsets = np.zeros((m, n + 1), dtype=np.int32)  # (Arrow's own offsets: made once, no int64 copy to narrow)
    totals = np.zeros(m, dtype=np.int64)
    for c in prange(m):
        k = columns[c]
        at = 0
        for r in range(n):
            at += length[r, k] if valid[r, c] else 0
            if at >= 2**31:
                break
            offsets[c, r + 1] = at
        totals[c] = at
    base = np.zeros(m + 1, dtype=np.int64)
    for c in range(m):
        if totals[c] >= 2**31:
            return np.zeros((0, 0), dtype=np.int32), np.zeros(0, dtype=np.uint8), base
        base[c + 1] = base[c] + totals[c]
    out = np.empty(base[m], dtype=np.uint8)
    for r in prange(n):
        for c in range(m):
            if not valid[r, c]:
                continue
            k = columns[c]
            at = base[c] + offsets[c, r]
            lo, hi = start[r, k], end[r, k]
            if not escaped[r, k]:
                _copy_bytes(out, at, data, lo, hi - lo)
                continue
            i = lo
            while i < hi:
                b = data[i]
                if b == _BACKSLASH:
                    i += 1
                    b = _UNESCAPED[data[i]]
                out[at] = b
                at += 1
                i += 1
    return offsets, out, base
