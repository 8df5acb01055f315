"""``fastspe prompts export``: the requests a run would send, one JSONL line per trial, for an engine outside fastspe.

Each line is ``trial_id`` (the id ``run_model`` gives the same trial), ``board_id``, ``condition``, ``trial``,
``messages`` (the opening conversation in the OpenAI chat format) and ``prompt_text_sha256`` (the hash of the last
user message, the field run logs record), plus the prompt variant's log fields when it is not the default. The file
is written whole or not at all; the prompts sidecar beside it keeps the spec, so answers brought back
(``fastspe score --responses answers.jsonl --prompts prompts.jsonl``) are checked against their variant.
"""

from __future__ import annotations

from ..boundary.files import write_jsonl
from ..domains.contract import prompt_hash
from ..prompting import PAPER_SPEC, PromptSpec, keep_prompts
from .engine import BoardPrompts, check_trials
from .log import check_log_path

__all__ = ["EXPORT_FIELDS", "export_prompts", "export_records"]

EXPORT_FIELDS = ("trial_id", "board_id", "condition", "trial", "messages", "prompt_text_sha256")


def export_records(boards: BoardPrompts, condition: str, trials: int):
    """The export lines of every trial of ``boards``, in bank order, trial by trial."""
    check_trials(trials)
    for row in range(len(boards.board_ids)):
        for t in range(trials):
            trial = boards.trial(condition, row, t)
            yield {
                "trial_id": trial.trial_id,
                "board_id": trial.board_id,
                "condition": condition,
                "trial": trial.trial,
                "messages": trial.opening,
                "prompt_text_sha256": prompt_hash(trial.prompt),
                **trial.variant_fields,
            }


def export_prompts(bank, out, condition: str, trials: int = 3, prompt: PromptSpec = PAPER_SPEC) -> int:
    """Write the export of ``bank`` (a ``Bank`` or bank DataFrame) under ``condition`` to ``out`` (``.jsonl``) and
    its prompts sidecar; the number of lines."""
    _refuse_other_file(check_log_path(out, export=True))
    boards = BoardPrompts.of(bank, prompt)
    keep_prompts(out, prompt, boards.prompts)
    return write_jsonl(export_records(boards, condition, trials), out)


def _refuse_other_file(path) -> None:
    """Refuse to replace a JSONL file that is no export (a run log, answers): an export is rewritten whole."""
    import json

    from ..boundary.run_logs import first_line

    if not path.is_file() or path.stat().st_size == 0:
        return
    try:
        obj = json.loads(first_line(path))
    except (UnicodeDecodeError, ValueError):
        obj = None
    if not (isinstance(obj, dict) and "messages" in obj):
        from ..errors import UserError

        raise UserError(
            f"{path} exists and is not a prompt export (its first line has no messages); an export "
            f"replaces its file whole, so give --out another name"
        )
