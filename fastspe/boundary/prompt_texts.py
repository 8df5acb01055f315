"""The prompts sidecar of a run log or a prompt export: ``NAME.prompts.jsonl`` beside ``NAME.jsonl``.

A log line keeps only its prompt's hashes; the sidecar keeps the texts, once each: one record per distinct prompt
spec (``{"record": "spec", ...}``: the variant, the template, the system text, the worked examples) and one per
distinct user message (``{"record": "prompt", "prompt_text_sha256": ..., "text": ...}``). It is append-only like the
log (flushed and fsynced, under its own lock, written while the run holds the log's), so a killed run leaves at most a
torn last line, which readers skip; a record written twice by a crash reads as one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from .responses import log_objects
from .run_logs import RunLogFile, log_lines, torn_tail_line

__all__ = ["SIDECAR_SUFFIX", "sidecar_path", "read_prompt_records", "append_prompt_records"]

SIDECAR_SUFFIX = ".prompts.jsonl"


def sidecar_path(path) -> Path:
    """The sidecar of the JSONL file ``path`` (``runs.jsonl`` -> ``runs.prompts.jsonl``)."""
    p = Path(path)
    return p.with_name(
        p.name[: -len(".jsonl")] + SIDECAR_SUFFIX if p.name.lower().endswith(".jsonl") else p.name + SIDECAR_SUFFIX
    )


def read_prompt_records(path, kind: str | None = None) -> list[dict]:
    """The records of the sidecar ``path`` (a missing file has none; torn or damaged lines are skipped); with
    ``kind``, only records of that kind (the others are not even parsed: a big run keeps a text per board, and
    scoring reads only its few specs)."""
    lines = log_lines(path)
    if kind is not None:
        head = _record_head(kind)
        lines = (raw for raw in lines if raw.startswith(head))
    records = [obj for _, obj in log_objects(lines) if obj is not None and "record" in obj]
    return records if kind is None else [r for r in records if r["record"] == kind]


def _record_head(kind: str) -> bytes:
    """How a record of ``kind`` begins as ``append_prompt_records`` writes it (``record`` is its first key)."""
    return json.dumps({"record": kind}, ensure_ascii=False).encode("utf-8")[:-1]


def append_prompt_records(path, records: Iterable[dict]) -> None:
    """Append ``records`` to the sidecar ``path`` with one fsync (created with its folder when missing)."""
    data = b"".join(json.dumps(r, ensure_ascii=False).encode("utf-8") + b"\n" for r in records)
    if not data:
        return
    file = RunLogFile(path)
    try:
        if torn_tail_line(path):
            data = b"\n" + data  # after a killed write's torn line, which readers skip
        file.write(data)
    finally:
        file.close()
