"""Answer parsing: find the move list in a model's answer and say how it was found.

``parse_answer(text)`` never raises, whatever ``text`` is. It returns a ``ParsedPlan``:

- ``moves``: one character per action of the plan, ``U D L R`` for moves and ``?`` for a token
  that is not a move (replay calls it an illegal ``invalid_action`` at that position);
- ``mode``: ``exact``, ``normalized`` or ``no_plan``;
- ``normalization``: the ``+``-joined tags of what had to be normalized (empty when exact);
- ``multiple``: more than one ``MOVES:`` label appeared (the last one counts).

Exact (Appendix B)
    The counted label is ``MOVES:`` in capitals at the start of its line, followed on that line
    by ``U``, ``D``, ``L``, ``R`` separated by commas (spaces around a comma are allowed: the
    prompt says "comma-separated", and ``U, D`` is still that). ``MOVES:`` followed by nothing
    is an exact plan of length 0. Other text before or after that line is allowed.

    ``exact`` describes the *form* (the label and the comma-separated tokens), not whether each
    token is a move: in ``MOVES: U, X, D`` the form is exact, so the answer is ``exact`` (in
    strict mode too) with moves ``U?D``, and replay calls the ``X`` an illegal
    ``invalid_action`` at its position. A token that would need normalizing to be read as moves
    (``u``, ``UD``, ``up``) makes the answer ``normalized`` instead.

Labels
    ``MOVES:`` in capitals counts anywhere in a line; ``moves:``/``Moves:``/``move:`` in any case
    counts only at the start of a line (after markup such as ``**``, ``#`` or ``-``), so that
    prose like "the moves: first ..." is not taken for a plan. The last label counts.

Normalized: what "unambiguous" means here
    A plan is accepted after normalization only when every reading gives the same sequence:

    - ``case``: lower-case letters or label (``u, d`` / ``Moves:``);
    - ``separators``: spaces, semicolons, slashes, ``->``, missing commas (``UDLR``, ``U D L R``)
      or empty items (``U,,D``); a run of letters splits into moves only if every letter is one
      of U, D, L, R, which no direction word is, so ``UDLR`` and ``up`` cannot be confused;
    - ``words``: ``up``, ``down``, ``left``, ``right`` in any case;
    - ``arrows``: ``↑ ↓ ← →`` (also ``⬆ ⬇ ⬅ ➡``), alone or in runs; but in a list that also holds
      letters or words ``→`` is read as a separator (``U → D``), and ``->``, ``=>``, ``⟶``, ``⇒``
      always are;
    - ``markup`` (``**``, ``_``, backticks), ``brackets``/quotes around the list, ``punctuation``
      (a trailing full stop or comma), ``comment`` (remarks in parentheses inside or after the
      list, ``U (up), D (2 moves)``, are dropped), ``fence`` (the label is inside a code fence);
    - ``inline``: the ``MOVES:`` label follows other text on its line;
    - ``multiline``: the list starts on the line after a bare label, or continues onto the next
      line after a trailing comma, where those lines hold nothing but moves;
    - ``label``: there is no label at all but the whole answer (fences and markup aside) is a
      list in which every token is a move.

    A token in the counted list that is none of these (``X``, ``then``, ``UDX``) is kept as ``?``.
No plan
    No label and the answer is not purely a move list: a format failure.

``strict=True`` turns every normalized answer into ``no_plan`` (its tags are kept, to show why).
"""

from __future__ import annotations

import re
import string
from typing import NamedTuple, Sequence

EXACT, NORMALIZED, NO_PLAN = "exact", "normalized", "no_plan"
INVALID = "?"

# Labels: capital MOVES: anywhere (not inside a word), or any-case move(s): at a line start. The
# any-case search runs on an ASCII-lowered copy (same length, same offsets) so both patterns
# start with a literal and the regex engine can skip ahead to it.
_STRONG = re.compile(r"MOVES([*_`]{0,3})[ \t]*:")
_WEAK = re.compile(r"moves?([*_`]{0,3})[ \t]*:")
_LEAD = re.compile(r"[ \t>#*_`\-]*")
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_ASCII_LETTERS = frozenset(string.ascii_letters)
# a bare answer (no label) can only be a plan if it uses these characters
_BARE_CHARS = re.compile(r"[\sudlrpowneftighUDLRPOWNEFTIGH↑↓←→⬆⬇⬅➡\ufe0f,;/|`*_~\[\](){}<>\"'“”‘’.!:=⟶⇒-]*")
_FENCE = re.compile(r"^[ \t]*(?:```|~~~)", re.MULTILINE)
_FENCE_LINE = re.compile(r"^[ \t]*(?:```|~~~).*$", re.MULTILINE)
_EXACT_BODY = re.compile(r"[UDLR](?:[ \t]*,[ \t]*[UDLR])*")
_LETTERS_ONLY = re.compile(r"[UDLRudlr \t,;/|]*")
_LETTER_SEPS = re.compile(r"[ \t,;/|]+")
_TOKEN = re.compile(r"[^\s,;/|]+")
_NEVER_MOVES = re.compile(r"->|=>|⟶|⇒")  # arrows that are only ever separators
_HAS_LETTER = re.compile(r"[A-Za-z]")
_WORDS = {"up": "U", "down": "D", "left": "L", "right": "R"}
_ARROWS = {"↑": "U", "↓": "D", "←": "L", "→": "R", "⬆": "U", "⬇": "D", "⬅": "L", "➡": "R"}
_LETTER_RUN = re.compile(r"[UDLRudlr]+")
_PAREN_GROUP = re.compile(r"\([^()]*\)")
_TRAILING_COMMENT = re.compile(r"[\s,;]*\([^()]*\)$")
_WRAP = "[](){}<>\"'“”‘’"
_MARKUP = "*_`~"


class ParsedPlan(NamedTuple):
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
            s = s[:m.start()].rstrip()
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


def _tokens_to_moves(s: str, tags: set) -> str:
    """Moves of a cleaned, non-empty list body (``?`` for tokens that are not moves)."""
    if _EXACT_BODY.fullmatch(s):
        return s.replace(",", "").replace(" ", "").replace("\t", "")
    if _LETTERS_ONLY.fullmatch(s):  # letters with any spacing: the fast path for long plans
        upper = s.upper()
        if upper != s:
            tags.add("case")
        if not _EXACT_BODY.fullmatch(upper):
            tags.add("separators")
        return _LETTER_SEPS.sub("", upper)
    if "(" in s and _PAREN_GROUP.search(s):  # "U (up), D (down)": glosses, not moves
        s = _PAREN_GROUP.sub(" ", s)
        tags.add("comment")
    if _NEVER_MOVES.search(s):
        s = _NEVER_MOVES.sub(" ", s)
        tags.add("separators")
    if "→" in s and _HAS_LETTER.search(s):
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
        if not t:
            continue
        if _LETTER_RUN.fullmatch(t):
            upper = t.upper()
            if upper != t:
                tags.add("case")
            if len(t) > 1:
                tags.add("separators")
            out.append(upper)
            continue
        low = t.lower()
        if low in _WORDS:
            tags.add("words")
            out.append(_WORDS[low])
            continue
        arrows = t.replace("\ufe0f", "")
        if arrows and all(ch in _ARROWS for ch in arrows):
            tags.add("arrows")
            out.append("".join(_ARROWS[ch] for ch in arrows))
            continue
        out.append(INVALID)
    return "".join(out)


def _pure_list(line: str) -> str | None:
    """The moves of ``line`` if it holds nothing but a move list, else None."""
    tags: set = set()
    s = _clean_body(line, tags)
    if not s:
        return None
    moves = _tokens_to_moves(s, tags)
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
        lead = text[text.rfind("\n", 0, i) + 1:i]
        at_start = _LEAD.fullmatch(lead) is not None
        found[i] = _Label(i, m.end(), "MOVES", bool(m.group(1)) or (at_start and bool(lead.strip())),
                          not at_start)
    low = text.translate(_ASCII_LOWER)
    if "move" in low:
        for m in _WEAK.finditer(low):
            i = m.start()
            if i in found:
                continue
            lead = text[text.rfind("\n", 0, i) + 1:i]
            if _LEAD.fullmatch(lead):
                word = text[i:i + 5] if low.startswith("moves", i) else text[i:i + 4]
                found[i] = _Label(i, m.end(), word, bool(m.group(1)) or bool(lead.strip()), False)
    return [found[i] for i in sorted(found)]


def _labelled(text: str, label: _Label, tags: set) -> str:
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
    body = text[label.end:end]
    s = _clean_body(body, tags)
    moves = _tokens_to_moves(s, tags) if s else ""
    # the list may start on the next line (bare label) or go on after a trailing comma
    if not s or body.rstrip().endswith(","):
        for line in _next_lines(text, end + 1):
            more = _pure_list(line)
            if more is None:
                break
            tags.add("multiline")
            moves += more
            if not line.rstrip().endswith(","):
                break
    return moves


def parse_answer(text, strict: bool = False) -> ParsedPlan:
    """Parse one answer (any object; non-strings are no plan). Never raises."""
    try:
        return _parse(text, strict)
    except Exception:  # pragma: no cover - a parser bug must not stop scoring
        return NO_PLAN_RESULT


def _parse(text, strict: bool) -> ParsedPlan:
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if not isinstance(text, str):
        return NO_PLAN_RESULT
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    tags: set = set()
    labels = _find_labels(text)
    if labels:
        moves = _labelled(text, labels[-1], tags)
        multiple = len(labels) > 1
    else:
        body = _FENCE_LINE.sub("", text) if "```" in text or "~~~" in text else text
        if not _BARE_CHARS.fullmatch(body):
            return NO_PLAN_RESULT  # prose: a character that no move list uses
        if body != text:
            tags.add("fence")
        s = _clean_body(body, tags)
        moves = _tokens_to_moves(s, tags) if s else ""
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


def parse_answers(texts: Sequence, strict: bool = False) -> list[ParsedPlan]:
    """``parse_answer`` over a sequence of answers."""
    return [parse_answer(t, strict) for t in texts]
