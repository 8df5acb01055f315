"""What `fastspe show --responses` prints of a conversation (fastspe.report.conversation): every turn, the text a
model wrote beside its tool calls too."""

from __future__ import annotations

from fastspe.domains.registry import domain_named
from fastspe.protocols import Protocol, ToolCall, protocol_spec
from fastspe.report.conversation import conversation_lines

ROW = {"board_id": "b", "rows": 2, "cols": 2, "blocks": [], "initial": [1, 2, 3, 0], "goal": [1, 2, 3, 0]}


def _turn_records(max_turns: int, answers: list) -> list[dict]:
    """The records of a tools conversation whose turns answer ``answers`` ((text, moves or None) each)."""
    sliding = domain_named("sliding")
    protocol = Protocol(protocol_spec("tools", max_turns=max_turns), sliding, lambda i: ROW)
    conv = protocol.start([{"role": "user", "content": "p"}], 0)
    recs = []
    for i, (text, moves) in enumerate(answers):
        calls = (ToolCall(f"c{i}", "apply_moves", f'{{"moves": "{moves}"}}'),) if moves is not None else ()
        recs.append({"response": text, "protocol": "tools", **protocol.answered(conv, text, calls).fields})
        if conv.ended:
            break
    return recs


def test_the_text_beside_a_tool_call_is_shown():
    recs = _turn_records(5, [("Let me try the left move first.", "L"), ("MOVES: L", None)])
    shown = "\n".join(conversation_lines(recs))
    assert "Let me try the left move first." in shown
    assert shown.index("Let me try") < shown.index("turn 1: called apply_moves")


def test_the_text_of_a_conversation_cut_at_max_turns_is_kept_and_shown_not_scored():
    recs = _turn_records(2, [("checking", "L"), ("MOVES: L", "L")])
    last = recs[-1]
    assert (last["status"], last["end_reason"], last["response"]) == ("ok", "max_turns", "")  # a format failure
    assert last["last_turn_text"] == "MOVES: L"  # what the model wrote is not lost
    shown = "\n".join(conversation_lines(recs))
    assert "MOVES: L" in shown and "checking" in shown
