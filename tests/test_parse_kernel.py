"""The compiled column parser gives exactly what the reference parser gives, answer by answer."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastspe.domains.sliding.kernels.replay import INVALID_CODE
from fastspe.scoring.parse_reference import parse_answer
from fastspe.scoring import parse_column as parse_column_module
from fastspe.scoring.parse_column import MODE_EXACT, MODE_NAMES, MODE_NO_PLAN, moves_strings, parse_column

from . import test_parse
from .threads import digests_by_thread_count


@pytest.fixture(autouse=True, scope="module")
def _the_kernel_reads_every_column():
    """Every column here goes through the compiled pass, however small (one of REFERENCE_BYTES or less would be
    read by the reference alone: test_a_small_column_is_read_by_the_reference_alone_with_the_same_result)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(parse_column_module, "REFERENCE_BYTES", -1)
        yield


def reference(texts, strict):
    return [parse_answer(t, strict) for t in texts]


def assert_same_as_reference(texts, strict=None):
    """parse_column(texts) equals parse_answer on each item, lenient and strict (or the one given)."""
    for s in (False, True) if strict is None else (strict,):
        col = parse_column(texts, strict=s)
        assert col.to_plans() == reference(list(texts), s)
        assert col.offsets.dtype == np.int64 and col.codes.dtype == np.uint8 and col.mode.dtype == np.int8
        assert len(col.offsets) == len(col) + 1 and col.offsets[-1] == len(col.codes)


def _literal_texts():
    """Every text given to a parametrized test of tests/test_parse.py."""
    texts = []
    for name in dir(test_parse):
        for mark in getattr(getattr(test_parse, name), "pytestmark", []):
            if mark.name == "parametrize" and mark.args[0].split(",")[0].strip() == "text":
                texts += [v[0] if isinstance(v, tuple) else v for v in mark.args[1]]
    return texts


LITERALS = _literal_texts()
# the texts of the tests of tests/test_parse.py that are not parametrized
OTHER_LITERALS = [
    "MOVES: U, D,\nL, R\nThat is all.",
    "Here are the moves: up, then left",
    "MOVES: U,U\nWait, that is wrong.\nMOVES: L,R",
    "MOVES: U,U\nMOVES:",
    "MOVES: UD up",
    "MOVES: UDX, L",
    "MOVES: " + ",".join("UDLR" * 25_000),
    "MOVES: " + " ".join("udlr" * 25_000),
    "MOVES: U",
    "nothing",
    "moves: d",
]


@pytest.mark.slow
@pytest.mark.parametrize("strict", [False, True])
def test_a_small_column_is_read_by_the_reference_alone_with_the_same_result(monkeypatch, strict):
    """A column of at most REFERENCE_BYTES bytes skips the compiled pass: every array of the result is the one the
    kernel gives, dtype and bytes (only ``compiled``, how many answers the kernel decided, differs)."""
    texts = LITERALS + OTHER_LITERALS[:6] + [None, "", "MOVES: u,d", "\u00e9 MOVES: U"]
    kernel = parse_column(texts, strict=strict)
    monkeypatch.setattr(parse_column_module, "REFERENCE_BYTES", 1 << 30)
    small = parse_column(texts, strict=strict)
    assert kernel.compiled > len(texts) // 2 and small.compiled == 0
    for name in ("codes", "offsets", "mode", "normalization_code", "multiple"):
        a, b = getattr(kernel, name), getattr(small, name)
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), name
    assert kernel.normalization_names == small.normalization_names and kernel.vocabulary == small.vocabulary


def test_literals_of_the_reference_tests():
    assert len(LITERALS) >= 40 and "MOVES: U, X, D" in LITERALS
    assert_same_as_reference(LITERALS + OTHER_LITERALS)


# -- fuzz: answers composed from the pieces models write -------------------------------------------
MOVES = st.text(alphabet="UDLR", min_size=1, max_size=12)
WORDS = {"U": "up", "D": "down", "L": "left", "R": "Right"}
ARROWS = {"U": "↑", "D": "↓", "L": "←", "R": "→"}
BODIES = {  # how a list of moves may be written after its label
    "exact": lambda m: ",".join(m),
    "spaced": lambda m: ", ".join(m),
    "tabs": lambda m: "\t" + " ,\t".join(m) + " \t",
    "lower": lambda m: ", ".join(m.lower()),
    "spaces": lambda m: " ".join(m),
    "run": lambda m: m,
    "semicolons": lambda m: ";".join(m),
    "arrows": lambda m: " ".join(ARROWS[c] for c in m),
    "arrow_run": lambda m: "".join(ARROWS[c] for c in m),
    "words": lambda m: ", ".join(WORDS[c] for c in m),
    "then": lambda m: " -> ".join(m),
    "tokens": lambda m: ", ".join(m[:1] + "X" + m[1:] + "9"),
    "junk_tokens": lambda m: ", ".join([*m, "then", "Up1", "UDX", "ud", "Xy"]),
    "brackets": lambda m: "[" + ", ".join(m) + "]",
    "quoted": lambda m: '"' + ",".join(m) + '"',
    "backticks": lambda m: "`" + ",".join(m) + "`",
    "bold": lambda m: "**" + ",".join(m) + "**",
    "full_stop": lambda m: ",".join(m) + ".",
    "trailing_comma": lambda m: ",".join(m) + ",",
    "empty_items": lambda m: ",,".join(m),
    "comment": lambda m: ",".join(m) + " (" + str(len(m)) + " moves)",
    "glosses": lambda m: ", ".join(c + " (" + WORDS[c] + ")" for c in m),
    "nbsp": lambda m: ",\xa0".join(m),
    "unicode_space_end": lambda m: ",".join(m) + "\x85",
    "ascii_space_end": lambda m: "\x0b" + ",".join(m) + "\x1c\x0c",
    "vertical_tab_inside": lambda m: " \x0b, ".join(m),
    "emoji": lambda m: ",".join(m) + " 🙂",
    "bold_semicolon": lambda m: "**" + " ".join(m) + "**;",
    "code_full_stop": lambda m: "`" + " ".join(m.lower()) + "`.",
    "stacked_punctuation": lambda m: " ".join(m) + " ;. !",
    "leading_separator": lambda m: ";" + " ".join(m),
    "pipes_slashes": lambda m: "/".join(m[:2]) + "|" + "|".join(m[2:]),
    "comma_semicolon": lambda m: ",".join(m) + ",;",
    "tilde": lambda m: "~" + ",".join(m) + "~",
    "markup_inside": lambda m: "*".join(m),
    "markup_each": lambda m: " ".join("_" + c + "_" for c in m),
    "paren_end": lambda m: ",".join(m) + " )",
    "paren_start": lambda m: "(" + " ".join(m),
    "quote_end": lambda m: " ".join(m) + '"',
    "markup_then_bracket": lambda m: "*[" + ",".join(m) + "]*",
    "tokens_lower": lambda m: ", ".join(m.lower()) + ", X",
    "digits": lambda m: ", ".join(m) + ", 3, 42",
    "words_letters": lambda m: ", ".join(WORDS[c] if k % 2 else c.lower() for k, c in enumerate(m)),
    "trimmed_tokens": lambda m: " ".join(
        ("!", ":", "'", "{", "<")[k % 5] + c + (".", "}", ">", "!", "")[k % 5] for k, c in enumerate(m)
    ),
    "dots_between": lambda m: " . ".join(m) + " U.D",
    "odd_separators": lambda m: "\x0b,".join(m) + " ;, " + "/".join(WORDS[c].upper() for c in m),
    "leading_comma": lambda m: ", " + ", ".join(WORDS[c] for c in m),
    "double_arrow": lambda m: " => ".join(m),
    "unclosed_paren": lambda m: ", ".join(m) + " (",
    "gloss_inside": lambda m: m[0] + " (first) " + " ".join(m[1:]) + " X",
    "trailing_pipe": lambda m: ", ".join(m) + ", X |",
    "wrapped_tokens": lambda m: "[" + "], [".join(m) + "]",
    "only_punctuation": lambda m: " .",
    "only_markup": lambda m: "**",
    "empty": lambda m: "",
    "blank": lambda m: "  \t",
}
LABELS = [
    "MOVES:",
    "MOVES: ",
    "MOVES :",
    "MOVES\t:",
    "  MOVES:",
    "\tMOVES: ",
    "**MOVES:**",
    "**MOVES**:",
    "MOVES**:",
    "MOVES````:",
    "__MOVES__:",
    "# MOVES:",
    "- MOVES:",
    "> MOVES:",
    "Moves:",
    "moves:",
    "MOVE:",
    "move:",
    "Final answer: MOVES:",
    "Final answer: Moves:",
    "Moves**:",
    "`moves`:",
    "*move*:",
    "## MOVES:",
    "MOVES___:",
    "xMOVES:",
    "éMOVES:",
    "1MOVES:",
    "```MOVES:",
    "MoVeS :",
]
CHATTER = [
    "",
    "I reason first.\n",
    "xMOVES: U\n",
    "1MOVES: D, D\n",
    "MOVES````: L\n",
    "The moves: U\n",
    " - moves: R\n",
    "Let me think step by step.\n\n",
    "The blank is at (2, 3); tiles 5 and 7 swap.\n",
    "Here are the moves: up, then left\n",
    "Note: the moves are U, D, L, R.\n",
    "Moves so far: 3\n",
    "Café, naïve, 🙂 emoji.\n",
    "\xa0\n",
    "\u2028",
    "\x85\n",
    "```python\nprint('x')\n```\n",
    "```\n",
    "```\n> ```\n",
    " ~~~\n- ```\n",
    "Use ``` here\n",
    "~~~\n",
    "  ```text\n",
    "MOVES: U, U\n",
    "Wait.\n",
    "up down left right\n",
    "U D L R\n",
    "\n\n",
    "hug\n",
]
AFTER = [
    "",
    "\n",
    "\n\nThat is the plan.",
    "\nL, R\n",
    "\nL, R",
    "\n\n  D, L\nok",
    "\n```",
    "\n```\n",
    "\n~~~",
    "\n   \n\t\n",
    "\nMOVES: D",
    "\n\x0c\n",
    "\n\xa0",
    "\nup",
    " (done)",
    "\nI hope this helps 🙂",
]


LINE_BREAKS = {
    "lf": lambda t: t,
    "crlf": lambda t: t.replace("\n", "\r\n"),
    "cr": lambda t: t.replace("\n", "\r"),
    "mixed": lambda t: t.replace("\n", "\r\n", 1).replace("\n\n", "\r\r"),
}


def test_every_label_body_and_ending():
    """The product of the pieces, chatter and line breaks taking turns: every single feature is met."""
    texts = []
    for i, (label, body, after) in enumerate(itertools.product(LABELS, sorted(BODIES), AFTER)):
        text = CHATTER[i % len(CHATTER)] + label + BODIES[body]("UDLRU"[: 1 + i % 5]) + after
        texts.append(LINE_BREAKS[sorted(LINE_BREAKS)[i // len(CHATTER) % len(LINE_BREAKS)]](text))
    assert_same_as_reference(texts)


@st.composite
def answers(draw):
    """One answer: chatter, a label with a body, more text; or prose, or a bare list; or noise."""
    kind = draw(st.sampled_from(["labelled", "labelled", "labelled", "prose", "bare", "noise", "soup"]))
    moves = draw(MOVES)
    if draw(st.integers(0, 19)) == 0:  # a huge answer
        moves = moves * draw(st.integers(200, 600))
    body = BODIES[draw(st.sampled_from(sorted(BODIES)))](moves)
    if kind == "labelled":
        label = draw(st.sampled_from(["MOVES:", "MOVES: ", "  MOVES:"]) | st.sampled_from(LABELS))
        text = (
            draw(st.sampled_from(CHATTER))
            + draw(st.sampled_from(CHATTER))
            + label
            + body
            + draw(st.sampled_from(AFTER))
        )
    elif kind == "prose":
        text = draw(st.sampled_from(CHATTER)) + draw(
            st.sampled_from(["I cannot solve this.", "No plan exists", "hold on", "1. U\n2. D"])
        )
    elif kind == "bare":
        text = (
            draw(st.sampled_from(["", "```\n", "```text\n", "  "])) + body + draw(st.sampled_from(["", "\n```", "\n"]))
        )
    elif kind == "noise":
        text = draw(st.text(max_size=60))
    else:  # pieces in any order, noise among them
        pieces = st.sampled_from(CHATTER + LABELS + AFTER + [BODIES[k](moves) for k in sorted(BODIES)]) | st.text(
            max_size=8
        )
        text = "".join(draw(st.lists(pieces, max_size=8)))
    return LINE_BREAKS[draw(st.sampled_from(["lf", "lf", "lf", "crlf", "cr", "mixed"]))](text)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(answers(), min_size=5, max_size=40))
def test_fuzz_composed_answers(texts):
    assert_same_as_reference(texts)


PLAN_PIECES = list("MOVESmoves:UDLRudlrXx,;→↑ \t\n\r`*_~#>-[]().") + ["\x0b", "\x1c", "\x85", "\xa0", "é", "🙂", "```"]


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(PLAN_PIECES), max_size=40).map("".join) | st.text(max_size=20), max_size=20))
def test_fuzz_plan_like_noise(texts):
    assert_same_as_reference(texts)


COMPACT_NEAR_MISSES = ["", ",", ",,", " ", "u", "X", "UD", ".", "\n", ", "]


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            MOVES,
            st.integers(0, 40),
            st.sampled_from(COMPACT_NEAR_MISSES),
            st.sampled_from(["MOVES: ", "MOVES:", "Plan first.\nMOVES: ", "moves: "]),
            st.sampled_from(["", "\n", " ", ".", ","]),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_compact_lists_and_their_near_misses(items):
    """``U,D,L`` lists (read in one pass by ``kernels.parse_list.comma_letters``) and the same lists with one
    byte put in, taken out or a letter swapped for another piece: the kernel agrees with the reference."""
    texts = []
    for moves, at, piece, label, after in items:
        body = ",".join(moves)
        at = min(at, len(body))
        texts.append(label + body + after)
        texts.append(label + body[:at] + piece + body[at + 1 :] + after)
    assert_same_as_reference(texts)
    compact = [t for t, (m, *_rest) in zip(texts[::2], items) if t == "MOVES: " + ",".join(m)]
    assert parse_column(compact).compiled == len(compact)


def test_the_kernel_decides_exact_answers_and_prose_alone():
    rng = np.random.default_rng(0)
    plans = ["".join(rng.choice(list("UDLR"), size=int(rng.integers(1, 80)))) for _ in range(300)]
    exact = [f"Let me think about tile {i}.\n\nMOVES: " + ", ".join(p) + "\n\nDone." for i, p in enumerate(plans)]
    prose = [f"I could not find a plan for board {i}, sorry." for i in range(300)]
    for texts in (exact, prose, exact + prose):
        col = parse_column(texts)
        assert col.compiled == len(texts)
        assert col.to_plans() == reference(texts, False)
    assert parse_column(exact).mode.tolist() == [MODE_EXACT] * 300
    assert parse_column(prose).mode.tolist() == [MODE_NO_PLAN] * 300


@pytest.mark.parametrize(
    "text, codes",
    [
        ("MOVES: U, X, D", [0, INVALID_CODE, 1]),  # a token that is not a move: still the exact form
        ("MOVES: U,D\nMOVES: L, R", [2, 3]),
        ("MOVES:", []),
        ("MOVES: then, R", [INVALID_CODE, 3]),
        ("moves: u, d", [0, 1]),  # the normalizations of labels and letter lists
        ("**MOVES:** U D L R.", [0, 1, 2, 3]),
        ("MOVES: **U D**", [0, 1]),
        ("Final answer: MOVES: udlr", [0, 1, 2, 3]),
        ("```\nMOVE: `U;D`", [0, 1]),
        ("MOVES: up, Down; L", [0, 1, 2]),  # the token-by-token reading
        ("MOVES: U, [D], x. ud", [0, 1, INVALID_CODE, 0, 1]),
    ],
)
def test_the_kernel_decides_these_and_agrees(text, codes):
    for strict in (False, True):
        col = parse_column([text, text], strict=strict)
        assert col.compiled == 2 and col.to_plans() == reference([text] * 2, strict)
    assert parse_column([text, text]).codes.tolist() == codes * 2


@pytest.mark.parametrize(
    "text",
    [
        "MOVES:\nU, D",
        "MOVES: U,\nD",
        "hud",
        "MOVES: U,\xa0D",
        "MOVES: [U, D]",
        "MOVES: U (up)",
        "MOVES: ↑↓",
        "MOVES: U -> D",
    ],
)
def test_what_the_kernel_cannot_prove_goes_to_the_reference(text):
    col = parse_column([text])
    assert col.compiled == 0 and col.to_plans() == reference([text], False)


# -- inputs ----------------------------------------------------------------------------------------
ODD = ["MOVES: U,D", None, "", 3.5, float("nan"), ["U"], b"MOVES: L", b"\xff\xfe", "\ud800 MOVES: U", "moves: r", 7]


def test_nulls_and_items_that_are_not_text_are_what_the_reference_says():
    assert_same_as_reference(ODD)
    col = parse_column(ODD)
    assert col.compiled == 4  # "MOVES: U,D", None, "" and "moves: r": the rest are not str or not UTF-8


def test_a_column_of_str_with_one_that_is_not_utf8():
    texts = ["MOVES: U", "\ud800 MOVES: D", "moves: l"]
    col = parse_column(texts)
    assert col.to_plans() == reference(texts, False) and col.compiled == 2


def test_an_empty_column():
    for texts in ([], pa.array([], type=pa.string()), pa.chunked_array([], type=pa.large_string())):
        col = parse_column(texts)
        assert len(col) == 0 and col.offsets.tolist() == [0] and len(col.codes) == 0 and col.compiled == 0


TEXTS = [
    "MOVES: U,D",
    None,
    "",
    "I think.\nMOVES: L, R, X",
    "moves: u",
    "**MOVES:** D",
    "prose here",
    "MOVES:",
    "hold up",
]


def _slices(arr: pa.Array, cuts: list[int]) -> pa.ChunkedArray:
    return pa.chunked_array([arr.slice(a, b - a) for a, b in zip(cuts[:-1], cuts[1:])], type=arr.type)


@pytest.mark.parametrize(
    "make",
    [
        lambda t: pa.array(t, type=pa.string()),
        lambda t: pa.array(t, type=pa.large_string()),
        lambda t: pa.array(t, type=pa.string_view()),
        lambda t: pa.chunked_array([pa.array(t[:3]), pa.array(t[3:], type=pa.string())]),
        lambda t: pa.chunked_array([pa.array(t[:5], type=pa.large_string()), pa.array(t[5:], type=pa.large_string())]),
        lambda t: pa.array(["x", "y", *t], type=pa.string()).slice(2),  # an offset into the buffers
        # back-to-back slices of one array (a scanned JSONL batch), read in place; from an offset; and with a gap
        lambda t: _slices(pa.array(t, type=pa.string()), [0, 2, 2, 6, len(t)]),
        lambda t: _slices(pa.array(["x", *t], type=pa.string()), [1, 4, len(t) + 1]),
        lambda t: pa.chunked_array([pa.array(["x", *t[:4]]).slice(1), pa.array(["y", "z", *t[4:]]).slice(2)]),
        lambda t: pd.Series(t, dtype=object),
        lambda t: np.array(t, dtype=object),
        tuple,
    ],
    ids=[
        "string",
        "large_string",
        "string_view",
        "chunked",
        "chunked_large",
        "sliced",
        "back_to_back",
        "back_to_back_offset",
        "slices_apart",
        "series",
        "ndarray",
        "tuple",
    ],
)
def test_input_kinds(make):
    col = parse_column(make(TEXTS))
    assert col.to_plans() == reference(TEXTS, False)
    assert col.compiled == len(TEXTS) - 1  # "hold up" might be a list of moves: the reference says


def test_a_null_whose_data_slot_is_not_empty_is_no_plan():
    valid = pa.py_buffer(np.packbits([1, 0, 1], bitorder="little"))
    offsets = pa.py_buffer(np.array([0, 4, 14, 17], dtype=np.int32))
    arr = pa.StringArray.from_buffers(3, offsets, pa.py_buffer(b"hmm.MOVES: U,Dok."), valid)
    assert arr.to_pylist() == ["hmm.", None, "ok."]
    assert parse_column(arr).to_plans() == reference(arr.to_pylist(), False)


def test_other_columns_and_single_answers_are_refused():
    with pytest.raises(TypeError):
        parse_column(pa.array([1, 2]))
    with pytest.raises(TypeError):
        parse_column("MOVES: U")


def test_moves_strings():
    codes = np.array([0, 1, 2, 3, INVALID_CODE, 3], dtype=np.uint8)
    offsets = np.array([0, 2, 2, 6], dtype=np.int64)
    out = moves_strings(codes, offsets)
    assert isinstance(out, pa.StringArray) and out.to_pylist() == ["UD", "", "LR?R"]
    assert moves_strings(np.empty(0, np.uint8), np.zeros(1, np.int64)).to_pylist() == []


def test_mode_names_are_the_reference_names():
    assert [MODE_NAMES[k] for k in (0, 1, 2)] == ["exact", "normalized", "no_plan"]


# -- threads ---------------------------------------------------------------------------------------
SCRIPT = """
import hashlib, numba, numpy as np
from fastspe.scoring.parse_column import parse_column
rng = np.random.default_rng(3)
forms = ["Think.\\nMOVES: {}", "MOVES: {}\\nMOVES: {}", "moves: {}", "**MOVES:** {}", "no plan {}", "{}"]
texts = [rng.choice(forms).format(", ".join(rng.choice(list("UDLRX"), size=rng.integers(0, 300))), "U")
         for _ in range(20_000)]
col = parse_column(texts)
h = hashlib.sha256()
for part in (col.codes, col.offsets, col.mode, col.multiple, "|".join(col.normalization).encode(), str(col.compiled).encode()):
    h.update(bytes(part))
print(numba.get_num_threads(), h.hexdigest())
"""


@pytest.mark.slow
def test_results_do_not_depend_on_threads():
    digests = digests_by_thread_count(SCRIPT)
    assert digests["1"] == digests["2"] and len(digests["1"]) == 64
