"""Verdicts of multi-turn protocols: only a conversation's closing ``ok`` record is its answer (never a ``turn``
line), and ``protocol``, ``turns`` and ``tool_call_count`` reach the verdicts, typed, only when some answer has them."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fastspe.boundary.banks import write_bank
from fastspe.boundary.responses import read_responses
from fastspe.boundary.verdict_files import read_verdicts
from fastspe.boundary.verdict_schema import CONVERSATION_TYPES, METADATA_TYPES
from fastspe.boundary.verdicts import verdict_columns
from fastspe.cli import main
from fastspe.scoring.score import score_responses

from .test_score import _jsonl, _rec, tiny_bank

TOOL_CALL = {"id": "c1", "name": "apply_moves", "arguments": '{"moves": "R"}'}
TURN_ONLY = ("tool_calls", "tool_results", "feedback")


def tools_log(path, condition="m+tools"):
    """Three conversations on board "near" (solved by R): trial 0 tries R with the tool, then answers R; trial 1
    answers R in a turn that is not its last and ends at max turns with no answer; trial 2 answers L at once."""

    def rec(trial, turn, status, response, **kw):
        return {
            **_rec(trial=trial, response=response),
            "condition": condition,
            "status": status,
            "turn": turn,
            "protocol": "tools",
            "attempt": 0,
            **kw,
        }

    return _jsonl(
        path,
        [
            rec(0, 1, "turn", "", tool_calls=[TOOL_CALL], tool_results=["board after R: solved"]),
            rec(0, 2, "ok", "MOVES: R", turns=2, tool_call_count=1, end_reason="answer"),
            rec(1, 1, "turn", "MOVES: R", tool_calls=[TOOL_CALL], tool_results=["board after R: solved"]),
            rec(1, 2, "ok", "", turns=2, tool_call_count=1, end_reason="max_turns"),
            rec(2, 1, "ok", "MOVES: L", turns=1, tool_call_count=0, end_reason="answer"),
        ],
    )


def check_tools_verdicts(v):
    assert v["trial"].tolist() == [0, 1, 2]
    # trial 1's turn line answered R (complete) but its conversation closed without an answer: a format failure
    assert v["status"].tolist() == ["complete", "illegal", "legal_noncompletion"]
    assert v["parse_mode"].tolist() == ["exact", "no_plan", "exact"]
    assert v["protocol"].tolist() == ["tools"] * 3
    assert v["turns"].tolist() == [2, 2, 1] and v["tool_call_count"].tolist() == [1, 1, 0]
    assert not set(TURN_ONLY) & set(v.columns)


def test_turn_lines_are_not_answers(tmp_path):
    df = read_responses(tools_log(tmp_path / "run.jsonl"), bank=tiny_bank())
    assert df["response"].tolist() == ["MOVES: R", "", "MOVES: L"]
    check_tools_verdicts(score_responses(tiny_bank(), df))


def test_an_unfinished_conversation_is_not_scored(tmp_path):
    path = _jsonl(
        tmp_path / "run.jsonl",
        [
            {**_rec(trial=0), "status": "turn", "turn": 1, "protocol": "tools"},  # killed after its first turn
            {
                **_rec(trial=1, response="MOVES: L"),
                "status": "ok",
                "turn": 1,
                "protocol": "tools",
                "turns": 1,
                "tool_call_count": 0,
            },
        ],
    )
    with pytest.warns(UserWarning, match=r"1 output has no answer \(only failed attempts"):
        df = read_responses(path, bank=tiny_bank())
    assert df["trial"].tolist() == [1]


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_score_carries_the_conversation_columns(tmp_path, suffix):
    write_bank(tiny_bank(), tmp_path / "bank.parquet")
    out = tmp_path / f"v{suffix}"
    assert (
        main(
            [
                "score",
                "--bank",
                str(tmp_path / "bank.parquet"),
                "--responses",
                str(tools_log(tmp_path / "r.jsonl")),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    check_tools_verdicts(read_verdicts(out).frame)
    if suffix == ".parquet":
        schema = pq.read_schema(out)
        fixed = [*verdict_columns("sliding"), *METADATA_TYPES]
        assert schema.names[: len(fixed) + 3] == [*fixed, *CONVERSATION_TYPES]
        assert [schema.field(n).type for n in CONVERSATION_TYPES] == [pa.string(), pa.int64(), pa.int64()]


def test_one_answer_runs_keep_todays_columns(tmp_path):
    """No answer has them: no conversation column, in memory or in the file (today's verdicts, unchanged)."""
    write_bank(tiny_bank(), tmp_path / "bank.parquet")
    log = _jsonl(tmp_path / "r.jsonl", [_rec(status="ok", attempt=0), _rec(trial=1, status="ok", attempt=0)])
    out = tmp_path / "v.parquet"
    assert main(["score", "--bank", str(tmp_path / "bank.parquet"), "--responses", str(log), "--out", str(out)]) == 0
    assert pq.read_schema(out).names == [*verdict_columns("sliding"), *METADATA_TYPES]
    v = score_responses(tiny_bank(), read_responses(log))
    assert not set(CONVERSATION_TYPES) & set(v.columns)


def test_a_one_answer_log_and_a_tools_log_scored_together(tmp_path):
    """The unaided answers have no protocol (null), the tool-assisted ones theirs; turns stay whole numbers."""
    write_bank(tiny_bank(), tmp_path / "bank.parquet")
    plain = _jsonl(tmp_path / "plain.jsonl", [_rec(status="ok", attempt=0), _rec(trial=1, status="ok", attempt=0)])
    out = tmp_path / "v.parquet"
    assert (
        main(
            [
                "score",
                "--bank",
                str(tmp_path / "bank.parquet"),
                "--responses",
                str(plain),
                "--responses",
                str(tools_log(tmp_path / "tools.jsonl")),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    table = pq.read_table(out)
    assert table.schema.field("turns").type == pa.int64()
    rows = table.select(["condition", "protocol", "turns"]).to_pylist()
    assert [r for r in rows if r["condition"] == "m"] == [{"condition": "m", "protocol": None, "turns": None}] * 2
    assert [r["turns"] for r in rows if r["condition"] == "m+tools"] == [2, 2, 1]


def test_a_turns_value_that_is_no_whole_number_is_refused(tmp_path):
    log = _jsonl(tmp_path / "r.jsonl", [{**_rec(status="ok"), "protocol": "tools", "turns": "two"}])
    with pytest.raises(ValueError, match="column turns .* cannot be stored as int64"):
        score_responses(tiny_bank(), read_responses(log))
