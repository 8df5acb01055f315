"""The byte classes and normalization tags of the answer-parsing kernels, and the byte walks they share.

``byte_class`` (uint16 (256,)) gives each byte value its class bits, ``LETTER`` ... ``WRAP`` below; the
caller builds it from the reference parser's own patterns (``fastspe.scoring.parse_column``), so that the
kernels and the reference cannot drift apart. The tags say what a lenient parse normalized.
"""

from __future__ import annotations

from .._numba import njit

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
    1,
    2,
    4,
    8,
    16,
    32,
    64,
    128,
)
TAG_NAMES = ("case", "separators", "markup", "punctuation", "label", "inline", "fence", "words")


@njit
def lower(b):
    """ASCII lower case of byte ``b`` (other bytes unchanged)."""
    return b | 0x20 if 65 <= b <= 90 else b


@njit
def skip(data, i, hi, byte_class, bits):
    """The first index from ``i`` whose byte has none of ``bits`` (``hi`` if none)."""
    while i < hi and byte_class[data[i]] & bits:
        i += 1
    return i


@njit
def skip_until(data, i, hi, byte_class, bits):
    """The first index from ``i`` whose byte has one of ``bits`` (``hi`` if none)."""
    while i < hi and not byte_class[data[i]] & bits:
        i += 1
    return i


@njit
def skip_back(data, lo, hi, byte_class, bits):
    """``hi`` less the bytes with one of ``bits`` at the end of ``data[lo:hi]``."""
    while hi > lo and byte_class[data[hi - 1]] & bits:
        hi -= 1
    return hi


@njit
def trim(data, lo, hi, byte_class, cls):
    """``data[lo:hi]`` without the bytes of class ``cls`` at either end, as (lo, hi)."""
    lo = skip(data, lo, hi, byte_class, cls)
    return lo, skip_back(data, lo, hi, byte_class, cls)
