"""Answers that name their trial by ``trial_id`` alone (an engine outside fastspe answering a prompt export):
each gets the export line's ``board_id``, ``condition``, ``trial`` and prompt fields, so it reads as any responses
file's line."""

from __future__ import annotations

from .errors import InputError
from .files import read_jsonl

__all__ = ["EXPORT_KEEP", "resolve_trial_ids"]

# what an answer takes over from its export line (its own fields win, but not over these three)
EXPORT_KEEP = ("board_id", "condition", "trial")


def resolve_trial_ids(answers_path, export_path):
    """The answers of the JSONL file ``answers_path`` as a DataFrame, each line with a ``trial_id`` completed from
    the prompt export ``export_path``; a line that names neither a known ``trial_id`` nor its board, condition and
    trial is refused, naming the file and line."""
    import pandas as pd

    if not str(answers_path).lower().endswith(".jsonl"):
        raise InputError(
            f"{answers_path}: answers resolved through --prompts are JSONL (lines of trial_id and response)"
        )
    exported = {}
    for rec in read_jsonl(export_path):
        if "trial_id" not in rec or "messages" not in rec:
            raise InputError(
                f"{export_path}: not a prompt export (`fastspe prompts export`): a line without trial_id and messages"
            )
        exported[str(rec["trial_id"])] = {k: v for k, v in rec.items() if k not in ("messages", "trial_id")}
    rows = []
    for n, rec in enumerate(read_jsonl(answers_path), start=1):
        tid = rec.get("trial_id")
        if tid is not None and str(tid) in exported:
            line = exported[str(tid)]
            clash = [k for k in EXPORT_KEEP if k in rec and rec[k] != line[k]]
            if clash:
                raise InputError(
                    f"{answers_path}: answer {n}: trial_id {tid!r} is {clash[0]} {line[clash[0]]!r} in "
                    f"{export_path}, the answer says {rec[clash[0]]!r}"
                )
            rec = {**line, **rec}
        elif tid is not None and not all(k in rec for k in EXPORT_KEEP):
            raise InputError(
                f"{answers_path}: answer {n}: trial_id {tid!r} is not in {export_path} (answers of "
                f"another export, or another condition?)"
            )
        rows.append(rec)
    return pd.DataFrame(rows)
