"""The move list after a label, as the reference parser reads it: cleaned, its normalization tags, its moves.

The reference's three readings, in its order: comma-separated tokens (exact; a token that is no move is
``INVALID_CODE``), ``u``/``d``/``l``/``r`` letters between separators, or token by token (letter runs,
direction words, other tokens; punctuation around tokens). Lists the kernels cannot prove (in brackets or
quotes, with a remark in parentheses, a ``->``/``=>`` separator, a non-ASCII byte) are left to the reference.
"""

from __future__ import annotations

import numpy as np

from .._numba import njit
from .parse_bytes import (
    END_PUNCT,
    LETTER_SEP,
    LIST_MARKUP,
    SPACE,
    STRIP,
    TAG_CASE,
    TAG_MARKUP,
    TAG_PUNCTUATION,
    TAG_SEPARATORS,
    TAG_WORDS,
    TOKEN,
    TOKEN_SEP,
    TOKEN_TRIM,
    WRAP,
    lower,
    skip,
    skip_back,
    skip_until,
    trim,
)
from ..domains.vocabulary import DIRECTIONS

INVALID_CODE = DIRECTIONS.invalid_code  # the parser reads U/D/L/R (codes 0..3); every other token is this

_COMMA = 44
# direction code of a letter in either case (the layout's U, D, L, R order), -1 for any other byte
_CODE = np.full(256, -1, dtype=np.int8)
for _c, _b in enumerate(b"UDLR"):
    _CODE[_b] = _CODE[_b | 0x20] = _c
_WORDS = np.frombuffer(b"updownleftright", dtype=np.uint8)  # the direction words, back to back
_WORD_OFFSETS = np.array([0, 2, 6, 10, 15], dtype=np.int64)


@njit
def _word_code(data, lo, hi):
    """Direction code of ``data[lo:hi]`` if it is up, down, left or right in any ASCII case, else -1."""
    for w in range(_WORD_OFFSETS.shape[0] - 1):
        start = _WORD_OFFSETS[w]
        if hi - lo == _WORD_OFFSETS[w + 1] - start:
            same = True
            for k in range(hi - lo):
                if lower(data[lo + k]) != _WORDS[start + k]:
                    same = False
                    break
            if same:
                return w
    return -1


@njit
def _is_udlr_run(data, lo, hi):
    """Whether every byte of ``data[lo:hi]`` is u, d, l or r in either case."""
    for k in range(lo, hi):
        if _CODE[data[k]] < 0:
            return False
    return True


@njit
def _is_upper(b):
    return 65 <= b <= 90


@njit
def _token_code(data, lo, hi):
    """Code of an alphanumeric token as the reference reads it without normalizing; -1 if it would normalize."""
    if hi - lo == 1 and _is_upper(data[lo]) and _CODE[data[lo]] >= 0:
        return _CODE[data[lo]]
    # a run of u/d/l/r letters splits into moves and a word is read as one: both normalize
    if _is_udlr_run(data, lo, hi) or _word_code(data, lo, hi) >= 0:
        return -1
    return INVALID_CODE


@njit
def _is_token_list(data, lo, hi, byte_class):
    """Whether ``data[lo:hi]`` is ``token ([ \\t]*,[ \\t]* token)*`` with no token that would normalize."""
    i = lo
    while True:
        start = i
        i = skip(data, i, hi, byte_class, TOKEN)
        if i == start or _token_code(data, start, i) < 0:
            return False
        if i == hi:
            return True
        i = skip(data, i, hi, byte_class, SPACE)
        if i == hi or data[i] != _COMMA:
            return False
        i = skip(data, i + 1, hi, byte_class, SPACE)


@njit
def _is_comma_letters(data, lo, hi, byte_class):
    """Whether ``data[lo:hi]`` is ``[UDLR]([ \\t]*,[ \\t]*[UDLR])*`` once upper-cased."""
    i = lo
    while True:
        if i == hi or _CODE[data[i]] < 0:
            return False
        i += 1
        if i == hi:
            return True
        i = skip(data, i, hi, byte_class, SPACE)
        if i == hi or data[i] != _COMMA:
            return False
        i = skip(data, i + 1, hi, byte_class, SPACE)


@njit
def _letters_tags(data, lo, hi, byte_class):
    """Tags of a list of u/d/l/r letters between ``LETTER_SEP`` bytes; -1 if it is not one."""
    tags = 0
    for i in range(lo, hi):
        b = data[i]
        if _CODE[b] < 0 and not byte_class[b] & LETTER_SEP:
            return -1
        if _CODE[b] >= 0 and not _is_upper(b):
            tags |= TAG_CASE
    if not _is_comma_letters(data, lo, hi, byte_class):
        tags |= TAG_SEPARATORS
    return tags


@njit
def _token_tags(data, lo, hi, byte_class):
    """Tags of reading one token of the general path (the reference's loop over ``_TOKEN``)."""
    start, end = trim(data, lo, hi, byte_class, TOKEN_TRIM)
    tags = TAG_PUNCTUATION if start != lo or end != hi else 0
    if start == end:
        return tags
    if _is_udlr_run(data, start, end):
        for k in range(start, end):
            if not _is_upper(data[k]):
                tags |= TAG_CASE
        if end - start > 1:
            tags |= TAG_SEPARATORS
    elif _word_code(data, start, end) >= 0:
        tags |= TAG_WORDS
    return tags


@njit
def _is_comma(data, lo, hi, byte_class):
    """Whether ``data[lo:hi]`` is a comma with only spaces and tabs around it."""
    lo = skip(data, lo, hi, byte_class, SPACE)
    hi = skip_back(data, lo, hi, byte_class, SPACE)
    return hi - lo == 1 and data[lo] == _COMMA


@njit
def _general_tags(data, lo, hi, byte_class):
    """Tags of the reference's general token path on an ASCII list; -1 for a remark in
    parentheses or a ``->``/``=>`` separator (left to the reference)."""
    for i in range(lo, hi):
        if data[i] == 40 or (data[i] == 62 and i > lo and (data[i - 1] == 45 or data[i - 1] == 61)):  # ( -> =>
            return -1
    tags = 0
    i = lo
    tokens = 0
    while i < hi:
        start = i
        i = skip(data, i, hi, byte_class, TOKEN_SEP)
        if i == hi:  # what follows the last token does not count
            break
        if tokens > 0 and not _is_comma(data, start, i, byte_class):  # nor what precedes the first
            tags |= TAG_SEPARATORS
        end = skip_until(data, i, hi, byte_class, TOKEN_SEP)
        tags |= _token_tags(data, i, end, byte_class)
        tokens += 1
        i = end
    return tags


@njit
def list_tags(data, lo, hi, byte_class):
    """Tags of reading the cleaned, non-empty list ``data[lo:hi]``; -1 if it is left to the reference.

    The reference's three readings in its order: exact (or comma-separated tokens), letters only,
    then token by token.
    """
    if _is_token_list(data, lo, hi, byte_class):
        return 0
    tags = _letters_tags(data, lo, hi, byte_class)
    return tags if tags >= 0 else _general_tags(data, lo, hi, byte_class)


@njit
def list_moves(data, lo, hi, byte_class, out, at, write):
    """Moves of a list that ``list_tags`` read; their number, written to ``out[at:]`` if ``write``.

    Token by token, as the reference's general path: a run of u/d/l/r letters is one move per
    letter, a direction word one move, any other token one ``INVALID_CODE``; exact and
    letters-only lists read the same this way.
    """
    count = 0
    i = lo
    while i < hi:
        i = skip(data, i, hi, byte_class, TOKEN_SEP)
        if i == hi:
            break
        end = skip_until(data, i, hi, byte_class, TOKEN_SEP)
        start, stop = trim(data, i, end, byte_class, TOKEN_TRIM)
        i = end
        if start == stop:
            continue
        if _is_udlr_run(data, start, stop):
            if write:
                for k in range(start, stop):
                    out[at + count + k - start] = _CODE[data[k]]
            count += stop - start
            continue
        if write:
            word = _word_code(data, start, stop)
            out[at + count] = word if word >= 0 else INVALID_CODE
        count += 1
    return count


@njit
def comma_letters(data, lo, hi, out, at, write):
    """Moves of ``data[lo:hi]`` if it is exactly ``[UDLR](,[UDLR])*`` (capitals, no spaces: the shape most
    answers have), written to ``out[at:]`` if ``write``; -1 if it is not that shape (nothing is written).

    One pass for what ``list_tags`` (exact, tags 0) and ``list_moves`` (one move per letter) read of such a list.
    """
    n = hi - lo
    if n % 2 == 0:
        return -1
    for k in range(0, n, 2):  # a capital move letter, then (but after the last) a comma
        if not _is_upper(data[lo + k]) or _CODE[data[lo + k]] < 0 or (k + 1 < n and data[lo + k + 1] != _COMMA):
            return -1
    if write:
        for k in range(0, n, 2):
            out[at + k // 2] = _CODE[data[lo + k]]
    return (n + 1) // 2


@njit
def _wrapped(data, lo, hi, byte_class):
    """Whether the non-empty ``data[lo:hi]`` starts or ends with a bracket or quote."""
    return lo < hi and (byte_class[data[lo]] & WRAP or byte_class[data[hi - 1]] & WRAP) != 0


@njit
def clean_list(data, lo, hi, byte_class):
    """The reference's ``_clean_body`` on the rest of the label's line, ``data[lo:hi]``.

    Returns (lo, hi, tags, goes_on): the cleaned list, the tags of cleaning it, and whether the
    reference then looks for more moves on the next lines (an empty list or a trailing comma).
    lo is -1 when the line is left to the reference: a non-ASCII byte (unicode whitespace, quotes),
    or a list in brackets or quotes, or ending in ")" (maybe a remark), where it strips them.
    """
    for i in range(lo, hi):
        if data[i] >= 128:
            return -1, 0, 0, False
    lo, hi = trim(data, lo, hi, byte_class, STRIP)
    trailing_comma = lo < hi and data[hi - 1] == _COMMA
    tags = 0
    while lo < hi:
        before_lo, before_hi = lo, hi
        # neither markup nor punctuation is a bracket or quote: one exposed is seen here next time
        if _wrapped(data, lo, hi, byte_class):
            return -1, 0, 0, False
        if byte_class[data[lo]] & LIST_MARKUP or byte_class[data[hi - 1]] & LIST_MARKUP:
            lo = skip(data, lo, hi, byte_class, LIST_MARKUP)
            lo, hi = trim(data, lo, skip_back(data, lo, hi, byte_class, LIST_MARKUP), byte_class, STRIP)
            tags |= TAG_MARKUP
        if lo < hi and byte_class[data[hi - 1]] & END_PUNCT:
            lo, hi = trim(data, lo, skip_back(data, lo, hi, byte_class, END_PUNCT), byte_class, STRIP)
            tags |= TAG_PUNCTUATION
        if lo == before_lo and hi == before_hi:
            break
    return lo, hi, tags, lo == hi or trailing_comma
