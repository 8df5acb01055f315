"""Answer parsing: find the action list in a model's answer and say how it was found.

``parse_answer(text, strict=False, vocabulary=DIRECTIONS)`` never raises, whatever ``text`` is. The vocabulary
(``fastspe.domains.vocabulary.Vocabulary``) says which tokens are actions and how a plan is stored; the examples
below use ``DIRECTIONS`` (U, D, L, R, the default), others read the same way with their own tokens (``MOVES: AB, CB``).
It returns a ``ParsedPlan``:

- ``moves``: the stored plan, one symbol per action (``vocabulary.symbols``: ``U D L R`` for the directions) and
  ``?`` for a token that is not an action (replay calls it an illegal ``invalid_action`` at that position);
- ``mode``: ``exact``, ``normalized`` or ``no_plan``;
- ``normalization``: the ``+``-joined tags of what had to be normalized (empty when exact);
- ``multiple``: more than one ``MOVES:`` label appeared (the last one counts).

Exact (Appendix B)
    The counted label is ``MOVES:`` in capitals at the start of its line, followed on that line
    by tokens of the vocabulary, spelt exactly as it spells them (``U``, ``AB``), separated by commas
    (spaces or tabs around a comma are allowed: the prompt says "comma-separated", and ``U, D`` is
    still that). ``MOVES:`` followed by nothing is an exact plan of length 0. Other text before or
    after that line is allowed.

    ``exact`` describes the *form* (the label and the comma-separated tokens), not whether each
    token is an action: in ``MOVES: U, X, D`` the form is exact, so the answer is ``exact`` (in
    strict mode too) with moves ``U?D``, and replay calls the ``X`` an illegal
    ``invalid_action`` at its position. A token that would need normalizing to be read as actions
    (``u``, ``UD``, ``up``) makes the answer ``normalized`` instead.

Labels
    ``MOVES:`` in capitals counts anywhere in a line; ``moves:``/``Moves:``/``move:`` in any case
    counts only at the start of a line (after markup such as ``**``, ``#`` or ``-``), so that
    prose like "the moves: first ..." is not taken for a plan. The last label counts.

Tokens
    A token is everything between two separators (whitespace, ``, ; / |``), less markup, brackets
    and ``. ! :`` around it: ``ABCB`` is one token, and no action of ``AB``..``CB``. Only a
    vocabulary that reads ``runs`` (one-letter tokens, U/D/L/R) splits a run of its letters,
    ``UDLR``, into actions.

Normalized: what "unambiguous" means here
    A plan is accepted after normalization only when every reading gives the same sequence:

    - ``case``: a token in another case, or the label (``u, d`` / ``ab`` for ``AB`` / ``Moves:``);
    - ``separators``: spaces, semicolons, slashes, ``->``, missing commas (``U D L R``), empty items
      (``U,,D``) or a run of letters (``UDLR``, with ``runs``); a run splits into actions only if
      every letter is a token, which no word is made of (the vocabulary refuses such a word), so
      ``UDLR`` and ``up`` cannot be confused;
    - ``words``: the vocabulary's words in any case (``up``, ``down``, ``left``, ``right``);
    - ``arrows``: the vocabulary's glyphs (``↑ ↓ ← →``, also ``⬆ ⬇ ⬅ ➡``), alone or in runs; but
      where ``→`` is a glyph, in a list that also holds letters (or token digits) it is read as a
      separator (``U → D``); where it is not a glyph it always is, as ``->``, ``=>``, ``⟶``, ``⇒`` are;
    - ``markup`` (``**``, ``_``, backticks), ``brackets``/quotes around the list, ``punctuation``
      (a trailing full stop or comma), ``comment`` (remarks in parentheses inside or after the
      list, ``U (up), D (2 moves)``, are dropped), ``fence`` (the label is inside a code fence);
    - ``inline``: the ``MOVES:`` label follows other text on its line;
    - ``multiline``: the list starts on the line after a bare label, or continues onto the next
      line after a trailing comma, where those lines hold nothing but actions;
    - ``label``: there is no label at all but the whole answer (fences and markup aside) is a
      list in which every token is an action.

    A token in the counted list that is none of these (``X``, ``then``, ``UDX``) is kept as ``?``.
No plan
    No label and the answer is not purely an action list: a format failure. Such a list holds
    only whitespace, token characters in either case, the letters of words in either case,
    glyphs, ``→`` and the separators and markup above, so any other character makes prose.

``strict=True`` turns every normalized answer into ``no_plan`` (its tags are kept, to show why).
"""

from __future__ import annotations

import re
import string
from typing import NamedTuple, Sequence

from ..domains.vocabulary import DIRECTIONS, INVALID_SYMBOL, Vocabulary
from ..errors import UserTypeError

EXACT, NORMALIZED, NO_PLAN = "exact", "normalized", "no_plan"
INVALID = INVALID_SYMBOL

# Labels: capital MOVES: anywhere (not inside a word), or any-case move(s): at a line start. The
# any-case search runs on an ASCII-lowered copy (same length, same offsets) so both patterns
# start with a literal and the regex engine can skip ahead to it.
_STRONG = re.compile(r"MOVES([*_`]{0,3})[ \t]*:")
_WEAK = re.compile(r"moves?([*_`]{0,3})[ \t]*:")
_LEAD = re.compile(r"[ \t>#*_`\-]*")
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_ASCII_LETTERS = frozenset(string.ascii_letters)
_FENCE = re.compile(r"^[ \t]*(?:```|~~~)", re.MULTILINE)
_FENCE_LINE = re.compile(r"^[ \t]*(?:```|~~~).*$", re.MULTILINE)
_LIST_SEPS = " \t,;/|"  # what may stand between the tokens of the fast path's lists
_LETTER_SEPS = re.compile(r"[ \t,;/|]+")
_TOKEN = re.compile(r"[^\s,;/|]+")
_SEPARATOR_ARROWS = ("->", "=>", "⟶", "⇒")  # only ever separators
_PAREN_GROUP = re.compile(r"\([^()]*\)")
_TRAILING_COMMENT = re.compile(r"[\s,;]*\([^()]*\)$")
_WRAP = "[](){}<>\"'“”‘’"
_MARKUP = "*_`~"
# what else a bare answer (no label) may hold besides whitespace and the vocabulary's own characters
_BARE_FORMAT = "\ufe0f,;/|`*_~[](){}<>\"'“”‘’.!:=⟶⇒-→"


class _Grammar(NamedTuple):
    """What reading a list needs of one vocabulary, compiled once (``_grammar``)."""

    exact: re.Pattern  # tokens as spelt, between commas: the exact body
    exact_any_case: re.Pattern  # the same in any case
    one_char: dict | None  # every token one character: translate table of an exact body to its moves
    symbol_of: dict  # token as spelt -> symbol
    folded: dict  # lower-case token -> symbol
    spaced: re.Pattern  # the fast path: tokens in any case (runs: token letters), separators in between
    runs: bool
    run: re.Pattern | None  # runs: a run of token letters in any case
    other_case: re.Pattern | None  # runs: a token letter in the case the vocabulary does not spell it
    run_symbols: dict  # runs: translate table, token letters in any case -> symbols, separators dropped
    words: dict  # word -> symbol
    glyphs: dict  # glyph -> symbol
    never_moves: re.Pattern  # arrows that are only ever separators
    arrow_glyph: bool  # "→" is a glyph, and a separator beside letters
    has_letter: re.Pattern
    bare: re.Pattern  # what a bare answer may consist of


def _char_class(chars) -> str:
    return "[" + "".join(re.escape(c) for c in sorted(chars)) + "]"


def _compile(v: Vocabulary) -> _Grammar:
    symbol_of = dict(zip(v.tokens, v.symbols))
    one_char = all(len(t) == 1 for t in v.tokens)
    # longest first: A10 is tried before A1 (a full match would backtrack to it anyway; this saves the steps)
    token = (
        _char_class(v.tokens)
        if one_char
        else "(?:" + "|".join(re.escape(t) for t in sorted(v.tokens, key=len, reverse=True)) + ")"
    )
    body = rf"{token}(?:[ \t]*,[ \t]*{token})*"
    letters = {c for t in v.tokens for c in t + t.swapcase()}
    if v.runs:
        spaced = re.compile(_char_class(letters | set(_LIST_SEPS)) + "*")
        run = re.compile(_char_class(letters) + "+")
        wrong = {c.swapcase() for c in v.tokens} - set(v.tokens)
        other_case = re.compile(_char_class(wrong)) if wrong else re.compile(r"(?!)")
        run_symbols = {ord(c): symbol_of[c] if c in symbol_of else symbol_of[c.swapcase()] for c in letters}
        run_symbols.update(dict.fromkeys(map(ord, _LIST_SEPS)))
    else:
        spaced = re.compile(rf"[ \t,;/|]*(?:{token}(?:[ \t,;/|]+|\Z))*", re.IGNORECASE | re.ASCII)
        run = other_case = None
        run_symbols = {}
    separators = _SEPARATOR_ARROWS + (() if "→" in v.glyphs else ("→",))
    words = {w: symbol_of[t] for w, t in v.words.items()}
    word_chars = {c for w in words for c in w + w.upper()}
    return _Grammar(
        exact=re.compile(body),
        exact_any_case=re.compile(body, re.IGNORECASE | re.ASCII),
        one_char={**{ord(t): symbol_of[t] for t in v.tokens}, **dict.fromkeys(map(ord, ", \t"))} if one_char else None,
        symbol_of=symbol_of,
        folded={t.lower(): s for t, s in symbol_of.items()},
        spaced=spaced,
        runs=v.runs,
        run=run,
        other_case=other_case,
        run_symbols=run_symbols,
        words=words,
        glyphs={g: symbol_of[t] for g, t in v.glyphs.items()},
        never_moves=re.compile("|".join(map(re.escape, separators))),
        arrow_glyph="→" in v.glyphs,
        has_letter=re.compile(_char_class(set(string.ascii_letters) | letters)),
        bare=re.compile(r"[\s" + _char_class(letters | word_chars | set(v.glyphs) | set(_BARE_FORMAT))[1:] + "*"),
    )


_GRAMMARS: dict = {}


def _grammar(vocabulary: Vocabulary) -> _Grammar:
    """The compiled grammar of ``vocabulary`` (made on first use, then kept)."""
    g = _GRAMMARS.get(vocabulary) if isinstance(vocabulary, Vocabulary) else None
    if g is None:
        if not isinstance(vocabulary, Vocabulary):
            raise UserTypeError(f"vocabulary must be a fastspe.domains.vocabulary.Vocabulary, got {vocabulary!r}")
        g = _GRAMMARS[vocabulary] = _compile(vocabulary)
    return g


class ParsedPlan(NamedTuple):
    """One answer's plan (see the module docstring): ``moves`` are symbols of the vocabulary, ``?`` for a token
    that is not an action."""

    moves: str
    mode: str
    normalization: str
    multiple: bool


NO_PLAN_RESULT = ParsedPlan("", NO_PLAN, "", False)


def _clean_body(body: str, tags: set) -> str:
    """Strip whitespace, markup, wrapping brackets/quotes and trailing punctuation, noting each."""
    s = body.strip()
    while s:
        before = s
        m = _TRAILING_COMMENT.search(s)
        if m and m.start() > 0:  # "U, D (2 moves)": a closing remark, not part of the list
            s = s[: m.start()].rstrip()
            tags.add("comment")
        if s[0] in _MARKUP or s[-1] in _MARKUP:
            s = s.strip(_MARKUP).strip()
            tags.add("markup")
        if s and (s[0] in _WRAP or s[-1] in _WRAP):
            s = s.strip(_WRAP).strip()
            tags.add("brackets")
        if s and s[-1] in ".!;,":
            s = s.rstrip(".!;,").strip()
            tags.add("punctuation")
        if s == before:
            break
    return s


def _tokens_to_moves(s: str, tags: set, g: _Grammar) -> str:
    """Moves of a cleaned, non-empty list body (``?`` for tokens that are not actions)."""
    if g.exact.fullmatch(s):
        if g.one_char is not None:
            return s.translate(g.one_char)
        return "".join(g.symbol_of[t.strip(" \t")] for t in s.split(","))
    if g.spaced.fullmatch(s):  # tokens in any case with any spacing: the fast path for long plans
        if g.runs:
            if g.other_case.search(s):
                tags.add("case")
            moves = s.translate(g.run_symbols)
        else:
            items = [t for t in _LETTER_SEPS.split(s) if t]
            if any(t not in g.symbol_of for t in items):
                tags.add("case")
            moves = "".join(g.folded[t.lower()] for t in items)
        if not g.exact_any_case.fullmatch(s):
            tags.add("separators")
        return moves
    if "(" in s and _PAREN_GROUP.search(s):  # "U (up), D (down)": glosses, not moves
        s = _PAREN_GROUP.sub(" ", s)
        tags.add("comment")
    if g.never_moves.search(s):
        s = g.never_moves.sub(" ", s)
        tags.add("separators")
    if g.arrow_glyph and "→" in s and g.has_letter.search(s):
        # "U → D": beside letters or words an arrow is a separator, never a move
        s = s.replace("→", " ")
        tags.add("separators")
    parts = _TOKEN.split(s)
    if any(p.strip(" \t") != "," for p in parts[1:-1]):
        tags.add("separators")
    out = []
    for tok in _TOKEN.findall(s):
        t = tok.strip(_MARKUP + _WRAP + ".!:")
        if t != tok:
            tags.add("punctuation")
        if t:
            out.append(_token_moves(t, tags, g))
    return "".join(out)


def _token_moves(t: str, tags: set, g: _Grammar) -> str:
    """The moves one stripped token stands for, ``?`` if none."""
    if t.isascii():  # (str.lower would read the Kelvin sign as k)
        if g.runs and g.run.fullmatch(t):
            if g.other_case.search(t):
                tags.add("case")
            if len(t) > 1:
                tags.add("separators")
            return t.translate(g.run_symbols)
        low = t.lower()
        if low in g.folded:
            if t not in g.symbol_of:
                tags.add("case")
            return g.folded[low]
        if low in g.words:
            tags.add("words")
            return g.words[low]
    arrows = t.replace("\ufe0f", "")
    if arrows and all(ch in g.glyphs for ch in arrows):
        tags.add("arrows")
        return "".join(g.glyphs[ch] for ch in arrows)
    return INVALID


def _pure_list(line: str, g: _Grammar) -> str | None:
    """The moves of ``line`` if it holds nothing but an action list, else None."""
    tags: set = set()
    s = _clean_body(line, tags)
    if not s:
        return None
    moves = _tokens_to_moves(s, tags, g)
    return moves if moves and INVALID not in moves else None


def _next_lines(text: str, start: int):
    """Lines of ``text`` from offset ``start`` on, skipping blank and code-fence lines."""
    for line in text[start:].split("\n"):
        if not line.strip() or _FENCE.match(line):
            continue
        yield line


class _Label(NamedTuple):
    start: int
    end: int
    word: str
    markup: bool  # markup around the word or before it on its line
    inline: bool  # other text before it on its line


def _find_labels(text: str) -> list[_Label]:
    """Every label in ``text``, in order."""
    found = {}
    for m in _STRONG.finditer(text):
        i = m.start()
        if i and text[i - 1] in _ASCII_LETTERS:
            continue
        lead = text[text.rfind("\n", 0, i) + 1 : i]
        at_start = _LEAD.fullmatch(lead) is not None
        found[i] = _Label(i, m.end(), "MOVES", bool(m.group(1)) or (at_start and bool(lead.strip())), not at_start)
    low = text.translate(_ASCII_LOWER)
    if "move" in low:
        for m in _WEAK.finditer(low):
            i = m.start()
            if i in found:
                continue
            lead = text[text.rfind("\n", 0, i) + 1 : i]
            if _LEAD.fullmatch(lead):
                word = text[i : i + 5] if low.startswith("moves", i) else text[i : i + 4]
                found[i] = _Label(i, m.end(), word, bool(m.group(1)) or bool(lead.strip()), False)
    return [found[i] for i in sorted(found)]


def _labelled(text: str, label: _Label, tags: set, g: _Grammar) -> str:
    """Moves after ``label`` (its line, plus continuation lines where unambiguous)."""
    if label.word.upper() != "MOVES":
        tags.add("label")
    elif label.word != "MOVES":
        tags.add("case")
    if label.markup:
        tags.add("markup")
    if label.inline:
        tags.add("inline")
    if "```" in text or "~~~" in text:
        if len(_FENCE.findall(text, 0, label.start)) % 2:
            tags.add("fence")
    end = text.find("\n", label.end)
    end = len(text) if end < 0 else end
    body = text[label.end : end]
    s = _clean_body(body, tags)
    moves = _tokens_to_moves(s, tags, g) if s else ""
    # the list may start on the next line (bare label) or go on after a trailing comma
    if not s or body.rstrip().endswith(","):
        for line in _next_lines(text, end + 1):
            more = _pure_list(line, g)
            if more is None:
                break
            tags.add("multiline")
            moves += more
            if not line.rstrip().endswith(","):
                break
    return moves


def parse_answer(text, strict: bool = False, vocabulary: Vocabulary = DIRECTIONS) -> ParsedPlan:
    """Parse one answer (any object; non-strings are no plan) with ``vocabulary``'s tokens. Never raises on a text;
    a ``vocabulary`` that is not a ``Vocabulary`` is a ``TypeError``."""
    g = _grammar(vocabulary)
    try:
        return _parse(text, strict, g)
    except Exception:  # pragma: no cover - a parser bug must not stop scoring
        return NO_PLAN_RESULT


def _parse(text, strict: bool, g: _Grammar) -> ParsedPlan:
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if not isinstance(text, str):
        return NO_PLAN_RESULT
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    tags: set = set()
    labels = _find_labels(text)
    if labels:
        moves = _labelled(text, labels[-1], tags, g)
        multiple = len(labels) > 1
    else:
        body = _FENCE_LINE.sub("", text) if "```" in text or "~~~" in text else text
        if not g.bare.fullmatch(body):
            return NO_PLAN_RESULT  # prose: a character that no action list uses
        if body != text:
            tags.add("fence")
        s = _clean_body(body, tags)
        moves = _tokens_to_moves(s, tags, g) if s else ""
        if not moves or INVALID in moves:
            return ParsedPlan("", NO_PLAN, "", False)
        tags.add("label")
        multiple = False
    norm = "+".join(sorted(tags))
    if not tags:
        return ParsedPlan(moves, EXACT, "", multiple)
    if strict:
        return ParsedPlan("", NO_PLAN, norm, multiple)
    return ParsedPlan(moves, NORMALIZED, norm, multiple)


def parse_answers(texts: Sequence, strict: bool = False, vocabulary: Vocabulary = DIRECTIONS) -> list[ParsedPlan]:
    """``parse_answer`` over a sequence of answers."""
    return [parse_answer(t, strict, vocabulary) for t in texts]
