"""The answer format, read again from the rules alone for the independent verdict verifier.

Its own reading of the Appendix B format and of the documented lenient normalizations; it shares no code
with ``fastspe.scoring.parse_reference`` or ``fastspe.scoring.parse_column``. ``parse_plan`` gives the
moves (``?`` for a token that is not a move), the parse mode, the normalization tags and whether more than
one label was found.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["Plan", "parse_plan"]

LEAD = " \t>#*_`-"  # markup allowed before a label at the start of its line
MARKUP, WRAP, ENDS = "*_`~", "[](){}<>\"'“”‘’", ".!;,"
WORDS = {"up": "U", "down": "D", "left": "L", "right": "R"}
ARROWS = dict(zip("↑↓←→⬆⬇⬅➡", "UDLRUDLR"))
LETTERS, SEPARATORS = set("UDLRudlr"), set(" \t,;/|")
BARE = set("udlrpowneftighUDLRPOWNEFTIGH↑↓←→⬆⬇⬅➡\ufe0f,;/|`*_~[](){}<>\"'“”‘’.!:=⟶⇒-")
_CAPITAL = re.compile(r"(?<![A-Za-z])MOVES([*_`]{0,3})[ \t]*:")
_ANY_CASE = re.compile(r"(moves?)([*_`]{0,3})[ \t]*:", re.IGNORECASE | re.ASCII)
_EXACT_LIST = re.compile(r"[UDLR]([ \t]*,[ \t]*[UDLR])*")
_PIECES = re.compile(r"([^\s,;/|]+)")  # tokens, with the separator runs between them
_GLOSS = re.compile(r"\([^()]*\)")


class Plan(NamedTuple):
    moves: str
    mode: str
    normalization: str
    multiple: bool


def _is_fence(line: str) -> bool:
    return line.lstrip(" \t").startswith(("```", "~~~"))


def _trailing_remark(s: str) -> int:
    """Where a closing ``(...)`` remark (with the separators before it) starts in ``s``, or -1."""
    if not s.endswith(")"):
        return -1
    open_at = s.rfind("(")
    if open_at < 0 or ")" in s[open_at + 1:-1]:
        return -1
    while open_at and (s[open_at - 1].isspace() or s[open_at - 1] in ",;"):
        open_at -= 1
    return open_at


def _strip_list(body: str, tags: set) -> str:
    """A list body without surrounding space, markup, brackets, quotes, end punctuation or closing remark."""
    s = body.strip()
    while s:
        was = s
        cut = _trailing_remark(s)
        if cut > 0:
            s = s[:cut].rstrip()
            tags.add("comment")
        if s[0] in MARKUP or s[-1] in MARKUP:
            s = s.strip(MARKUP).strip()
            tags.add("markup")
        if s and (s[0] in WRAP or s[-1] in WRAP):
            s = s.strip(WRAP).strip()
            tags.add("brackets")
        if s and s[-1] in ENDS:
            s = s.rstrip(ENDS).strip()
            tags.add("punctuation")
        if s == was:
            return s
    return s


def _token_moves(token: str, tags: set) -> str:
    """The moves one token stands for (``?`` if none); ``""`` for a token of punctuation only."""
    t = token.strip(MARKUP + WRAP + ".!:")
    if t != token:
        tags.add("punctuation")
    if not t:
        return ""
    if set(t) <= LETTERS:
        if not t.isupper():
            tags.add("case")
        if len(t) > 1:
            tags.add("separators")
        return t.upper()
    if t.lower() in WORDS:
        tags.add("words")
        return WORDS[t.lower()]
    arrows = t.replace("\ufe0f", "")
    if arrows and all(ch in ARROWS for ch in arrows):
        tags.add("arrows")
        return "".join(ARROWS[ch] for ch in arrows)
    return "?"


def _list_moves(s: str, tags: set) -> str:
    """Moves of a stripped, non-empty list."""
    if _EXACT_LIST.fullmatch(s):
        return "".join(ch for ch in s if ch in "UDLR")
    if set(s) <= LETTERS | SEPARATORS:  # letters however spaced: no token-by-token reading needed
        if s.upper() != s:
            tags.add("case")
        if not _EXACT_LIST.fullmatch(s.upper()):
            tags.add("separators")
        return "".join(ch for ch in s.upper() if ch in "UDLR")
    if "(" in s and _GLOSS.search(s):
        s = _GLOSS.sub(" ", s)
        tags.add("comment")
    for arrow in ("->", "=>", "⟶", "⇒"):  # only ever separators
        if arrow in s:
            s = s.replace(arrow, " ")
            tags.add("separators")
    if "→" in s and any(ch.isascii() and ch.isalpha() for ch in s):  # beside letters or words: a separator
        s = s.replace("→", " ")
        tags.add("separators")
    pieces = _PIECES.split(s)
    if any(sep.strip(" \t") != "," for sep in pieces[2:-1:2]):
        tags.add("separators")
    return "".join(_token_moves(tok, tags) for tok in pieces[1::2])


def _only_moves(line: str) -> str | None:
    """The moves of a line that holds a move list and nothing else, else None."""
    s = _strip_list(line, set())
    moves = _list_moves(s, set()) if s else ""
    return moves if moves and "?" not in moves else None


class _Label(NamedTuple):
    start: int
    end: int
    tags: frozenset


def _labels(text: str) -> list[_Label]:
    """Every label: capital ``MOVES:`` anywhere in a line, any-case ``move(s):`` only after leading markup."""
    found: dict[int, _Label] = {}
    line_start = 0
    for line in text.split("\n"):
        lead = len(line) - len(line.lstrip(LEAD))
        for m in _CAPITAL.finditer(line):
            before = line[:m.start()]
            at_start = m.start() <= lead
            tags = {"markup"} if m.group(1) or (at_start and before.strip()) else set()
            if not at_start:
                tags.add("inline")
            found[line_start + m.start()] = _Label(line_start + m.start(), line_start + m.end(), frozenset(tags))
        m = _ANY_CASE.match(line, lead)
        if m and line_start + lead not in found:
            word = m.group(1)
            tags = {"label"} if len(word) == 4 else ({"case"} if word != "MOVES" else set())
            if m.group(2) or line[:lead].strip():
                tags.add("markup")
            found[line_start + lead] = _Label(line_start + lead, line_start + m.end(), frozenset(tags))
        line_start += len(line) + 1
    return [found[i] for i in sorted(found)]


def _after_label(text: str, label: _Label, tags: set) -> str:
    tags |= label.tags
    if sum(map(_is_fence, text[:label.start].split("\n"))) % 2:
        tags.add("fence")
    line_end = text.find("\n", label.end)
    line_end = len(text) if line_end < 0 else line_end
    body = text[label.end:line_end]
    s = _strip_list(body, tags)
    moves = _list_moves(s, tags) if s else ""
    if s and not body.rstrip().endswith(","):
        return moves
    # a bare label's list starts on a later line; a trailing comma carries the list on
    for line in text[line_end + 1:].split("\n"):
        if not line.strip() or _is_fence(line):
            continue
        more = _only_moves(line)
        if more is None:
            break
        tags.add("multiline")
        moves += more
        if not line.rstrip().endswith(","):
            break
    return moves


def parse_plan(text: str, strict: bool = False) -> Plan:
    """One answer's plan: moves (``?`` for a token that is not a move), mode, normalization tags, label repeats."""
    if not isinstance(text, str):
        return Plan("", "no_plan", "", False)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    tags: set = set()
    labels = _labels(text)
    if labels:
        moves, multiple = _after_label(text, labels[-1], tags), len(labels) > 1
    else:  # no label: a plan only if the whole answer, fences aside, is a list of moves
        lines = text.split("\n")
        body = "\n".join("" if _is_fence(line) else line for line in lines)
        if not set(body) <= BARE | {ch for ch in body if ch.isspace()}:
            return Plan("", "no_plan", "", False)
        if body != text:
            tags.add("fence")
        s = _strip_list(body, tags)
        moves = _list_moves(s, tags) if s else ""
        if not moves or "?" in moves:
            return Plan("", "no_plan", "", False)
        tags.add("label")
        multiple = False
    if not tags:
        return Plan(moves, "exact", "", multiple)
    norm = "+".join(sorted(tags))
    return Plan("", "no_plan", norm, multiple) if strict else Plan(moves, "normalized", norm, multiple)
