"""A multi-turn conversation for the terminal (``fastspe show --responses``): each answered turn, what the model
did (a tool call, a plan) and what fastspe sent back (the tool's result, the verifier's feedback), escaped as the
answer is (``fastspe._text.printable``)."""

from __future__ import annotations

from .._text import count, printable

__all__ = ["conversation_lines"]

INDENT = "    "


def _block(text: str) -> list[str]:
    return [INDENT + line for line in printable(text).split("\n")]


def conversation_lines(turns: list[dict]) -> list[str]:
    """The lines of a conversation from its answered turns (``boundary.conversations.conversation_records``); empty
    for a one-answer trial."""
    if not turns:
        return []
    last = turns[-1]
    calls = sum(len(t.get("tool_calls") or ()) for t in turns)
    head = f"conversation ({last.get('protocol') or 'multi-turn'}): {count(len(turns), 'turn')}" + (
        f", {count(calls, 'tool call')}" if calls or last.get("protocol") == "tools" else ""
    )
    ended = last.get("end_reason") if last.get("status") == "ok" else None
    lines = [head + (f", ended: {ended}" if ended else ", not ended (the run stopped inside it)")]
    for rec in turns:
        n = rec["turn"]
        tool_calls = rec.get("tool_calls") or []
        results = rec.get("tool_results") or []
        if tool_calls:
            said = rec.get("last_turn_text") or (rec.get("response") if rec.get("status") != "ok" else None)
            if said:  # what the model wrote beside its calls (its reasoning, a plan it did not answer with)
                lines += [f"turn {n}: said", *_block(str(said))]
            for i, call in enumerate(tool_calls):
                lines.append(
                    f"turn {n}: called {printable(str(call.get('name')))} {printable(str(call.get('arguments')))}"
                )
                if i < len(results):
                    lines += ["  result:", *_block(str(results[i]))]
        elif rec.get("status") == "ok":
            lines.append(f"turn {n}: the final answer" + (" (below)" if rec.get("response") else " (none)"))
        else:
            lines += [f"turn {n}: answered", *_block(str(rec.get("response") or "(empty)"))]
        if rec.get("feedback"):
            lines += ["  feedback:", *_block(str(rec["feedback"]))]
    return lines
