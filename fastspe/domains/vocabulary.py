"""A domain's action vocabulary: the tokens an answer may use, their codes, and the one-character symbols of a stored plan.

Action code ``i`` is ``tokens[i]``; every other code (``invalid_code`` and up) is a token that is not one of the
domain's actions, which replay calls an illegal ``invalid_action`` at its position. An answer lists tokens after
``MOVES:`` (``MOVES: U, L, D``; ``MOVES: AB, AC``); files store a plan as one ``symbol`` per action (a verdict's
``moves``, a bank's certificate), ``?`` for a token that is not an action. The lenient parser also reads tokens in
another case (``u``, ``ab``), ``words`` (``up`` for ``U``) and ``glyphs`` (``↑``), and, when ``runs`` is set
(single-letter tokens that no word is made of), a run of token letters without separators (``UDLR``). Without
``runs`` a token is everything between two separators, so ``ABCB`` is one token, and not an action.

``DIRECTIONS`` is U/D/L/R (codes 0..3), the vocabulary of the sliding puzzle and of Sokoban.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Mapping, Sequence

from ..errors import ContractError

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa
# numpy and pyarrow are imported where the array helpers need them: the reference parser and the independent
# verifier read a vocabulary's tokens only, and stay plain Python

__all__ = ["Vocabulary", "DIRECTIONS", "INVALID_SYMBOL"]

INVALID_SYMBOL = "?"  # the stored symbol of a token that is not an action
MAX_TOKENS = 250  # codes are uint8, and the invalid code follows the last token's
# characters the answer format gives a meaning of their own (quotes wrap a list, ⟶ and ⇒ separate its tokens, the
# emoji variation selector is dropped), so they cannot be glyphs
_FORMAT_GLYPHS = "“”‘’⟶⇒\ufe0f"


@dataclass(frozen=True)
class Vocabulary:
    """The action tokens of a domain (see the module docstring); checked when made.

    tokens : the actions in code order, each 1..16 ASCII letters or digits, distinct up to case
    symbols : one printable ASCII character per token for stored plans (default: the tokens themselves, when each is
        one character); never ``?``, ``,`` or a space
    words : lower-case word (ASCII letters or digits) -> token, read by the lenient parser in any case (tag
        ``words``); a word is no token in any case and, with ``runs``, not made of token letters only
    glyphs : one printable non-ASCII character -> token, read by the lenient parser alone or in runs (tag
        ``arrows``); not a space, nor a character the format uses (curly quotes, ``⟶``, ``⇒``, U+FE0F)
    runs : a run of token letters without separators is a list of actions (tokens of one letter only)

    A vocabulary is hashable (parsers cache what they compile for it) and equal to another with the same fields.
    """

    tokens: tuple[str, ...]
    symbols: str = ""
    words: Mapping[str, str] = field(default_factory=dict)
    glyphs: Mapping[str, str] = field(default_factory=dict)
    runs: bool = False

    def __post_init__(self) -> None:
        tokens = tuple(self.tokens)
        if not tokens or len(tokens) > MAX_TOKENS:
            raise ContractError(f"a vocabulary has 1..{MAX_TOKENS} tokens, got {len(tokens)}")
        for t in tokens:
            if not (isinstance(t, str) and 1 <= len(t) <= 16 and t.isascii() and t.isalnum()):
                raise ContractError(f"a token is 1..16 ASCII letters or digits, got {t!r}")
        if len({t.lower() for t in tokens}) != len(tokens):
            raise ContractError(f"tokens must differ up to case: {tokens}")
        symbols = self.symbols or ("".join(tokens) if all(len(t) == 1 for t in tokens) else "")
        if len(symbols) != len(tokens) or len(set(symbols)) != len(symbols):
            raise ContractError(
                "symbols: one distinct character per token (needed when a token is longer than one character)"
            )
        if any(not (s.isascii() and s.isprintable()) or s in f"{INVALID_SYMBOL}, " for s in symbols):
            raise ContractError(
                f"symbols are printable ASCII characters other than '?', ',' and space, got {symbols!r}"
            )
        if self.runs and any(len(t) != 1 for t in tokens):
            raise ContractError("runs: only a vocabulary of one-letter tokens can be read as runs of letters")
        for name, table in (("words", self.words), ("glyphs", self.glyphs)):
            bad = [v for v in table.values() if v not in tokens]
            if bad:
                raise ContractError(f"{name} map to tokens that are not in the vocabulary: {bad}")
        folded = {t.lower() for t in tokens}
        letters = {ch for t in tokens for ch in t.lower()}
        for w in self.words:
            if not (isinstance(w, str) and w and w.isascii() and w.isalnum() and w == w.lower()):
                raise ContractError(f"a word is lower-case ASCII letters or digits, got {w!r}")
            if w in folded:  # "ab" would be both a token in another case and a word
                raise ContractError(f"the word {w!r} is a token in another case")
            if self.runs and set(w) <= letters:  # "dud" would be both a run of letters and a word
                raise ContractError(f"the word {w!r} is a run of token letters")
        for g in self.glyphs:
            if not (
                isinstance(g, str)
                and len(g) == 1
                and not g.isascii()
                and g.isprintable()
                and not g.isspace()
                and g not in _FORMAT_GLYPHS
            ):
                raise ContractError(
                    f"a glyph is one printable non-ASCII character that the format does not use, got {g!r}"
                )
        object.__setattr__(self, "tokens", tokens)
        object.__setattr__(self, "symbols", symbols)
        object.__setattr__(self, "words", dict(self.words))
        object.__setattr__(self, "glyphs", dict(self.glyphs))
        object.__setattr__(self, "runs", bool(self.runs))
        # hashed once: the parsers look their compiled tables up by vocabulary on every answer
        object.__setattr__(
            self,
            "_hash",
            hash((tokens, symbols, tuple(sorted(self.words.items())), tuple(sorted(self.glyphs.items())), self.runs)),
        )

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self):
        # made again where it is unpickled: a str hash differs from process to process
        return Vocabulary, (self.tokens, self.symbols, self.words, self.glyphs, self.runs)

    def __len__(self) -> int:
        return len(self.tokens)

    @property
    def invalid_code(self) -> int:
        """The code of a token that is not an action (any code from here up is one)."""
        return len(self.tokens)

    @cached_property
    def symbol_bytes(self) -> np.ndarray:
        """uint8 (n,): the symbol of each code, as ASCII."""
        import numpy as np

        return np.frombuffer(self.symbols.encode("ascii"), dtype=np.uint8).copy()

    @cached_property
    def code_of_byte(self) -> np.ndarray:
        """uint8 (256,): the code of each ASCII symbol byte, ``invalid_code`` for any other byte."""
        import numpy as np

        table = np.full(256, self.invalid_code, dtype=np.uint8)
        table[self.symbol_bytes] = np.arange(len(self.tokens), dtype=np.uint8)
        return table

    @cached_property
    def symbol_of_code(self) -> bytes:
        """A 256-byte ``bytes.translate`` table: each code's symbol, ``?`` for every code that is not an action."""
        import numpy as np

        table = np.full(256, ord(INVALID_SYMBOL), dtype=np.uint8)
        table[: len(self.tokens)] = self.symbol_bytes
        return table.tobytes()

    def encode(self, plans: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Stored plans (one symbol per action) as one flat uint8 code array and int64 offsets (n + 1,); any
        character that is no symbol is a token that is not an action."""
        import numpy as np

        lengths = np.fromiter(map(len, plans), dtype=np.int64, count=len(plans))
        offsets = np.zeros(len(plans) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        joined = "".join(plans).encode("ascii", errors="replace")
        return self.code_of_byte[np.frombuffer(joined, dtype=np.uint8)], offsets

    def plan_strings(self, codes: np.ndarray, offsets: np.ndarray) -> pa.Array:
        """One stored plan per row, one symbol per action (``?`` for a token that is not an action), built from the
        buffers with no Python loop per plan: a ``pa.StringArray``, or a ``pa.LargeStringArray`` when the plans hold
        2**31 actions or more."""
        import numpy as np
        import pyarrow as pa

        chars = pa.py_buffer(np.ascontiguousarray(codes, dtype=np.uint8).tobytes().translate(self.symbol_of_code))
        offsets = np.asarray(offsets, dtype=np.int64)
        n = len(offsets) - 1
        if offsets[-1] < 2**31:
            return pa.StringArray.from_buffers(n, pa.py_buffer(offsets.astype(np.int32)), chars)
        return pa.LargeStringArray.from_buffers(n, pa.py_buffer(offsets), chars)

    def tokens_of(self, plan: str) -> list[str]:
        """The tokens of a stored plan (``?`` stays ``?``)."""
        index = {s: t for s, t in zip(self.symbols, self.tokens)}
        return [index.get(s, INVALID_SYMBOL) for s in plan]

    def answer(self, plan: str, separator: str = ", ") -> str:
        """A stored plan as an exact answer: ``MOVES: U, L, D`` (``separator=","``: ``MOVES: U,L,D``, as the prompts
        ask for it)."""
        return "MOVES: " + separator.join(self.tokens_of(plan))


DIRECTIONS = Vocabulary(
    ("U", "D", "L", "R"),
    words={"up": "U", "down": "D", "left": "L", "right": "R"},
    glyphs=dict(zip("↑↓←→⬆⬇⬅➡", "UDLRUDLR")),
    runs=True,
)
