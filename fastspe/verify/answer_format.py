"""The answer format, read again from the rules alone for the independent verdict verifier.

Its own reading of the Appendix B format and of the documented lenient normalizations (the module docstring of
``fastspe.scoring.parse_reference`` states them); it shares no code with ``fastspe.scoring.parse_reference`` or
``fastspe.scoring.parse_column``, only the rules' data: the domain's ``Vocabulary`` (``fastspe.domains.vocabulary``),
whose tokens are the actions. ``parse_plan(text, strict, vocabulary)`` gives the stored plan (one symbol of the
vocabulary per action, ``?`` for a token that is not an action), the parse mode, the normalization tags and whether
more than one label was found.

In short: the last label (``MOVES:`` anywhere, any-case ``move(s):`` after leading markup) counts; its list is exact
when it is tokens between commas that need no normalizing: the vocabulary's tokens as spelt, and tokens that are no
action (kept as ``?``). A token is what lies between separators (whitespace,
``, ; / |``), so without ``runs`` ``ABCB`` is one token, not two actions; with ``runs`` (one-letter tokens) a run of
token letters is one action per letter. Tokens in another case, words, glyphs, other separators, markup, brackets,
end punctuation, remarks in parentheses, fences, inline and multi-line lists and a bare list with no label are read
too, each naming its tag.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from ..domains.vocabulary import DIRECTIONS, Vocabulary
from ..errors import UserTypeError

__all__ = ["Plan", "parse_plan"]

LEAD = " \t>#*_`-"  # markup allowed before a label at the start of its line
MARKUP, WRAP, ENDS = "*_`~", "[](){}<>\"'“”‘’", ".!;,"
SEPARATORS = set(" \t,;/|")  # between the tokens of a list of bare tokens
ARROW_SEPARATORS = ("->", "=>", "⟶", "⇒")  # never an action, whatever the vocabulary
# a bare answer's characters besides whitespace and the vocabulary's own (its tokens' and words' letters in either
# case, its glyphs): separators, markup, brackets, punctuation, the arrows that separate
FORMAT = set("\ufe0f,;/|`*_~[](){}<>\"'“”‘’.!:=⟶⇒-→")
_CAPITAL = re.compile(r"(?<![A-Za-z])MOVES([*_`]{0,3})[ \t]*:")
_ANY_CASE = re.compile(r"(moves?)([*_`]{0,3})[ \t]*:", re.IGNORECASE | re.ASCII)
_PIECES = re.compile(r"([^\s,;/|]+)")  # tokens, with the separator runs between them
_GLOSS = re.compile(r"\([^()]*\)")
_TO_SPACE = {ord(ch): " " for ch in SEPARATORS}


class _Rules(NamedTuple):
    """One vocabulary as the readings below need it."""

    spelt: dict  # a token as the vocabulary spells it -> its symbol
    folded: dict  # a token in lower case -> its symbol
    runs: bool  # a run of token letters is one action per letter
    letters: frozenset  # the characters of the tokens, in either case
    words: dict  # word -> symbol
    glyphs: dict  # glyph -> symbol
    separators: tuple  # arrows read as separators wherever they stand
    arrow_is_glyph: bool  # "→" is an action, except beside letters
    bare: frozenset  # the characters a bare answer may hold (besides whitespace)


@lru_cache(maxsize=None)
def _rules(vocabulary: Vocabulary) -> _Rules:
    spelt = dict(zip(vocabulary.tokens, vocabulary.symbols))
    letters = frozenset("".join(vocabulary.tokens).lower() + "".join(vocabulary.tokens).upper())
    words = {w: spelt[t] for w, t in vocabulary.words.items()}
    arrow_is_glyph = "→" in vocabulary.glyphs
    return _Rules(
        spelt,
        {t.lower(): sym for t, sym in spelt.items()},
        vocabulary.runs,
        letters,
        words,
        {g: spelt[t] for g, t in vocabulary.glyphs.items()},
        ARROW_SEPARATORS if arrow_is_glyph else ARROW_SEPARATORS + ("→",),
        arrow_is_glyph,
        frozenset(letters | set("".join(words).lower() + "".join(words).upper()) | set(vocabulary.glyphs) | FORMAT),
    )


class Plan(NamedTuple):
    """One answer's plan: ``moves`` holds a symbol of the vocabulary per action, ``?`` for a token that is none."""

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
    if open_at < 0 or ")" in s[open_at + 1 : -1]:
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


def _comma_list(s: str, table: dict, fold: bool) -> str | None:
    """The symbols of ``s`` when it is tokens of ``table`` between commas (spaces or tabs around a comma; ``s`` has
    no space at either end), else None; ``fold``: tokens in any case (``table`` then has lower-case keys)."""
    out = []
    for item in s.split(","):
        item = item.strip(" \t")
        if fold:
            item = item.lower() if item.isascii() else ""
        if item not in table:
            return None
        out.append(table[item])
    return "".join(out)


def _token_moves(token: str, tags: set, rules: _Rules) -> str:
    """The moves one token stands for (``?`` if none); ``""`` for a token of punctuation only."""
    t = token.strip(MARKUP + WRAP + ".!:")
    if t != token:
        tags.add("punctuation")
    if not t:
        return ""
    if t.isascii():  # a token or word in another case is ASCII too (the Kelvin sign is no k)
        if rules.runs and set(t) <= rules.letters:
            if any(ch not in rules.spelt for ch in t):
                tags.add("case")
            if len(t) > 1:
                tags.add("separators")
            return "".join(rules.folded[ch.lower()] for ch in t)
        if t.lower() in rules.folded:
            if t not in rules.spelt:
                tags.add("case")
            return rules.folded[t.lower()]
        if t.lower() in rules.words:
            tags.add("words")
            return rules.words[t.lower()]
    arrows = t.replace("\ufe0f", "")
    if arrows and all(ch in rules.glyphs for ch in arrows):
        tags.add("arrows")
        return "".join(rules.glyphs[ch] for ch in arrows)
    return "?"


def _bare_tokens(s: str, rules: _Rules) -> list[str] | None:
    """The pieces of ``s`` between ``SEPARATORS`` when each is a token in any case (with runs: token letters), else
    None: such a list needs no token-by-token reading."""
    if rules.runs:
        return [ch for ch in s if ch not in SEPARATORS] if set(s) <= rules.letters | SEPARATORS else None
    pieces = [p for p in s.translate(_TO_SPACE).split(" ") if p]
    return pieces if all(p.isascii() and p.lower() in rules.folded for p in pieces) else None


def _list_moves(s: str, tags: set, rules: _Rules) -> str:
    """Moves of a stripped, non-empty list."""
    exact = _comma_list(s, rules.spelt, False)
    if exact is not None:
        return exact
    bare = _bare_tokens(s, rules)
    if bare is not None:  # tokens however spaced
        if any(p not in rules.spelt for p in bare):
            tags.add("case")
        if _comma_list(s, rules.folded, True) is None:
            tags.add("separators")
        return "".join(rules.folded[p.lower()] for p in bare)
    if "(" in s and _GLOSS.search(s):
        s = _GLOSS.sub(" ", s)
        tags.add("comment")
    for arrow in rules.separators:
        if arrow in s:
            s = s.replace(arrow, " ")
            tags.add("separators")
    if rules.arrow_is_glyph and "→" in s and any(ch.isascii() and ch.isalpha() or ch in rules.letters for ch in s):
        s = s.replace("→", " ")  # beside letters or words: a separator
        tags.add("separators")
    pieces = _PIECES.split(s)
    if any(sep.strip(" \t") != "," for sep in pieces[2:-1:2]):
        tags.add("separators")
    return "".join(_token_moves(tok, tags, rules) for tok in pieces[1::2])


def _only_moves(line: str, rules: _Rules) -> str | None:
    """The moves of a line that holds an action list and nothing else, else None."""
    s = _strip_list(line, set())
    moves = _list_moves(s, set(), rules) if s else ""
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
            before = line[: m.start()]
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


def _after_label(text: str, label: _Label, tags: set, rules: _Rules) -> str:
    tags |= label.tags
    if sum(map(_is_fence, text[: label.start].split("\n"))) % 2:
        tags.add("fence")
    line_end = text.find("\n", label.end)
    line_end = len(text) if line_end < 0 else line_end
    body = text[label.end : line_end]
    s = _strip_list(body, tags)
    moves = _list_moves(s, tags, rules) if s else ""
    if s and not body.rstrip().endswith(","):
        return moves
    # a bare label's list starts on a later line; a trailing comma carries the list on
    for line in text[line_end + 1 :].split("\n"):
        if not line.strip() or _is_fence(line):
            continue
        more = _only_moves(line, rules)
        if more is None:
            break
        tags.add("multiline")
        moves += more
        if not line.rstrip().endswith(","):
            break
    return moves


def parse_plan(text: str, strict: bool = False, vocabulary: Vocabulary = DIRECTIONS) -> Plan:
    """One answer's plan in ``vocabulary``'s symbols (``?`` for a token that is not an action), mode, normalization
    tags, label repeats."""
    if not isinstance(vocabulary, Vocabulary):
        raise UserTypeError(f"vocabulary must be a Vocabulary, got {type(vocabulary).__name__}")
    rules = _rules(vocabulary)
    if not isinstance(text, str):
        return Plan("", "no_plan", "", False)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    tags: set = set()
    labels = _labels(text)
    if labels:
        moves, multiple = _after_label(text, labels[-1], tags, rules), len(labels) > 1
    else:  # no label: a plan only if the whole answer, fences aside, is a list of actions
        lines = text.split("\n")
        body = "\n".join("" if _is_fence(line) else line for line in lines)
        if not set(body) <= rules.bare | {ch for ch in body if ch.isspace()}:
            return Plan("", "no_plan", "", False)
        if body != text:
            tags.add("fence")
        s = _strip_list(body, tags)
        moves = _list_moves(s, tags, rules) if s else ""
        if not moves or "?" in moves:
            return Plan("", "no_plan", "", False)
        tags.add("label")
        multiple = False
    if not tags:
        return Plan(moves, "exact", "", multiple)
    norm = "+".join(sorted(tags))
    return Plan("", "no_plan", norm, multiple) if strict else Plan(moves, "normalized", norm, multiple)
