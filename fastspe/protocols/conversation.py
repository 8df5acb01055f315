"""A trial's conversation under a multi-turn protocol: what each answered turn adds to it and records.

``Protocol.answered`` takes a model's answer (its text and tool calls), extends the conversation with it and with
what goes back (the tool's results, the verifier's feedback), and says what the turn's log record holds and
whether the conversation has ended. A resumed run replays the logged turns through the same function
(``Protocol.resumed``), so the conversation it continues is the one the model saw, and it checks that the
texts it derives again are the ones the log says were sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

from ..domains.contract import Domain
from ..errors import UserError
from .spec import END_ANSWER, END_MAX_ROUNDS, END_MAX_TURNS, END_SOLVED, FEEDBACK, TOOLS, TURN, ProtocolSpec
from .texts import feedback, tool_definition, tool_result

OK = "ok"


@dataclass(frozen=True)
class ToolCall:
    """One tool call of an answer; ``arguments`` is the JSON text the model wrote."""

    id: str
    name: str
    arguments: str

    def as_record(self) -> dict:
        return {"id": self.id, "name": self.name, "arguments": self.arguments}

    def as_message(self) -> dict:
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.arguments}}

    @classmethod
    def of_record(cls, rec) -> "ToolCall":
        if not (isinstance(rec, dict) and all(isinstance(rec.get(k), str) for k in ("id", "name", "arguments"))):
            raise UserError(f"a logged tool call is {{id, name, arguments}} of text, got {rec!r}")
        return cls(rec["id"], rec["name"], rec["arguments"])


@dataclass
class Conversation:
    """One trial's conversation so far: the messages the next turn sends (OpenAI chat format), the bank row its
    texts are played on, the turns answered, the tool calls made and whether it has ended."""

    messages: list
    row: Mapping
    turn: int = 0
    tool_calls: int = 0
    ended: bool = False


@dataclass(frozen=True)
class TurnOutcome:
    """What an answered turn's record holds beyond an answer's fields (``status`` "turn" or "ok", the texts sent
    back; when ``final``, ``turns``, ``tool_call_count``, ``end_reason`` and perhaps ``response``)."""

    fields: dict
    final: bool


class Protocol:
    """A multi-turn protocol (``spec``) bound to a bank: ``row_of(bank row index)`` gives a row's columns for
    ``domain.playout``."""

    def __init__(self, spec: ProtocolSpec, domain: Domain, row_of: Callable[[int], Mapping]):
        if not spec.multi_turn:
            raise UserError("--protocol oneshot has no conversation")
        if not domain.plays_out:
            raise UserError(
                f"--protocol {spec.name} plays the model's moves out on the {domain.unit}, which the "
                f"{domain.name} domain cannot do (it has no Domain.playout); run it one-shot"
            )
        self.spec, self.domain, self._row_of = spec, domain, row_of
        self.tools = [tool_definition(domain)] if spec.name == TOOLS else None

    def start(self, opening: list, row: int) -> Conversation:
        return Conversation(list(opening), self._row_of(row))

    def answered(self, conv: Conversation, text: str, calls: tuple = ()) -> TurnOutcome:
        """Fold the answer of turn ``conv.turn + 1`` into ``conv``; the turn's record fields."""
        conv.turn += 1
        outcome = self._judged(conv, text) if self.spec.name == FEEDBACK else self._tooled(conv, text, calls)
        conv.ended = outcome.final
        return outcome

    def _tooled(self, conv: Conversation, text: str, calls: tuple) -> TurnOutcome:
        if not calls:
            return self._closing(conv, END_ANSWER)
        conv.tool_calls += len(calls)
        results = [tool_result(self.domain, conv.row, c.name, c.arguments, i) for i, c in enumerate(calls)]
        fields = {"tool_calls": [c.as_record() for c in calls], "tool_results": results}
        if conv.turn >= self.spec.max_turns:
            # No final answer: scored as a format failure (an empty answer), never as a lost output; the text the
            # model wrote beside its calls is kept apart (unscored), so the turn stays inspectable.
            kept = {"last_turn_text": text} if text else {}
            return self._closing(conv, END_MAX_TURNS, response="", **kept, **fields)
        conv.messages.append(
            {"role": "assistant", "content": text or None, "tool_calls": [c.as_message() for c in calls]}
        )
        conv.messages.extend({"role": "tool", "tool_call_id": c.id, "content": r} for c, r in zip(calls, results))
        return TurnOutcome({"status": TURN, "turn": conv.turn, **fields}, final=False)

    def _judged(self, conv: Conversation, text: str) -> TurnOutcome:
        said, solved = feedback(self.domain, conv.row, text)
        if solved:
            return self._closing(conv, END_SOLVED)
        if conv.turn >= self.spec.max_rounds:
            return self._closing(conv, END_MAX_ROUNDS)  # the last plan is the one scored
        conv.messages.append({"role": "assistant", "content": text})
        conv.messages.append({"role": "user", "content": said})
        return TurnOutcome({"status": TURN, "turn": conv.turn, "feedback": said}, final=False)

    def _closing(self, conv: Conversation, reason: str, **fields) -> TurnOutcome:
        return TurnOutcome(
            {
                "status": OK,
                "turn": conv.turn,
                **fields,
                "turns": conv.turn,
                "tool_call_count": conv.tool_calls,
                "end_reason": reason,
            },
            final=True,
        )

    def resumed(self, conv: Conversation, rec: dict, where: str) -> None:
        """Replay the logged answered turn ``rec`` (``status`` "turn") into ``conv``; a UserError naming ``where``
        when the log does not continue the conversation or its texts differ from those derived again."""
        if rec.get("turn") != conv.turn + 1 or not isinstance(rec.get("response"), str):
            raise UserError(
                f"{where}: turn {rec.get('turn')!r} of trial {rec.get('trial_id')} does not follow turn "
                f"{conv.turn} with an answer; the log is damaged: write to another --out"
            )
        try:
            calls = tuple(ToolCall.of_record(c) for c in rec.get("tool_calls") or ())
        except ValueError as exc:
            raise UserError(f"{where}: {exc}") from None
        outcome = self.answered(conv, rec["response"], calls)
        sent = {k: rec.get(k) for k in ("tool_results", "feedback")}
        derived = {k: outcome.fields.get(k) for k in sent}
        if outcome.final or sent != derived:
            raise UserError(
                f"{where}: the texts sent back in turn {rec['turn']} of trial {rec.get('trial_id')} are not "
                f"what this fastspe derives from its answer (the domain's playout changed?); its "
                f"conversation cannot go on as the model saw it: give --condition NEW_NAME or another --out"
            )
