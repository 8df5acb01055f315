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
``WRAP`` constants below.
"""

from __future__ import annotations

import numpy as np

from .._numba import njit, prange
from .replay import INVALID_CODE

PLAN, NO_PLAN, UNDECIDED = 0, 2, -1

LETTER = 1  # an ASCII letter: a capital MOVES: right after one is not a label
LEAD = 2  # may stand before a lower-case label on its line (spaces, tabs, > # * _ ` -)
SPACE = 4  # space or tab
STRIP = 8  # ASCII whitespace that str.strip removes
BARE_BAD = 16  # an ASCII character that no bare move list holds
LABEL_MARKUP = 32  # may follow the label word before its colon (* _ `)
TOKEN = 64  # ASCII letter or digit: a token of a comma-separated list
M_LETTER = 128  # m or M: a label may start here
LINE_BREAK = 256  # \n or \r
LIST_MARKUP = 512  # markup stripped from the ends of a list (* _ ` ~)
END_PUNCT = 1024  # trailing punctuation stripped from a list (. ! ; ,)
LETTER_SEP = 2048  # may separate u/d/l/r letters (space, tab, , ; / |)
TOKEN_SEP = 4096  # separates the tokens of a list (whitespace , ; / |)
TOKEN_TRIM = 8192  # stripped from the ends of a token (markup, brackets, quotes, . ! :)
WRAP = 16384  # an ASCII bracket or quote: stripped from the ends of a list by the reference

# normalization tags, one bit each; TAG_NAMES[k] is the reference's name of bit 1 << k
TAG_CASE, TAG_SEPARATORS, TAG_MARKUP, TAG_PUNCTUATION, TAG_LABEL, TAG_INLINE, TAG_FENCE, TAG_WORDS = (
    1, 2, 4, 8, 16, 32, 64, 128)
TAG_NAMES = ("case", "separators", "markup", "punctuation", "label", "inline", "fence", "words")

_NL, _CR, _COMMA, _COLON = 10, 13, 44, 58
_BACKTICK, _TILDE = 96, 126
_MOVE = np.frombuffer(b"move", dtype=np.uint8)
_MOVES_CAPS = np.frombuffer(b"MOVES", dtype=np.uint8)
# direction code of a letter in either case (the layout's U, D, L, R order), -1 for any other byte
_CODE = np.full(256, -1, dtype=np.int8)
for _c, _b in enumerate(b"UDLR"):
    _CODE[_b] = _CODE[_b | 0x20] = _c
_WORDS = np.frombuffer(b"updownleftright", dtype=np.uint8)  # the direction words, back to back
_WORD_OFFSETS = np.array([0, 2, 6, 10, 15], dtype=np.int64)


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
def _word_code(data, lo, hi):
    """Direction code of ``data[lo:hi]`` if it is up, down, left or right in any ASCII case, else -1."""
    for w in range(_WORD_OFFSETS.shape[0] - 1):
        start = _WORD_OFFSETS[w]
        if hi - lo == _WORD_OFFSETS[w + 1] - start:
            same = True
            for k in range(hi - lo):
                if _lower(data[lo + k]) != _WORDS[start + k]:
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
def _skip(data, i, hi, byte_class, bits):
    """The first index from ``i`` whose byte has none of ``bits`` (``hi`` if none)."""
    while i < hi and byte_class[data[i]] & bits:
        i += 1
    return i


@njit
def _skip_until(data, i, hi, byte_class, bits):
    """The first index from ``i`` whose byte has one of ``bits`` (``hi`` if none)."""
    while i < hi and not byte_class[data[i]] & bits:
        i += 1
    return i


@njit
def _skip_back(data, lo, hi, byte_class, bits):
    """``hi`` less the bytes with one of ``bits`` at the end of ``data[lo:hi]``."""
    while hi > lo and byte_class[data[hi - 1]] & bits:
        hi -= 1
    return hi


@njit
def _is_token_list(data, lo, hi, byte_class):
    """Whether ``data[lo:hi]`` is ``token ([ \\t]*,[ \\t]* token)*`` with no token that would normalize."""
    i = lo
    while True:
        start = i
        i = _skip(data, i, hi, byte_class, TOKEN)
        if i == start or _token_code(data, start, i) < 0:
            return False
        if i == hi:
            return True
        i = _skip(data, i, hi, byte_class, SPACE)
        if i == hi or data[i] != _COMMA:
            return False
        i = _skip(data, i + 1, hi, byte_class, SPACE)


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
        i = _skip(data, i, hi, byte_class, SPACE)
        if i == hi or data[i] != _COMMA:
            return False
        i = _skip(data, i + 1, hi, byte_class, SPACE)


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
def _trim(data, lo, hi, byte_class, cls):
    """``data[lo:hi]`` without the bytes of class ``cls`` at either end, as (lo, hi)."""
    lo = _skip(data, lo, hi, byte_class, cls)
    return lo, _skip_back(data, lo, hi, byte_class, cls)


@njit
def _token_tags(data, lo, hi, byte_class):
    """Tags of reading one token of the general path (the reference's loop over ``_TOKEN``)."""
    start, end = _trim(data, lo, hi, byte_class, TOKEN_TRIM)
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
    lo = _skip(data, lo, hi, byte_class, SPACE)
    hi = _skip_back(data, lo, hi, byte_class, SPACE)
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
        i = _skip(data, i, hi, byte_class, TOKEN_SEP)
        if i == hi:  # what follows the last token does not count
            break
        if tokens > 0 and not _is_comma(data, start, i, byte_class):  # nor what precedes the first
            tags |= TAG_SEPARATORS
        end = _skip_until(data, i, hi, byte_class, TOKEN_SEP)
        tags |= _token_tags(data, i, end, byte_class)
        tokens += 1
        i = end
    return tags


@njit
def _list_tags(data, lo, hi, byte_class):
    """Tags of reading the cleaned, non-empty list ``data[lo:hi]``; -1 if it is left to the reference.

    The reference's three readings in its order: exact (or comma-separated tokens), letters only,
    then token by token.
    """
    if _is_token_list(data, lo, hi, byte_class):
        return 0
    tags = _letters_tags(data, lo, hi, byte_class)
    return tags if tags >= 0 else _general_tags(data, lo, hi, byte_class)


@njit
def _list_moves(data, lo, hi, byte_class, out, at, write):
    """Moves of a list that ``_list_tags`` read; their number, written to ``out[at:]`` if ``write``.

    Token by token, as the reference's general path: a run of u/d/l/r letters is one move per
    letter, a direction word one move, any other token one ``INVALID_CODE``; exact and
    letters-only lists read the same this way.
    """
    count = 0
    i = lo
    while i < hi:
        i = _skip(data, i, hi, byte_class, TOKEN_SEP)
        if i == hi:
            break
        end = _skip_until(data, i, hi, byte_class, TOKEN_SEP)
        start, stop = _trim(data, i, end, byte_class, TOKEN_TRIM)
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
def _wrapped(data, lo, hi, byte_class):
    """Whether the non-empty ``data[lo:hi]`` starts or ends with a bracket or quote."""
    return lo < hi and (byte_class[data[lo]] & WRAP or byte_class[data[hi - 1]] & WRAP) != 0


@njit
def _clean_list(data, lo, hi, byte_class):
    """The reference's ``_clean_body`` on the rest of the label's line, ``data[lo:hi]``.

    Returns (lo, hi, tags, goes_on): the cleaned list, the tags of cleaning it, and whether the
    reference then looks for more moves on the next lines (an empty list or a trailing comma).
    lo is -1 when the line is left to the reference: a non-ASCII byte (unicode whitespace, quotes),
    or a list in brackets or quotes, or ending in ")" (maybe a remark), where it strips them.
    """
    for i in range(lo, hi):
        if data[i] >= 128:
            return -1, 0, 0, False
    lo, hi = _trim(data, lo, hi, byte_class, STRIP)
    trailing_comma = lo < hi and data[hi - 1] == _COMMA
    tags = 0
    while lo < hi:
        before_lo, before_hi = lo, hi
        # neither markup nor punctuation is a bracket or quote: one exposed is seen here next time
        if _wrapped(data, lo, hi, byte_class):
            return -1, 0, 0, False
        if byte_class[data[lo]] & LIST_MARKUP or byte_class[data[hi - 1]] & LIST_MARKUP:
            lo = _skip(data, lo, hi, byte_class, LIST_MARKUP)
            lo, hi = _trim(data, lo, _skip_back(data, lo, hi, byte_class, LIST_MARKUP), byte_class, STRIP)
            tags |= TAG_MARKUP
        if lo < hi and byte_class[data[hi - 1]] & END_PUNCT:
            lo, hi = _trim(data, lo, _skip_back(data, lo, hi, byte_class, END_PUNCT), byte_class, STRIP)
            tags |= TAG_PUNCTUATION
        if lo == before_lo and hi == before_hi:
            break
    return lo, hi, tags, lo == hi or trailing_comma


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
        tags |= TAG_CASE if _lower(data[i + 4]) == 115 else TAG_LABEL  # "moves" in other case, or "move"
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
            i = _skip_until(data, i, hi, byte_class, stop)
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
    start, end, list_tags, goes_on = _clean_list(data, last_end, line_end, byte_class)
    if start < 0:
        return UNDECIDED, 0, 0, 0, multiple, 0
    if goes_on and not _all_strip(data, line_end, hi, byte_class):  # the next lines may hold moves
        return UNDECIDED, 0, 0, 0, multiple, 0
    tags = last_tags | list_tags | (TAG_FENCE if fences_before_last % 2 else 0)
    if start == end:
        return PLAN, 0, start, end, multiple, tags
    reading = _list_tags(data, start, end, byte_class)
    if reading < 0:
        return UNDECIDED, 0, 0, 0, multiple, 0
    count = _list_moves(data, start, end, byte_class, no_output, 0, False)
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
            codes[at:at + other_offsets[k + 1] - lo] = other_codes[lo:other_offsets[k + 1]]
        elif list_end[a] > list_start[a]:
            _list_moves(data, list_start[a], list_end[a], byte_class, codes, at, True)
    return codes
