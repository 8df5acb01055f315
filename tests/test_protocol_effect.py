"""What the tool fixes (``stats.protocol_effect``, ``stats.protocol_names``): paired differences and plan changes
against a plain-Python twin on crafted verdicts, exact trial pairing, intervals from the report's bootstrap at any
thread count, and the pairs a report finds."""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastspe.boundary.errors import InputError
from fastspe.stats.intervals import ALL, draw_indices, pack_sums
from fastspe.stats.metrics import board_sums
from fastspe.stats.protocol_names import UNAIDED, condition_protocols, protocol_pairs
from fastspe.stats.protocol_effect import GROUPINGS, protocol_effects, tool_effect, tool_effect_json

from .naive_bootstrap import naive_bootstrap, naive_percentiles, synthetic_verdicts
from .threads import digests_by_thread_count

STATUSES = ("complete", "legal_noncompletion", "illegal")
BOARDS = [(f"b{i}", i % 2, 2 + i % 3) for i in range(6)]  # board_id, k, depth: three depths, two strata each


def verdict_row(condition, board, trial, status, extra, calls=None, k=0, depth=2, cohort="primary"):
    """One consistent verdict row: a complete plan has L = depth + extra, any other plan L = extra."""
    L = depth + extra if status == "complete" else extra
    done = status == "complete"
    row = {
        "board_id": board,
        "condition": condition,
        "trial": trial,
        "cohort": cohort,
        "k": k,
        "layout": f"l{k}",
        "depth": depth,
        "L": L,
        "status": status,
        "error_kind": "boundary" if status == "illegal" else "",
        "first_error": 0 if status == "illegal" else -1,
        "parse_mode": "exact",
        "normalization": "",
        "multiple_moves": False,
        "truncated": False,
        "final_h": 0 if done else 1,
        "min_h": 0,
        "revisits": 0,
        "goal_midway": False,
        "optimal": bool(done and L == depth),
        "economy": depth / L if done else np.nan,
        "excess": float(L - depth) if done else np.nan,
        "moves": "U" * L,
    }
    if calls is not None:
        row["tool_call_count"] = calls
        row["protocol"] = "tools"
    return row


@st.composite
def crafted_pairs(draw):
    """Verdicts of ``m`` (unaided) and ``m+tools`` on up to six boards x three trials, each trial answered by
    either condition or both, with any status, plan length and tool-call count."""
    rows = []
    for board, k, depth in BOARDS[: draw(st.integers(2, len(BOARDS)))]:
        for trial in range(3):
            for condition in ("m", "m+tools"):
                if draw(st.integers(0, 5)) == 0:  # this condition did not answer this trial
                    continue
                status = draw(st.sampled_from(STATUSES))
                calls = draw(st.integers(0, 4)) if condition == "m+tools" else None
                rows.append(verdict_row(condition, board, trial, status, draw(st.integers(0, 3)), calls, k, depth))
    answered = {c: {(r["board_id"], r["trial"]) for r in rows if r["condition"] == c} for c in ("m", "m+tools")}
    if not answered["m"] & answered["m+tools"]:  # nothing paired: refused (tested apart)
        rows += [verdict_row("m", "b0", 9, "complete", 0), verdict_row("m+tools", "b0", 9, "illegal", 1, 0)]
    frame = pd.DataFrame(rows)
    return frame.reset_index(drop=True)


# -- the plain-Python twin ------------------------------------------------------------------------------


def twin(frame: pd.DataFrame, baseline: str, candidate: str) -> dict:
    """Per (cohort, depth or ALL): the paired differences, the four plan changes, tool calls per completed plan,
    computed trial by trial in plain Python; and the unpaired counts."""
    answers = {c: {} for c in (baseline, candidate)}
    for r in frame.to_dict("records"):
        if r["condition"] in answers:
            answers[r["condition"]][(r["board_id"], r["trial"])] = r
    paired = sorted(set(answers[baseline]) & set(answers[candidate]))
    unpaired = {
        "baseline_only": len(set(answers[baseline]) - set(answers[candidate])),
        "candidate_only": len(set(answers[candidate]) - set(answers[baseline])),
    }
    groups: dict = {}
    for key in paired:
        b, c = answers[baseline][key], answers[candidate][key]
        for group in ((b["cohort"], ALL), (b["cohort"], b["depth"])):
            groups.setdefault(group, []).append((b, c))

    def metrics(rows):
        n = len(rows)
        legal = sum(r["status"] != "illegal" for r in rows)
        done = [r for r in rows if r["status"] == "complete"]
        econ = sum(r["depth"] / r["L"] if r["L"] else 1.0 for r in done)
        return {
            "R": legal / n,
            "Q": len(done) / legal if legal else math.nan,
            "E": econ / len(done) if done else math.nan,
            "SPE": econ / n,
        }

    out = {}
    for group, pairs in groups.items():
        mb, mc = metrics([b for b, _ in pairs]), metrics([c for _, c in pairs])
        legal = ("complete", "legal_noncompletion")
        done_calls = [c.get("tool_call_count") for _, c in pairs if c["status"] == "complete"]
        out[group] = {
            "pairs": len(pairs),
            **{f"d{m}": mc[m] - mb[m] for m in mb},
            "illegal_to_legal": sum(b["status"] == "illegal" and c["status"] in legal for b, c in pairs),
            "legal_to_illegal": sum(b["status"] in legal and c["status"] == "illegal" for b, c in pairs),
            "incomplete_to_complete": sum(
                b["status"] == "legal_noncompletion" and c["status"] == "complete" for b, c in pairs
            ),
            "complete_to_incomplete": sum(
                b["status"] == "complete" and c["status"] == "legal_noncompletion" for b, c in pairs
            ),
            "tool_calls_per_complete": sum(done_calls) / len(done_calls) if done_calls else math.nan,
        }
    return {"groups": out, "unpaired": unpaired}


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)


@settings(max_examples=40, deadline=None)
@given(crafted_pairs())
def test_paired_differences_and_changes_equal_the_twin(frame):
    effect = tool_effect(frame, "m", "m+tools", draws=20, seed=3)
    ref = twin(frame, "m", "m+tools")
    assert effect.unpaired == ref["unpaired"]
    assert effect.paired_trials == sum(g["pairs"] for (_, d), g in ref["groups"].items() if d == ALL)
    outcomes = effect.outcomes.set_index(["cohort", "depth"])
    diffs = effect.differences.set_index(["cohort", "depth", "metric"])["estimate"]
    assert set(outcomes.index) == set(ref["groups"])
    for (cohort, depth), want in ref["groups"].items():
        got = outcomes.loc[(cohort, depth)]
        for name in (
            "pairs",
            "illegal_to_legal",
            "legal_to_illegal",
            "incomplete_to_complete",
            "complete_to_incomplete",
        ):
            assert got[name] == want[name], (cohort, depth, name)
        assert same(got["tool_calls_per_complete"], want["tool_calls_per_complete"])
        for m in ("R", "Q", "E", "SPE"):
            assert same(diffs[(cohort, depth, m)], want[f"d{m}"]), (cohort, depth, m)


def test_intervals_are_the_twins_on_the_kernels_draws():
    """The intervals are percentiles of candidate - baseline over the report's stratified draws of the paired
    trials' boards (the twin: NumPy sums of the drawn boards, paired trials picked in plain Python)."""
    v = synthetic_verdicts(seed=4, conditions=("m", "m+tools"), per_cell=3)
    v = v[~((v["condition"] == "m") & (v["trial"] == 2) & v["board_id"].str.endswith("1"))]  # unpaired trials
    effect = tool_effect(v, "m", "m+tools", draws=300, seed=11)
    keys = set(map(tuple, v.loc[v["condition"] == "m", ["board_id", "trial"]].to_numpy()))
    paired = v[[(b, t) in keys for b, t in zip(v["board_id"], v["trial"])]]
    packed = pack_sums(board_sums(paired), groupings=GROUPINGS, conditions=["m", "m+tools"])
    samples = naive_bootstrap(
        packed.sums, packed.cell_of, packed.group_of_cell, len(packed.groups), draw_indices(packed, 300, 11)
    )
    metrics = ["C", "I", "R", "Q", "E", "G", "O", "SPE", "Dc"]
    diff = samples[:, :, 1, :] - samples[:, :, 0, :]
    low, high, used = naive_percentiles(diff.reshape(300, -1), 2.5, 97.5)
    got = effect.differences.set_index(["cohort", "depth", "metric"])
    for g, group in packed.groups.iterrows():
        for m in ("R", "Q", "E", "SPE"):
            at = g * len(metrics) + metrics.index(m)
            row = got.loc[(group["cohort"], group["depth"], m)]
            assert same(row["lo"], low[at]) and same(row["hi"], high[at]) and row["draws_used"] == used[at]


def test_plan_changes_and_unpaired_trials_on_crafted_cases():
    base = ["illegal", "illegal", "legal_noncompletion", "complete", "complete", "legal_noncompletion"]
    cand = ["complete", "legal_noncompletion", "complete", "illegal", "legal_noncompletion", "legal_noncompletion"]
    calls = [3, 5, 1, 0, 2, 7]
    rows = [verdict_row("m", "b0", t, s, 1) for t, s in enumerate(base)]
    rows += [verdict_row("m+tools", "b0", t, s, 1, c) for t, (s, c) in enumerate(zip(cand, calls))]
    rows += [
        verdict_row("m+tools", "b0", 6, "complete", 0, 9),  # only the candidate answered trial 6
        verdict_row("m", "b1", 0, "complete", 0, k=1, depth=3),
    ]  # and only the baseline board b1
    effect = tool_effect(pd.DataFrame(rows), "m", "m+tools", draws=50)
    pooled = effect.outcomes.iloc[0]
    assert pooled["depth"] == ALL and pooled["pairs"] == 6
    assert (pooled["illegal_to_legal"], pooled["legal_to_illegal"]) == (2, 1)
    assert (pooled["incomplete_to_complete"], pooled["complete_to_incomplete"]) == (1, 1)
    assert pooled["tool_calls_per_complete"] == 2.0  # trials 0 and 2 complete, with 3 and 1 calls; not trial 6's 9
    assert pooled["transitions"]["legal_noncompletion"]["legal_noncompletion"] == 1
    assert effect.unpaired == {"baseline_only": 1, "candidate_only": 1} and effect.paired_boards == 1
    d = effect.differences.set_index(["depth", "metric"])["estimate"]
    assert d[(ALL, "R")] == pytest.approx(5 / 6 - 4 / 6)
    js = tool_effect_json(effect)
    assert js["unpaired_trials"] == {"baseline_only": 1, "candidate_only": 1}
    assert js["candidate_protocol"] == "tools" and js["baseline_protocol"] == UNAIDED
    assert js["rows"][0]["differences"]["R"]["estimate"] == pytest.approx(1 / 6)


def test_refusals_name_the_problem():
    rows = pd.DataFrame([verdict_row("m", "b0", 0, "complete", 0), verdict_row("m+tools", "b0", 1, "illegal", 0, 1)])
    with pytest.raises(ValueError, match="share no trial"):
        tool_effect(rows, "m", "m+tools")
    with pytest.raises(ValueError, match="'nope' has no verdicts"):
        tool_effect(rows, "nope", "m+tools")
    with pytest.raises(ValueError, match="must differ"):
        tool_effect(rows, "m", "m")


def test_same_numbers_at_one_and_two_threads():
    script = """
import hashlib, json
import numba
import numpy as np
from tests.naive_bootstrap import synthetic_verdicts
from fastspe.stats.protocol_effect import tool_effect, tool_effect_json
v = synthetic_verdicts(seed=6, conditions=("m", "m+tools"), per_cell=4)
e = tool_effect(v, "m", "m+tools", draws=400, seed=9)
text = e.differences.to_csv(index=False) + json.dumps(tool_effect_json(e), sort_keys=True)
print(numba.get_num_threads(), hashlib.sha256(text.encode()).hexdigest())
"""
    assert len(set(digests_by_thread_count(script).values())) == 1


# -- which conditions pair --------------------------------------------------------------------------------


def named(conditions: dict) -> pd.DataFrame:
    """One verdict row per condition, with its protocol (None: unaided)."""
    return pd.DataFrame([{**verdict_row(c, "b0", 0, "complete", 0), "protocol": p} for c, p in conditions.items()])


def test_protocol_pairs_follow_the_protocol_column_and_the_suffix():
    frame = named(
        {
            "a": None,
            "a+tools": "tools",
            "a+feedback": "feedback",
            "a+cot": None,
            "a+cot+tools": "tools",
            "b+tools": "tools",
            "c": None,
            "c+tools": None,
        }
    )
    assert protocol_pairs(frame) == [
        ("a+cot", "a+cot+tools", "tools"),
        ("a", "a+feedback", "feedback"),
        ("a", "a+tools", "tools"),
    ]
    assert condition_protocols(frame)["c+tools"] == UNAIDED  # named like one, but its answers had no protocol
    assert protocol_pairs(frame.drop(columns="protocol")) == []  # today's verdicts: no pair
    csv_like = named({"a": "", "a+tools": "tools"})  # a CSV's empty cell is no protocol
    assert protocol_pairs(csv_like) == [("a", "a+tools", "tools")]


def test_a_condition_of_two_protocols_is_refused():
    frame = pd.concat([named({"a": None}), named({"a": "tools"}).assign(trial=1)], ignore_index=True)
    with pytest.raises(InputError, match="condition 'a' holds answers of protocols tools, unaided"):
        condition_protocols(frame)


def test_compare_pairs_only_candidates_of_another_protocol():
    v = synthetic_verdicts(seed=2, conditions=("m", "m+tools", "other"), per_cell=2)
    v["protocol"] = np.where(v["condition"] == "m+tools", "tools", None)
    effects = protocol_effects(v, "m", ["m+tools", "other"], draws=50)
    assert [(e.baseline, e.candidate, e.protocols) for e in effects] == [("m", "m+tools", (UNAIDED, "tools"))]
    assert protocol_effects(v.drop(columns="protocol"), "m", ["m+tools", "other"], draws=50) == []
    digest = hashlib.sha256(effects[0].differences.to_csv().encode()).hexdigest()
    again = protocol_effects(v, "m", ["m+tools"], draws=50)[0]
    assert hashlib.sha256(again.differences.to_csv().encode()).hexdigest() == digest


def test_a_candidate_asked_another_prompt_is_not_credited_to_the_tool():
    """ "What the tool fixes" pairs a protocol against none on the same prompt: a cot baseline against a paper-prompt
    tools candidate differs in two ways, so it is left out of the section, with a warning saying why."""
    v = synthetic_verdicts(seed=2, conditions=("m+cot", "m+tools", "m+cot+tools"), per_cell=2)
    v["protocol"] = np.where(v["condition"].str.endswith("+tools"), "tools", None)
    v["prompt_spec_sha256"] = np.where(v["condition"].str.contains("cot"), "c0t", None)
    with pytest.warns(UserWarning, match="'m\\+tools' was asked another prompt than 'm\\+cot'"):
        effects = protocol_effects(v, "m+cot", ["m+tools", "m+cot+tools"], draws=50)
    assert [e.candidate for e in effects] == ["m+cot+tools"]
