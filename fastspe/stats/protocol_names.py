"""Which protocol each condition's answers came from, and which conditions are the same run but for its protocol.

A verdict row records its answer's protocol in ``protocol`` (``tools``, ``feedback``: a multi-turn run's; absent or
null for one answer per trial, the paper's protocol, named ``UNAIDED`` here). A condition's default name gains
``+PROTOCOL`` last when its protocol is not the default (``openai:gpt-4o+tools``, ``openai:gpt-4o+cot+tools``), so
``NAME+PROTOCOL`` whose answers have that protocol and ``NAME`` whose answers have none are one pair: the same
model, prompt and settings, unaided and with the protocol. The pairs come from the verdicts' own ``protocol``
column and that naming rule, never from a list of protocol names.
"""

from __future__ import annotations

import pandas as pd

from ..boundary.errors import InputError
from ..boundary.verdicts import Verdicts

__all__ = ["UNAIDED", "PROTOCOL_COLUMN", "condition_protocols", "protocol_pairs"]

UNAIDED = "unaided"  # one answer per trial, no tool, no feedback: the paper's protocol (the log records none)
PROTOCOL_COLUMN = "protocol"


def condition_protocols(verdicts: Verdicts | pd.DataFrame) -> dict[str, str]:
    """``{condition: protocol}`` (``UNAIDED`` where answers record none), in condition order; ``InputError`` when
    one condition's answers hold two protocols (two runs under one name: pair them apart)."""
    frame = verdicts.frame if isinstance(verdicts, Verdicts) else verdicts
    conditions = frame["condition"].astype(str)
    if PROTOCOL_COLUMN not in frame.columns:
        return {c: UNAIDED for c in sorted(conditions.unique())}
    given = frame[PROTOCOL_COLUMN]
    named = given.where(given.notna() & (given.astype(str) != ""), UNAIDED).astype(str)  # (a CSV's empty cell)
    kinds = pd.DataFrame({"condition": conditions, "protocol": named}).drop_duplicates()
    mixed = kinds["condition"].duplicated(keep=False)
    if mixed.any():
        name = kinds.loc[mixed, "condition"].iloc[0]
        found = sorted(kinds.loc[kinds["condition"] == name, "protocol"])
        raise InputError(
            f"verdicts: condition {name!r} holds answers of protocols {', '.join(found)}; one condition "
            "is one run's settings: score each protocol's run under its own condition name"
        )
    return dict(sorted(zip(kinds["condition"], kinds["protocol"])))


def protocol_pairs(verdicts: Verdicts | pd.DataFrame) -> list[tuple[str, str, str]]:
    """``(baseline, candidate, protocol)`` for every condition ``NAME+PROTOCOL`` with that protocol whose ``NAME``
    holds unaided answers, sorted by candidate; empty when the verdicts hold one protocol."""
    protocols = condition_protocols(verdicts)
    pairs = []
    for candidate, protocol in protocols.items():
        suffix = f"+{protocol}"
        if protocol != UNAIDED and candidate.endswith(suffix):
            baseline = candidate[: -len(suffix)]
            if protocols.get(baseline) == UNAIDED:
                pairs.append((baseline, candidate, protocol))
    return pairs
