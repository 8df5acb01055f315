"""One trial's conversation as its run log keeps it: the answered turns of a multi-turn protocol, in order.

A tools or feedback conversation logs each answered turn as one line (``status`` "turn", the last "ok"); failed
attempts of a turn are logged too but are not part of what the model was told. Streamed, and a line is parsed only
when it holds the board's id, so finding one trial in a log of a million lines costs one pass over its bytes.
"""

from __future__ import annotations

import json

from .run_logs import log_lines

ANSWERED = ("turn", "ok")  # the statuses of a turn the model answered


def conversation_records(path, condition: str, board_id: str, trial: int) -> list[dict]:
    """The answered turns of trial (``condition``, ``board_id``, ``trial``) in the run log ``path``, by turn: empty
    for a one-answer trial (its lines have no ``turn``) or a file that is not a run log."""
    needle = json.dumps(board_id)[1:-1].encode("utf-8")  # as the log writes it inside its quotes
    turns: dict[int, dict] = {}
    for raw in log_lines(path):
        if needle not in raw:
            continue
        try:
            rec = json.loads(raw)
        except (UnicodeDecodeError, ValueError, RecursionError):
            continue  # a torn line: no turn the model was told of
        if (
            isinstance(rec, dict)
            and rec.get("condition") == condition
            and rec.get("board_id") == board_id
            and rec.get("trial") == trial
            and rec.get("status") in ANSWERED
            and isinstance(rec.get("turn"), int)
            and not isinstance(rec.get("turn"), bool)
        ):
            turns[rec["turn"]] = rec
    return [turns[t] for t in sorted(turns)]
