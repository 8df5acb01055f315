"""Which protocol a run speaks and its limits: what a condition's identity records of it.

``oneshot`` (the paper's: one answer per trial) records nothing, so a run without ``--protocol`` writes today's
log lines; the others record ``protocol`` and their limit (``max_turns``, ``max_rounds``) on every line and give the
condition name a suffix (``openai:gpt-4o+tools``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UserError

ONESHOT, TOOLS, FEEDBACK = "oneshot", "tools", "feedback"
PROTOCOL_NAMES = (ONESHOT, TOOLS, FEEDBACK)
DEFAULT_MAX_TURNS = 20  # tool turns: enough to probe a plan a few times, a bound on a looping model's cost
DEFAULT_MAX_ROUNDS = 3  # feedback: plans the model may give (Schepanowski & Ling 2025 give three tiers)
MAX_LIMIT = 1000
# The status of an answered turn that does not end its conversation: never "ok", which every reader of a run log
# takes for the trial's answer.
TURN = "turn"
# Why a conversation ended (the closing record's ``end_reason``).
END_ANSWER, END_MAX_TURNS, END_SOLVED, END_MAX_ROUNDS = "answer", "max_turns", "solved", "max_rounds"


@dataclass(frozen=True)
class ProtocolSpec:
    """A protocol and its limit: ``max_turns`` (requests of a tools conversation) or ``max_rounds`` (plans of a
    feedback conversation); the other limit is None."""

    name: str = ONESHOT
    max_turns: int | None = None
    max_rounds: int | None = None

    @property
    def multi_turn(self) -> bool:
        return self.name != ONESHOT

    @property
    def limit(self) -> int:
        """The most requests one conversation sends."""
        return self.max_turns or self.max_rounds or 1

    @property
    def suffix(self) -> str:
        """What the default condition name gains: ``+tools``, ``+feedback``; nothing for one-shot."""
        return f"+{self.name}" if self.multi_turn else ""

    def identity(self) -> dict:
        """The record fields one condition keeps equal (empty for one-shot: today's lines)."""
        if not self.multi_turn:
            return {}
        limit = {"max_turns": self.max_turns} if self.name == TOOLS else {"max_rounds": self.max_rounds}
        return {"protocol": self.name, **limit}

    def scanned_identity(self) -> dict:
        """What a log's earlier attempts of the condition must hold: ``identity``, and for one-shot no
        ``protocol`` (so a one-shot run does not resume a condition of tool conversations)."""
        return self.identity() if self.multi_turn else {"protocol": None}


ONESHOT_SPEC = ProtocolSpec()


def protocol_spec(name: str = ONESHOT, max_turns: int | None = None, max_rounds: int | None = None) -> ProtocolSpec:
    """A checked ``ProtocolSpec``: the limit of another protocol is refused, the protocol's own defaults."""
    if name not in PROTOCOL_NAMES:
        raise UserError(f"--protocol {name!r}: use one of {', '.join(PROTOCOL_NAMES)}")
    if max_turns is not None and name != TOOLS:
        raise UserError(f"--max-turns bounds a --protocol tools conversation; --protocol {name} has none")
    if max_rounds is not None and name != FEEDBACK:
        raise UserError(f"--max-rounds bounds a --protocol feedback conversation; --protocol {name} has none")
    for option, value in (("--max-turns", max_turns), ("--max-rounds", max_rounds)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_LIMIT):
            raise UserError(f"{option} must be a whole number in 1..{MAX_LIMIT}, got {value!r}")
    if name == TOOLS:
        return ProtocolSpec(TOOLS, max_turns=max_turns or DEFAULT_MAX_TURNS)
    if name == FEEDBACK:
        return ProtocolSpec(FEEDBACK, max_rounds=max_rounds or DEFAULT_MAX_ROUNDS)
    return ONESHOT_SPEC
