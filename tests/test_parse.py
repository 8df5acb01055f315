"""Answer parsing: one hand-worked example per mode and normalization, and fuzzing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastspe.scoring.parse_reference import EXACT, NO_PLAN, NORMALIZED, ParsedPlan, parse_answer, parse_answers


@pytest.mark.parametrize(
    "text, moves",
    [
        ("MOVES: U,D,L,R", "UDLR"),
        ("MOVES: U, D, L, R", "UDLR"),
        ("MOVES:U", "U"),
        ("I reason first.\nMOVES: L,L,U\n\nThat is 3 moves.", "LLU"),
        ("MOVES: U, X, D", "U?D"),  # a token that is not a move stays in place as "?"
    ],
)
def test_exact(text, moves):
    p = parse_answer(text)
    assert p == ParsedPlan(moves, EXACT, "", False)
    assert parse_answer(text, strict=True) == p


def test_exact_is_the_form_and_a_token_that_is_not_a_move_stays_in_place():
    # comma-separated tokens after the label: exact even in strict mode, the non-moves kept as "?"
    for text, moves in (("MOVES: U, X, D", "U?D"), ("MOVES: then, R, 9", "?R?")):
        assert parse_answer(text, strict=True) == parse_answer(text) == ParsedPlan(moves, EXACT, "", False)
    # without the commas the form itself needed normalizing
    assert parse_answer("MOVES: U X D", strict=True) == ParsedPlan("", NO_PLAN, "separators", False)


@pytest.mark.parametrize("text", ["MOVES:", "MOVES:   ", "MOVES:\n\nI could not find a plan."])
def test_bare_label_is_an_exact_empty_plan(text):
    assert parse_answer(text) == ParsedPlan("", EXACT, "", False)


@pytest.mark.parametrize(
    "text, moves, tags",
    [
        ("moves: u, d, l", "UDL", "case"),
        ("MOVES: u,d", "UD", "case"),
        ("MOVES: UDLR", "UDLR", "separators"),
        ("MOVES: U D L R", "UDLR", "separators"),
        ("MOVES: U;D;L", "UDL", "separators"),
        ("MOVES: U -> D -> L", "UDL", "separators"),
        ("MOVES: U → D → L", "UDL", "separators"),
        ("MOVES: up, down, Left, RIGHT", "UDLR", "words"),
        ("MOVES: ↑, ↓, ←, →", "UDLR", "arrows"),
        ("MOVES: ↑↑←→", "UULR", "arrows"),
        ("**MOVES:** U, D", "UD", "markup"),
        ("MOVES: `U, D`", "UD", "markup"),
        ("MOVES: [U, D, L]", "UDL", "brackets"),
        ("MOVES: U, D, L.", "UDL", "punctuation"),
        ("MOVES: U, D, L (3 moves)", "UDL", "comment"),
        ("MOVES: U (blank up), L (blank left)", "UL", "comment"),
        ("```\nMOVES: U,D\n```", "UD", "fence"),
        ("Final answer: MOVES: U,D", "UD", "inline"),
        ("MOVES:\nU, D, L", "UDL", "multiline"),
        ("Move: U, D", "UD", "label"),
        ("U,D,L", "UDL", "label"),
        ("```text\nU, D\n```", "UD", "fence+label"),
        ("U D L", "UDL", "label+separators"),
    ],
)
def test_normalized(text, moves, tags):
    p = parse_answer(text)
    assert (p.moves, p.mode, p.normalization) == (moves, NORMALIZED, tags)
    strict = parse_answer(text, strict=True)
    assert (strict.moves, strict.mode, strict.normalization) == ("", NO_PLAN, tags)


def test_continuation_after_trailing_comma():
    p = parse_answer("MOVES: U, D,\nL, R\nThat is all.")
    assert p.moves == "UDLR" and p.mode == NORMALIZED and "multiline" in p.normalization.split("+")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "I cannot solve this puzzle.",
        "Move the blank up then left.",
        "1. U\n2. D",
        None,
        3.5,
        ["U"],
        b"\xff\xfe",
    ],
)
def test_no_plan(text):
    assert parse_answer(text) == ParsedPlan("", NO_PLAN, "", False)


def test_prose_with_moves_colon_mid_line_is_not_a_label():
    # lower-case "moves:" only counts at the start of a line
    assert parse_answer("Here are the moves: up, then left").mode == NO_PLAN


def test_last_moves_line_counts_and_is_flagged():
    p = parse_answer("MOVES: U,U\nWait, that is wrong.\nMOVES: L,R")
    assert p == ParsedPlan("LR", EXACT, "", True)
    p = parse_answer("MOVES: U,U\nMOVES:")
    assert p == ParsedPlan("", EXACT, "", True)


def test_letters_and_words_cannot_be_confused():
    # "UD" splits into letters, "up" is a word; a run with any other letter is not a move
    assert parse_answer("MOVES: UD up").moves == "UDU"
    assert parse_answer("MOVES: UDX, L").moves == "?L"


def test_long_plans():
    plan = "UDLR" * 25_000
    assert parse_answer("MOVES: " + ",".join(plan)).moves == plan
    assert parse_answer("MOVES: " + " ".join(plan.lower())).moves == plan


def test_parse_answers_is_elementwise():
    texts = ["MOVES: U", "nothing", "moves: d"]
    assert parse_answers(texts) == [parse_answer(t) for t in texts]


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_never_raises_on_any_text(text):
    p = parse_answer(text)
    assert isinstance(p, ParsedPlan) and p.mode in (EXACT, NORMALIZED, NO_PLAN)
    assert set(p.moves) <= set("UDLR?")
    if p.mode == NO_PLAN:
        assert p.moves == ""


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("MOVESmoves:UDLRudlr,;→↑ \n`*[]().-"))))
def test_never_raises_on_plan_like_text(text):
    p = parse_answer(text)
    assert p.mode in (EXACT, NORMALIZED, NO_PLAN)
    strict = parse_answer(text, strict=True)
    assert strict.mode != NORMALIZED
    if p.mode == EXACT:
        assert strict == p


_RENDER = {
    "words": lambda m: ", ".join({"U": "up", "D": "down", "L": "left", "R": "right"}[c] for c in m),
    "arrows": lambda m: " ".join({"U": "↑", "D": "↓", "L": "←", "R": "→"}[c] for c in m),
    "separators": lambda m: " ".join(m),
    "case": lambda m: ",".join(m.lower()),
}


@settings(max_examples=150, deadline=None)
@given(
    st.text(alphabet="UDLR", min_size=2, max_size=80),
    st.sampled_from(sorted(_RENDER)),
    st.sampled_from(["", "Some thoughts.\n", "```\n"]),
)
def test_renderings_round_trip(moves, style, prefix):
    exact = parse_answer(prefix + "MOVES: " + ",".join(moves))
    assert exact.moves == moves
    assert exact.mode == (NORMALIZED if prefix.startswith("```") else EXACT)
    p = parse_answer(prefix + "MOVES: " + _RENDER[style](moves))
    assert p.moves == moves and p.mode == NORMALIZED and style in p.normalization.split("+")
