"""The items face: ``{question, answer, metadata}`` per bank row, and ``score_answer``, which is ``RewardScorer``'s
SPE term of one answer, from the items or from the item alone."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fastspe import RewardScorer
from fastspe.boundary.banks import as_bank
from fastspe.domains.registry import domain_named
from fastspe.errors import UserError, UserTypeError
from fastspe.hub import BankItems, bank_items, score_answer, write_items

DOMAINS = ("sliding", "sokoban", "hanoi")


@pytest.fixture(scope="module", params=DOMAINS)
def bank(request):
    return as_bank(domain_named(request.param).warm_bank())


@pytest.fixture(scope="module")
def items(bank):
    return BankItems(bank)


def answers_of(bank, seed: int = 0) -> tuple[list[str], list[str]]:
    """(board_ids, answers): every baseline's answers, and per board its certificate, cut short, with a move made
    twice, reversed, random moves, a word that is no move, after every two-move detour, and no plan at all."""
    domain, frame = bank.domain, bank.frame
    rng = np.random.default_rng(seed)
    tokens = list(domain.vocabulary.tokens)
    ids, texts = [], []
    for planner in domain.planners:
        baseline = domain.baseline_responses(frame, planner, trials=2, seed=seed)
        ids += baseline["board_id"].tolist()
        texts += baseline["response"].tolist()
    for row in frame.to_dict("records"):
        plan = domain.vocabulary.tokens_of(str(row[domain.certificate_column]))
        for moves in (
            plan,
            plan[:-1],
            plan[:1] + plan,
            plan[::-1],
            list(rng.choice(tokens, size=len(plan))),
            plan + ["X"],
        ):
            ids.append(row["board_id"])
            texts.append("MOVES: " + ", ".join(moves))
        for a in tokens:  # a detour first: legal and two moves long for some pairs (a move and its undoing)
            for b in tokens:
                ids.append(row["board_id"])
                texts.append("MOVES: " + ", ".join([a, b, *plan]))
        ids += [row["board_id"]] * 2
        texts += ["I cannot solve it.", ""]
    return ids, texts


def test_an_item_is_the_prompt_the_certificate_and_the_row(bank, items):
    domain = bank.domain
    assert len(items) == len(bank)
    for i, item in enumerate(items):
        row = bank.table.slice(i, 1).to_pylist()[0]
        assert set(item) == {"question", "answer", "metadata"}
        assert item["question"] == domain.render_prompt(row)
        assert item["answer"] == domain.vocabulary.answer(row[domain.certificate_column], separator=",")
        meta = item["metadata"]
        assert meta["domain"] == domain.name and meta["board_id"] == row["board_id"]
        assert {k: meta[k] for k in row} == row
        json.dumps(item)  # JSON values throughout


def test_items_are_deterministic(bank, items):
    again = BankItems(bank.table)
    assert list(items) == list(again) == bank_items(bank)
    assert items[-1] == items[len(items) - 1] and items[1:3] == [items[1], items[2]]
    tail = BankItems(bank.table.slice(len(bank) // 2))  # an item depends on its row alone
    assert list(tail) == list(items)[len(bank) // 2 :]
    with pytest.raises(IndexError):
        items[len(items)]


def test_the_certificate_scores_one(items):
    for item in items:
        assert items.score_answer(item["answer"], item) == 1.0
        assert score_answer(item["answer"], item) == 1.0


def test_score_answer_is_the_reward_scorer(bank, items):
    """Across every board and many kinds of answer, both faces give RewardScorer's spe exactly."""
    ids, texts = answers_of(bank)
    expected = RewardScorer(bank)(ids, texts).spe
    by_id = {item["metadata"]["board_id"]: item for item in items}
    got = np.array([items.score_answer(t, by_id[i]) for i, t in zip(ids, texts)])
    alone = np.array([score_answer(t, by_id[i]) for i, t in zip(ids, texts)])
    assert np.array_equal(got, expected) and np.array_equal(alone, expected)
    assert (expected == 0).any() and (expected == 1).any()
    assert ((expected > 0) & (expected < 1)).any(), "some complete plans are longer than d*"


def test_an_illegal_plan_scores_zero(bank, items):
    """One action made over and over leaves every board (a wall, the edge, a disk on a smaller one): illegal, 0."""
    answer = "MOVES: " + ",".join([bank.domain.vocabulary.tokens[0]] * 40)
    ids = [item["metadata"]["board_id"] for item in items]
    rewards = RewardScorer(bank)(ids, [answer] * len(ids))
    assert (rewards.status == 2).all()
    assert [score_answer(answer, item) for item in items] == [0.0] * len(items)


def test_no_answer_and_bad_types(items):
    item = items[0]
    assert score_answer(None, item) == 0.0 and items.score_answer(None, item) == 0.0
    with pytest.raises(UserTypeError, match="answer must be a str"):
        score_answer(b"MOVES: U", item)
    with pytest.raises(UserTypeError, match="item must be a mapping"):
        score_answer("MOVES: U", "not an item")
    with pytest.raises(UserError, match="no board_id"):
        score_answer("MOVES: U", {"metadata": {}})


def test_an_item_of_another_bank_is_refused(bank, items):
    other = dict(items[0])
    other["question"] = other["question"] + " (another bank's board)"
    with pytest.raises(UserError, match="not the prompt this bank gives"):
        items.score_answer(other["answer"], other)


def test_items_read_back_from_jsonl_score_alone(bank, items, tmp_path):
    path = tmp_path / "items.jsonl"
    assert write_items(items, path) == len(items)
    read = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert read == list(items)
    assert [score_answer(item["answer"], item) for item in read] == [1.0] * len(read)


def test_options_are_checked_and_passed_on(bank, items):
    with pytest.raises(UserError, match="parse must be one of"):
        BankItems(bank, parse="loose")
    with pytest.raises(UserError, match="format_failure must be one of"):
        BankItems(bank, format_failure="zero")
    strict = BankItems(bank, parse="strict")
    item = items[0]
    sloppy = item["answer"].replace("MOVES:", "moves:")
    assert items.score_answer(sloppy, item) == 1.0 and strict.score_answer(sloppy, item) == 0.0
    assert (
        strict.score_answer(sloppy, item)
        == RewardScorer(bank, parse="strict")([item["metadata"]["board_id"]], [sloppy]).spe[0]
    )
