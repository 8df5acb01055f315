"""Action vocabularies: their checks, their codes and symbols, and answer parsing with tokens other than U/D/L/R.

The reference parser (``parse_answer``) and the independent one of the verifier (``parse_plan``) are two readings of
one documented format: on every answer they must agree, for every vocabulary; ``parse_column`` must equal the
reference, its codes those of the vocabulary.
"""

from __future__ import annotations

import pickle

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastspe.domains.vocabulary import DIRECTIONS, INVALID_SYMBOL, Vocabulary
from fastspe.domains.sliding.kernels.replay import INVALID_CODE
from fastspe.scoring.parse_column import parse_column
from fastspe.scoring.parse_reference import EXACT, NO_PLAN, NORMALIZED, ParsedPlan, parse_answer, parse_answers
from fastspe.verify.answer_format import parse_plan

# Tower of Hanoi: two-letter tokens, stored as one letter each
HANOI = Vocabulary(("AB", "AC", "BA", "BC", "CA", "CB"), symbols="abcdef")
# one-letter tokens that are not read as runs (so ABC is one token), with two words
NINE = Vocabulary(tuple("ABCDEFGHI"), words={"alpha": "A", "india": "I"})
# runs of one-letter tokens, symbols unlike the tokens, words, and glyphs with "→" among them
COMPASS = Vocabulary(
    ("N", "S", "E", "W"),
    symbols="^v><",
    words={"north": "N", "south": "S", "east": "E", "west": "W"},
    glyphs=dict(zip("↑↓→←", "NSEW")),
    runs=True,
)
# tokens that are prefixes of others
GRID = Vocabulary(("A1", "A2", "A3", "B1", "B2", "B3", "C1", "C2", "C3", "A10"), symbols="123456789X")
VOCABULARIES = {"directions": DIRECTIONS, "hanoi": HANOI, "nine": NINE, "compass": COMPASS, "grid": GRID}


def both(text, vocabulary, strict=False):
    """The reference's and the verifier's parse, after checking that they agree."""
    ref = parse_answer(text, strict, vocabulary)
    assert tuple(parse_plan(text, strict, vocabulary)) == tuple(ref), text
    return ref


# -- the vocabulary itself -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs",
    [
        {"tokens": ()},
        {"tokens": tuple(f"T{k}" for k in range(251)), "symbols": "x" * 251},
        {"tokens": ("U", "")},
        {"tokens": ("U", "U-D")},
        {"tokens": ("U", "É")},
        {"tokens": ("U", "A" * 17), "symbols": "UA"},
        {"tokens": ("U", "D", "u")},  # the same token up to case
        {"tokens": ("U", 1)},
        {"tokens": ("AB", "CD")},  # no symbols for tokens of two letters
        {"tokens": ("AB", "CD"), "symbols": "a"},
        {"tokens": ("AB", "CD"), "symbols": "aa"},
        {"tokens": ("AB", "CD"), "symbols": "a?"},
        {"tokens": ("AB", "CD"), "symbols": "a,"},
        {"tokens": ("AB", "CD"), "symbols": "a "},
        {"tokens": ("AB", "CD"), "symbols": "aé"},
        {"tokens": ("AB", "CD"), "symbols": "ab", "runs": True},  # runs only of one-letter tokens
        {"tokens": ("U", "D"), "words": {"up": "X"}},  # a word or glyph for a token that is not one
        {"tokens": ("U", "D"), "glyphs": {"↑": "X"}},
        {"tokens": ("U", "D"), "words": {"Up": "U"}},  # words are lower-case ASCII letters or digits
        {"tokens": ("U", "D"), "words": {"go up": "U"}},
        {"tokens": ("U", "D"), "words": {"": "U"}},
        {"tokens": ("UP", "D"), "words": {"up": "D"}},  # a word that is a token in another case
        {"tokens": ("U", "D"), "words": {"dud": "D"}, "runs": True},  # a word that is a run of token letters
        {"tokens": ("U", "D"), "glyphs": {"x": "U"}},  # glyphs are one printable non-ASCII character ...
        {"tokens": ("U", "D"), "glyphs": {"↑↑": "U"}},
        {"tokens": ("U", "D"), "glyphs": {"\u3000": "U"}},
        {"tokens": ("U", "D"), "glyphs": {"\u200b": "U"}},
        {"tokens": ("U", "D"), "glyphs": {"⇒": "U"}},  # ... that the format does not use otherwise
        {"tokens": ("U", "D"), "glyphs": {"“": "U"}},
        {"tokens": ("U", "D"), "glyphs": {"\ufe0f": "U"}},
    ],
)
def test_bad_vocabularies_are_refused(kwargs):
    with pytest.raises(ValueError):
        Vocabulary(**kwargs)


def test_good_vocabularies():
    assert DIRECTIONS.tokens == ("U", "D", "L", "R") and DIRECTIONS.symbols == "UDLR" and DIRECTIONS.runs
    assert DIRECTIONS.invalid_code == INVALID_CODE == 4 and len(HANOI) == 6 and HANOI.invalid_code == 6
    assert Vocabulary("XYZ").tokens == ("X", "Y", "Z") and Vocabulary(("X", "Y")).symbols == "XY"
    assert Vocabulary(("1", "2"), runs=True).symbols == "12"
    assert Vocabulary(("U", "D"), words={"dup": "D"}, runs=True).words == {"dup": "D"}  # "p" is no token letter


def test_equal_vocabularies_hash_alike_and_survive_pickling():
    again = Vocabulary(("U", "D", "L", "R"), words=dict(DIRECTIONS.words), glyphs=dict(DIRECTIONS.glyphs), runs=True)
    assert again == DIRECTIONS and hash(again) == hash(DIRECTIONS) and {again: 1}[DIRECTIONS] == 1
    assert Vocabulary(("U", "D", "L", "R")) != DIRECTIONS
    for v in VOCABULARIES.values():
        back = pickle.loads(pickle.dumps(v))
        assert back == v and hash(back) == hash(v)


def test_codes_and_symbols():
    assert HANOI.code_of_byte[ord("c")] == 2 and HANOI.code_of_byte[ord("C")] == HANOI.code_of_byte[ord("?")] == 6
    assert HANOI.symbol_of_code[:7] == b"abcdef?" and HANOI.symbol_of_code[200] == ord(INVALID_SYMBOL)
    assert HANOI.tokens_of("af?") == ["AB", "CB", "?"]
    assert HANOI.answer("af?") == "MOVES: AB, CB, ?" and HANOI.answer("") == "MOVES: "
    codes, offsets = GRID.encode(["1X", "", "9?é"])
    assert codes.tolist() == [0, 9, 8, 10, 10] and offsets.tolist() == [0, 2, 2, 5]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(sorted(VOCABULARIES)), st.data())
def test_encode_and_plan_strings_round_trip(name, data):
    v = VOCABULARIES[name]
    plans = data.draw(st.lists(st.text(alphabet=st.sampled_from(v.symbols + "?Z é"), max_size=12), max_size=8))
    codes, offsets = v.encode(plans)
    assert codes.dtype == np.uint8 and offsets.dtype == np.int64 and offsets.tolist()[-1] == len(codes)
    assert codes.tolist() == [v.symbols.index(c) if c in v.symbols else v.invalid_code for p in plans for c in p]
    stored = [p.translate({ord(c): INVALID_SYMBOL for c in p if c not in v.symbols}) for p in plans]
    out = v.plan_strings(codes, offsets)
    assert isinstance(out, pa.StringArray) and out.to_pylist() == stored
    assert v.plan_strings(*v.encode(stored)).to_pylist() == stored
    for plan in stored:  # a stored plan written as an exact answer reads back as itself
        assert both(v.answer(plan), v) == ParsedPlan(plan, EXACT, "", False)


# -- parsing with other tokens: hand-worked ----------------------------------------------------------
@pytest.mark.parametrize(
    "name, text, moves, mode, tags",
    [
        ("hanoi", "MOVES: AB, CB", "af", EXACT, ""),
        ("hanoi", "MOVES: AB,AC,BA,BC,CA,CB", "abcdef", EXACT, ""),
        ("hanoi", "Let me think.\nMOVES: AB, XY\nDone.", "a?", EXACT, ""),  # a token that is not an action: exact form
        ("hanoi", "MOVES: U, D", "??", EXACT, ""),  # directions are no Hanoi actions
        ("hanoi", "MOVES: ABCB", "?", EXACT, ""),  # one token (no runs), and not an action
        ("hanoi", "MOVES: ABCB, BA", "?c", EXACT, ""),
        ("hanoi", "MOVES: ab cb", "af", NORMALIZED, "case+separators"),
        ("hanoi", "MOVES: ab, Cb", "af", NORMALIZED, "case"),
        ("hanoi", "MOVES: AB CB", "af", NORMALIZED, "separators"),
        ("hanoi", "MOVES: AB; CB / BA", "afc", NORMALIZED, "separators"),
        ("hanoi", "MOVES: AB → CB -> BA", "afc", NORMALIZED, "separators"),  # "→" is no Hanoi glyph: a separator
        ("hanoi", "MOVES: [AB, BA].", "ac", NORMALIZED, "brackets+punctuation"),
        ("hanoi", "**MOVES:** `AB, BA`", "ac", NORMALIZED, "markup"),
        ("hanoi", "MOVES: AB (A to B), CB (3 moves)", "af", NORMALIZED, "comment"),
        ("hanoi", "MOVES: AB, ab, XY", "aa?", NORMALIZED, "case"),
        ("hanoi", "MOVES:\nAB, CB\nThat is all.", "af", NORMALIZED, "multiline"),
        ("hanoi", "MOVES: AB,\nCB", "af", NORMALIZED, "multiline+punctuation"),
        ("hanoi", "AB, CB", "af", NORMALIZED, "label"),
        ("hanoi", "```\nab cb\n```", "af", NORMALIZED, "case+fence+label+separators"),
        ("hanoi", "ABCB", "", NO_PLAN, ""),
        ("hanoi", "AB, XY", "", NO_PLAN, ""),
        ("hanoi", "I would move AB then CB.", "", NO_PLAN, ""),
        ("nine", "MOVES: A, B, I", "ABI", EXACT, ""),
        ("nine", "MOVES: ABC", "?", EXACT, ""),  # no runs: one token
        ("nine", "MOVES: J, A", "?A", EXACT, ""),
        ("nine", "MOVES: a b c", "ABC", NORMALIZED, "case+separators"),
        ("nine", "MOVES: alpha, India, B", "AIB", NORMALIZED, "words"),
        ("nine", "MOVES: A → B", "AB", NORMALIZED, "separators"),
        ("nine", "a, b", "AB", NORMALIZED, "case+label"),
        ("nine", "ABC", "", NO_PLAN, ""),
        ("nine", "a big idea", "", NO_PLAN, ""),  # only token letters and spaces, but not a list of them
        ("compass", "MOVES: N, S, E, W", "^v><", EXACT, ""),
        ("compass", "MOVES: NSEW", "^v><", NORMALIZED, "separators"),
        ("compass", "MOVES: nsEw", "^v><", NORMALIZED, "case+separators"),
        ("compass", "MOVES: n, s", "^v", NORMALIZED, "case"),
        ("compass", "MOVES: north, West", "^<", NORMALIZED, "words"),
        ("compass", "MOVES: ↑↓, ←", "^v<", NORMALIZED, "arrows"),
        ("compass", "MOVES: ↑, →", "^>", NORMALIZED, "arrows"),  # "→" is a glyph here ...
        ("compass", "MOVES: N → E", "^>", NORMALIZED, "separators"),  # ... but beside letters a separator
        ("compass", "MOVES: NSX, E", "?>", EXACT, ""),
        ("compass", "NS EW", "^v><", NORMALIZED, "label+separators"),
        ("grid", "MOVES: A1, A10, C3", "1X9", EXACT, ""),
        ("grid", "MOVES: A1A10", "?", EXACT, ""),
        ("grid", "MOVES: a10 c3", "X9", NORMALIZED, "case+separators"),
        ("grid", "MOVES: A1, A100", "1?", EXACT, ""),
        ("grid", "A1 / B2", "15", NORMALIZED, "label+separators"),
    ],
)
def test_hand_worked(name, text, moves, mode, tags):
    v = VOCABULARIES[name]
    assert both(text, v) == ParsedPlan(moves, mode, tags, False)
    strict = both(text, v, strict=True)
    assert strict == (
        ParsedPlan(moves, mode, tags, False) if mode != NORMALIZED else ParsedPlan("", NO_PLAN, tags, False)
    )
    col = parse_column([text], vocabulary=v)
    assert col.to_plans() == [parse_answer(text, False, v)] and col.vocabulary == v
    assert col.codes.tolist() == [v.symbols.index(c) if c in v.symbols else v.invalid_code for c in moves]


def test_the_last_label_counts():
    assert both("MOVES: AB\nMOVES: BA, CA", HANOI) == ParsedPlan("ce", EXACT, "", True)


def test_directions_are_the_default_and_a_directions_answer_is_no_hanoi_plan():
    text = "MOVES: U, D\n"
    assert parse_answer(text) == parse_answer(text, vocabulary=DIRECTIONS) == ParsedPlan("UD", EXACT, "", False)
    assert parse_plan(text) == parse_plan(text, vocabulary=DIRECTIONS)
    assert both("U D L", HANOI).mode == NO_PLAN and both("U D L", DIRECTIONS).moves == "UDL"
    assert parse_answers(["MOVES: ab", "MOVES: U"], vocabulary=HANOI) == [
        ParsedPlan("a", NORMALIZED, "case", False),
        ParsedPlan("?", EXACT, "", False),
    ]


def test_a_vocabulary_that_is_not_one_is_refused():
    for call in (
        lambda: parse_answer("MOVES: U", vocabulary="UDLR"),
        lambda: parse_plan("MOVES: U", vocabulary="UDLR"),
        lambda: parse_column(["MOVES: U"], vocabulary=("U", "D")),
    ):
        with pytest.raises(TypeError):
            call()


def test_the_column_parser_with_other_vocabularies(monkeypatch):
    texts = ["MOVES: AB, CB", None, "", "moves: ba", 3, "I give up.", "MOVES: AB, XY", b"MOVES: CA"]
    col = parse_column(pa.array([t if isinstance(t, str) or t is None else None for t in texts]), vocabulary=HANOI)
    assert col.compiled == 0 and col.plan_strings().to_pylist() == ["af", "", "", "c", "", "", "a?", ""]
    col = parse_column(texts, vocabulary=HANOI)
    assert col.to_plans() == parse_answers(texts, vocabulary=HANOI)
    assert col.codes.tolist() == [0, 5, 2, 0, HANOI.invalid_code, 4] and col.offsets.tolist() == [
        0,
        2,
        2,
        2,
        3,
        3,
        3,
        5,
        6,
    ]
    # the kernel reads a vocabulary equal to DIRECTIONS, built anew (in a column of any size)
    monkeypatch.setattr("fastspe.scoring.parse_column.REFERENCE_BYTES", -1)
    again = Vocabulary(("U", "D", "L", "R"), words=dict(DIRECTIONS.words), glyphs=dict(DIRECTIONS.glyphs), runs=True)
    assert parse_column(["MOVES: U, D"] * 3, vocabulary=again).compiled == 3
    assert parse_column(["MOVES: U, D"], vocabulary=COMPASS).to_plans() == [ParsedPlan("??", EXACT, "", False)]


# -- parsing with other tokens: fuzzed ---------------------------------------------------------------
def _glyph_of(v):
    out = {}
    for g, t in sorted(v.glyphs.items()):
        out.setdefault(t, g)
    return out


def _word_of(v):
    return {t: w for w, t in sorted(v.words.items())}


BODIES = {  # how a list of tokens may be written after its label (v: the vocabulary, p: the tokens)
    "exact": lambda v, p: ",".join(p),
    "spaced": lambda v, p: ", ".join(p),
    "tabs": lambda v, p: "\t" + " ,\t".join(p) + " \t",
    "lower": lambda v, p: ", ".join(t.lower() for t in p),
    "swapcase": lambda v, p: ", ".join(t.swapcase() if k % 2 else t for k, t in enumerate(p)),
    "spaces": lambda v, p: " ".join(p),
    "lower_spaces": lambda v, p: " ".join(p).lower(),
    "run": lambda v, p: "".join(p),
    "run_lower": lambda v, p: "".join(p).lower(),
    "semicolons": lambda v, p: ";".join(p),
    "pipes_slashes": lambda v, p: "/".join(p[:2]) + "|" + "|".join(p[2:]),
    "empty_items": lambda v, p: ",,".join(p),
    "leading_separator": lambda v, p: ";" + " ".join(p),
    "words": lambda v, p: ", ".join(_word_of(v).get(t, t) for t in p),
    "words_upper": lambda v, p: " ".join(_word_of(v).get(t, t).upper() for t in p),
    "glyphs": lambda v, p: " ".join(_glyph_of(v).get(t, t) for t in p),
    "glyph_run": lambda v, p: "".join(_glyph_of(v).get(t, "?") for t in p) + "\ufe0f",
    "right_arrow": lambda v, p: " → ".join(p),
    "right_arrow_glyphs": lambda v, p: " → ".join(_glyph_of(v).get(t, t) for t in p),
    "then": lambda v, p: " -> ".join(p),
    "double_arrow": lambda v, p: " => ".join(p) + " ⟶ " + p[0],
    "junk": lambda v, p: ", ".join([*p[:1], "X", "then", "9", p[0] + p[-1], *p[1:], "Zz", p[0] + "X"]),
    "junk_lower": lambda v, p: ", ".join(t.lower() for t in p) + ", Q",
    "brackets": lambda v, p: "[" + ", ".join(p) + "]",
    "wrapped_tokens": lambda v, p: "[" + "], [".join(p) + "]",
    "quoted": lambda v, p: '"' + ",".join(p) + '"',
    "curly_quoted": lambda v, p: "“" + ", ".join(p) + "”",
    "backticks": lambda v, p: "`" + ",".join(p) + "`",
    "bold": lambda v, p: "**" + ",".join(p) + "**",
    "markup_each": lambda v, p: " ".join("_" + t + "_" for t in p),
    "full_stop": lambda v, p: ",".join(p) + ".",
    "trailing_comma": lambda v, p: ",".join(p) + ",",
    "stacked_punctuation": lambda v, p: " ".join(p) + " ;. !",
    "trimmed_tokens": lambda v, p: " ".join(
        ("!", ":", "'", "{", "<")[k % 5] + t + (".", "}", ">", "!", "")[k % 5] for k, t in enumerate(p)
    ),
    "comment": lambda v, p: ",".join(p) + " (" + str(len(p)) + " moves)",
    "glosses": lambda v, p: ", ".join(t + " (" + t.lower() + ")" for t in p),
    "unclosed_paren": lambda v, p: ", ".join(p) + " (",
    "nbsp": lambda v, p: ",\xa0".join(p),
    "emoji": lambda v, p: ",".join(p) + " 🙂",
    "kelvin": lambda v, p: ", ".join(t.replace("K", "\u212a").replace("k", "\u212a") for t in p),
    "only_punctuation": lambda v, p: " .",
    "empty": lambda v, p: "",
}
LABELS = [
    "MOVES:",
    "MOVES: ",
    "  MOVES:",
    "MOVES :",
    "**MOVES:**",
    "MOVES**:",
    "# MOVES:",
    "- MOVES:",
    "Moves:",
    "moves:",
    "MOVE:",
    "`move`:",
    "Final answer: MOVES:",
    "Final answer: Moves:",
    "xMOVES:",
    "MoVeS :",
]
CHATTER = [
    "",
    "I reason first.\n",
    "Let me think step by step.\n\n",
    "Here are the moves: {t}\n",
    "```\n",
    "~~~\n",
    "MOVES: {t}, {t}\n",
    "Note: the tokens are {all}.\n",
    "Café, naïve, 🙂.\n",
    "  ```text\n",
]
AFTER = [
    "",
    "\n",
    "\n\nThat is the plan.",
    "\n{list}\n",
    "\n{list}",
    "\n\n  {lower}\nok",
    "\n```",
    "\n~~~",
    " (done)",
    "\nMOVES: {t}",
    "\n   \n\t\n",
    "\nI hope this helps 🙂",
]


def _fill(template, v, plan):
    return template.format(t=plan[0], all=", ".join(v.tokens), list=", ".join(plan), lower=" ".join(plan).lower())


@st.composite
def answers(draw, v):
    """One answer in vocabulary ``v``: chatter, a label with a body, more text; or prose, or a bare list; or noise."""
    plan = draw(st.lists(st.sampled_from(v.tokens), min_size=1, max_size=8))
    body = BODIES[draw(st.sampled_from(sorted(BODIES)))](v, plan)
    kind = draw(st.sampled_from(["labelled", "labelled", "labelled", "bare", "bare", "prose", "soup", "noise"]))
    if kind == "labelled":
        text = (
            _fill(draw(st.sampled_from(CHATTER)), v, plan)
            + draw(st.sampled_from(LABELS))
            + body
            + _fill(draw(st.sampled_from(AFTER)), v, plan)
        )
    elif kind == "bare":
        text = (
            draw(st.sampled_from(["", "```\n", "```text\n", "  "])) + body + draw(st.sampled_from(["", "\n```", "\n"]))
        )
    elif kind == "prose":
        text = _fill(draw(st.sampled_from(CHATTER)), v, plan) + draw(
            st.sampled_from(
                ["I cannot solve this.", "No plan exists", "hold on", "1. {t}\n2. {t}".format(t=plan[0]), "a bad deed"]
            )
        )
    elif kind == "soup":  # characters the format gives a meaning to, and the vocabulary's own, in any order
        chars = sorted(
            set(
                "".join(v.tokens)
                + "".join(v.tokens).lower()
                + "".join(v.words)
                + "".join(v.glyphs)
                + 'MOVESmoves:Xx,;/|→↑-> \t\n`*_~#[]().!"\xa0'
            )
        )
        text = "".join(
            draw(st.lists(st.sampled_from(chars) | st.sampled_from([*v.tokens, *LABELS, body]), max_size=30))
        )
    else:
        text = draw(st.text(max_size=40))
    return draw(st.sampled_from([text, text.replace("\n", "\r\n"), text.replace("\n", "\r")]))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(VOCABULARIES))
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_reference_and_verifier_agree(name, data):
    v = VOCABULARIES[name]
    texts = data.draw(st.lists(answers(v), min_size=1, max_size=10))
    for strict in (False, True):
        plans = [both(t, v, strict) for t in texts]
        for p in plans:
            assert set(p.moves) <= set(v.symbols + INVALID_SYMBOL)
            assert p.mode in (EXACT, NORMALIZED, NO_PLAN) and (p.mode != NO_PLAN or p.moves == "")
        assert parse_column(texts, strict, v).to_plans() == plans


@pytest.mark.parametrize("name", sorted(VOCABULARIES))
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_renderings_read_back(name, data):
    """A plan written exactly, in lower case, spaced or wrapped reads back as its symbols, with the right tags."""
    v = VOCABULARIES[name]
    plan = data.draw(st.lists(st.sampled_from(v.tokens), min_size=2, max_size=12))
    symbols = "".join(v.symbols[v.tokens.index(t)] for t in plan)
    assert both("MOVES: " + ", ".join(plan), v) == ParsedPlan(symbols, EXACT, "", False)
    lower = both("MOVES: " + " ".join(plan).lower(), v)
    has_case = any(t.lower() != t for t in plan)
    assert (lower.moves, lower.mode, lower.normalization) == (
        symbols,
        NORMALIZED,
        "case+separators" if has_case else "separators",
    )
    fenced = both("```\n[" + ", ".join(plan) + "]\n```", v)
    assert (fenced.moves, fenced.normalization) == (symbols, "brackets+fence+label")
    run = both("MOVES: " + "".join(plan), v)
    if v.runs:
        assert (run.moves, run.normalization) == (symbols, "separators")
    else:  # one token, which is no action: the form is exact
        assert (run.moves, run.mode) == ("?", EXACT)
