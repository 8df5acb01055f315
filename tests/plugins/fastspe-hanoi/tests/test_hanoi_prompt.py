"""The prompt: its version and hash pinned (a change of wording must change both on purpose), and what it shows."""

from __future__ import annotations

import pytest

from fastspe.domains.contract import prompt_hash
from fastspe.errors import UserError
from fastspe_hanoi import DOMAIN
from fastspe_hanoi.prompt import PROMPT_TEMPLATE, RULE_TEXT, pegs_drawing, render_prompt

PINNED_SHA256 = "68ba5ac2d60eedb2d4f2354d41eecee96956aa8fe01d598e8b2fdfd429e7916e"


def test_the_version_and_hash_are_pinned():
    assert DOMAIN.prompt_version == "hanoi/1"
    assert DOMAIN.prompt_sha256 == PINNED_SHA256
    assert DOMAIN.prompt_sha256 == prompt_hash(PROMPT_TEMPLATE + "".join(f"\n{k}: {v}" for k, v in RULE_TEXT.items()))


def test_a_rendered_prompt():
    text = DOMAIN.render_prompt({"start": "CAB", "rule": "adjacent", "disks": 3})
    assert text == render_prompt("CAB", "adjacent")
    assert text.startswith("You are solving a Tower of Hanoi puzzle with 3 disks on three pegs A, B and C.\n")
    assert RULE_TEXT["adjacent"] in text and RULE_TEXT["classic"] not in text
    assert text.endswith(
        "Initial pegs (bottom to top):\nA: 2\nB: 3\nC: 1\nGoal pegs (bottom to top):\nA: -\nB: -\nC: 3 2 1"
    )
    assert "Return only MOVES: followed by comma-separated moves (AB, AC, BA, BC, CA, CB)." in text


def test_drawings_and_bad_states():
    assert pegs_drawing("AAAA") == "A: 4 3 2 1\nB: -\nC: -"
    with pytest.raises(UserError, match="peg letters"):
        render_prompt("ABD", "classic")
    with pytest.raises(UserError, match="rule must be one of"):
        render_prompt("ABC", "diagonal")


def test_prompts_of_a_bank_frame_follow_its_rows():
    frame = DOMAIN.bank_frame(DOMAIN.demo_bank())
    texts = DOMAIN.prompts(frame)
    assert len(texts) == len(frame) and texts[1] == render_prompt(frame["start"][1], frame["rule"][1])
