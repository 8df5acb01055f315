"""Append-only JSONL run log: one line per attempt, flushed and fsynced, never rewritten.

A run killed mid-write can leave a torn last line. Opening the log again starts a fresh line after
it (the torn bytes stay where they are), and reading skips lines that are not JSON objects, so a
resumed run neither loses nor rewrites anything. An exclusive ``flock`` keeps two runs from
appending to the same file at once. This module decides what a line says and when it is written;
the bytes go through ``fastspe.boundary.run_logs``.
"""

from __future__ import annotations

import base64
import json
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import numpy as np

from ..errors import UserError
from ..boundary.responses import MARKER_EVENTS, TORN_LINE_EVENT, log_objects
from ..boundary.prompt_texts import SIDECAR_SUFFIX
from ..boundary.run_logs import RunLogFile, first_line, log_lines, torn_tail_line
from ..protocols.spec import TURN

OK = "ok"
ERROR = "error"
# What resuming a conversation needs of each answered turn it logged (``Protocol.resumed``).
TURN_FIELDS = ("trial_id", "turn", "response", "tool_calls", "tool_results", "feedback")


KEY_PREFIXES = ("sk-ant-", "sk-proj-", "sk-")
MIN_BARE_KEY = 16  # a key less its prefix is redacted only when this long, so short common words stay
# A shorter "key" is no secret (a local server's placeholder such as "x"), and replacing it would rewrite
# ordinary words of an error text; the runners warn about such a key instead (base.api_key_from_env).
MIN_SECRET_CHARS = 8
# The record fields where a key can appear: error texts (servers echo keys, headers, URLs) and URLs. Only
# these are scrubbed: answers, identifiers and field names are written as they are, whatever the key.
SECRET_FIELDS = ("error", "base_url")


def check_log_path(path, export: bool = False) -> Path:
    """``path`` as a Path; a ValueError unless it ends in ``.jsonl`` (readers choose the format by extension)
    and is not a bank (a JSONL file whose first line has ``initial`` and ``certificate``), a prompts sidecar
    (``NAME.prompts.jsonl``: beside ``NAME.jsonl`` it would be that file's) or, unless ``export`` (the path of a
    prompt export, replaced whole), a prompt export."""
    p = Path(path)
    if p.suffix.lower() != ".jsonl":
        raise UserError(
            f"{path}: {'an export' if export else 'a run log'} is JSONL; give --out a name ending in .jsonl"
        )
    if p.name.lower().endswith(SIDECAR_SUFFIX):
        raise UserError(
            f"{path}: the name of a prompts sidecar (the texts kept beside "
            f"{p.name[: -len(SIDECAR_SUFFIX)]}.jsonl); give --out another .jsonl name"
        )
    if p.is_file():
        try:
            obj = json.loads(first_line(p))
        except (UnicodeDecodeError, json.JSONDecodeError):
            obj = None
        if isinstance(obj, dict) and "initial" in obj and "certificate" in obj:
            raise UserError(
                f"{path} is a bank (its first line has initial and certificate), not a run log; "
                f"give --out another .jsonl name"
            )
        if not export and isinstance(obj, dict) and "messages" in obj and "status" not in obj:
            raise UserError(
                f"{path} is a prompt export (its first line has messages), not a run log; give --out "
                f"another .jsonl name"
            )
    return p


def secret_forms(secret: str) -> list[str]:
    """The forms in which a server or library may echo ``secret``: as is, without its ``sk-``/``sk-ant-``
    prefix, URL-encoded and base64-encoded; longest first, so a form is replaced before its parts."""
    forms = {secret, urllib.parse.quote(secret, safe=""), urllib.parse.quote_plus(secret)}
    for prefix in KEY_PREFIXES:
        if secret.startswith(prefix) and len(secret) - len(prefix) >= MIN_BARE_KEY:
            forms.add(secret[len(prefix) :])
            break
    raw = secret.encode("utf-8")
    for encoded in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
        forms.add(encoded.decode("ascii"))
        forms.add(encoded.decode("ascii").rstrip("="))
    return sorted(forms, key=len, reverse=True)


def scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` (an error text or a URL, never an answer) with every occurrence of each secret of at least
    ``MIN_SECRET_CHARS`` characters, in any form of ``secret_forms``, replaced by ``[redacted]``."""
    for secret in secrets:
        if not secret or len(secret) < MIN_SECRET_CHARS:
            continue
        for form in secret_forms(secret):
            if form in text:
                text = text.replace(form, "[redacted]")
    return text


class RunLog:
    """An open run log that appends one JSON object per line, thread-safe.

    Parameters
    ----------
    path : path-like
        The JSONL file; created (with its folder) when missing, never truncated.
    secrets : iterable of str
        Strings (API keys) replaced by ``[redacted]`` in the ``SECRET_FIELDS`` of each record (``scrub``); every
        other field is written as given, so an answer or an id never changes with the key.
    """

    def __init__(self, path, secrets: Iterable[str] = ()):
        self.path = check_log_path(path)
        self._secrets = tuple(s for s in secrets if s)
        self._file = RunLogFile(self.path)
        torn = torn_tail_line(self.path)
        if torn:
            # Start a fresh line and name the torn one; its bytes stay (append-only), readers skip it.
            self._write_bytes(b"\n")
            self.append({"event": TORN_LINE_EVENT, "line": torn})

    def append(self, record: dict) -> None:
        """Write ``record`` as one JSON line, then flush and fsync (a paid answer is on disk before it counts)."""
        self.append_many([record])

    def append_many(self, records: Iterable[dict]) -> None:
        """Write ``records`` as JSON lines with one flush and fsync for all: free answers (baselines) are
        written in batches, since a sync per line costs more than computing them. A crash loses at most
        the lines of the batch being written; count them as done only after this returns."""
        data = b"".join(
            json.dumps(self._jsonable(r), ensure_ascii=False, allow_nan=False, default=_json_default).encode("utf-8")
            + b"\n"
            for r in records
        )
        if data:
            self._write_bytes(data)

    def _jsonable(self, record: dict) -> dict:
        """``record`` with float NaN (pandas' missing value) as None, so every line is strict JSON, and the
        secrets scrubbed from its ``SECRET_FIELDS``."""
        out = {k: (None if isinstance(v, float) and v != v else v) for k, v in record.items()}
        for name in SECRET_FIELDS:
            if isinstance(out.get(name), str):
                out[name] = scrub(out[name], self._secrets)
        return out

    def _write_bytes(self, data: bytes) -> None:
        self._file.write(data)  # flushed and fsynced

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> "RunLog":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _json_default(obj):
    if hasattr(obj, "tolist"):  # numpy scalars and arrays
        return obj.tolist()
    return str(obj)


def read_run_log(path) -> tuple[list[dict], int]:
    """The attempt records of a run log and the number of lines skipped as torn or not JSON objects.

    Marker records (a resumed run naming a torn line, a batch's submission) are not attempts and are left out.

    A missing file reads as no records.
    """
    records: list[dict] = []
    skipped = 0
    for _, obj in log_objects(log_lines(path)):
        if obj is None:
            skipped += 1
        else:
            records.append(obj)
    return records, skipped


def completed_trial_ids(records: Iterable[dict]) -> set[str]:
    """Trial ids that have a completed (``status == "ok"``) attempt."""
    return {r["trial_id"] for r in records if r.get("status") == OK and r.get("trial_id")}


@dataclass
class LogScan:
    """What resuming one condition needs from a run log, kept without its records.

    Attributes
    ----------
    done : ndarray of bool, shape (boards, trials)
        Trials with a completed (``status == "ok"``) attempt, by bank row and trial index.
    attempts : ndarray of int64, shape (boards, trials)
        The highest attempt number logged for each trial (0: none), so a resumed run numbers on.
    spent_usd : float
        The cost of every attempt of the condition in the log (all boards).
    torn_lines : int
        Lines left torn by a stopped run (the unfinished last line, or one a marker record names).
    turns : dict
        With ``keep_turns``: (bank row, trial) -> [(line number, ``TURN_FIELDS`` of the record)] of the answered
        turns (``status`` "turn") of each conversation without a closing "ok" record; memory: unfinished trials only.
    """

    done: np.ndarray
    attempts: np.ndarray
    spent_usd: float = 0.0
    torn_lines: int = 0
    turns: dict = field(default_factory=dict)


def scan_run_log(
    path,
    condition: str,
    board_rows: dict,
    trials: int,
    settings: dict,
    prompt_hashes: list | None = None,
    keep_turns: bool = False,
) -> LogScan:
    """Stream the run log ``path`` and gather what resuming ``condition`` needs (memory: the two arrays).

    A trial is (condition, board_id, trial index); ``board_rows`` maps the bank's board ids to rows,
    and attempts of other boards, trials or conditions are not kept. Raises a ValueError naming
    the file and line when

    - an attempt of ``condition`` was made with other ``settings`` (e.g. ``max_tokens``): its
      answers would mix with this run's under one condition;
    - an attempt of a board in ``board_rows`` was asked with another prompt than
      ``prompt_hashes[row]`` (the bank or the prompt changed);
    - a line that is not a JSON object is neither the unfinished last line of the file nor named by
      a ``{"event": "torn_line"}`` marker: the log is damaged, and a lost completed answer would
      otherwise be paid for again.

    With ``keep_turns`` (a multi-turn protocol) the answered turns of each unfinished conversation are kept
    (``LogScan.turns``), so a resumed run continues it from the next turn. A missing file scans as empty.
    """
    scan = LogScan(np.zeros((len(board_rows), trials), dtype=bool), np.zeros((len(board_rows), trials), dtype=np.int64))
    p = Path(path)
    bad_lines: list[tuple[int, str]] = []
    marked: set = set()
    lineno, ends_with_newline = 0, True
    for lineno, raw in enumerate(log_lines(p), start=1):
        ends_with_newline = raw.endswith(b"\n")
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # ValueError: JSON, or a 4,300-digit int
            bad_lines.append(
                (
                    lineno,
                    getattr(
                        exc,
                        "msg",
                        "not UTF-8"
                        if isinstance(exc, UnicodeDecodeError)
                        else "nested too deep"
                        if isinstance(exc, RecursionError)
                        else str(exc),
                    ),
                )
            )
            continue
        if not isinstance(rec, dict):
            bad_lines.append((lineno, "not a JSON object"))
        elif rec.get("event") == TORN_LINE_EVENT:
            marked.add(rec.get("line"))
        elif rec.get("event") in MARKER_EVENTS:
            continue  # a batch marker: no attempt
        elif rec.get("condition") == condition:
            _take_attempt(scan, rec, p, lineno, board_rows, trials, settings, prompt_hashes, keep_turns)
    for n, why in bad_lines:
        if n in marked or (n == lineno and not ends_with_newline):
            scan.torn_lines += 1
        else:
            raise UserError(
                f"{path}: line {n} is not a JSON object ({why}) and no run left it torn; the log is "
                f'damaged. Keep a copy, then append {{"event": "torn_line", "line": {n}}} to the '
                f"log to skip it, or write to another --out"
            )
    return scan


def _take_attempt(
    scan: LogScan,
    rec: dict,
    path: Path,
    lineno: int,
    board_rows: dict,
    trials: int,
    settings: dict,
    prompt_hashes: list | None,
    keep_turns: bool = False,
) -> None:
    """Fold one attempt record of the scanned condition into ``scan``."""
    for name, wanted in settings.items():
        if rec.get(name) != wanted:
            raise UserError(
                f"{path}: line {lineno}: condition {rec['condition']!r} was run with {name} {rec.get(name)!r}, this "
                f"run asks for {name} {wanted!r}; one condition keeps one set of settings, so give --condition "
                f"NEW_NAME to run these settings as another condition in this log, or use another --out"
            )
    scan.spent_usd += float(rec.get("cost_usd") or 0.0)
    row = board_rows.get(rec.get("board_id"))
    trial = rec.get("trial")
    if row is None or isinstance(trial, bool) or not isinstance(trial, int) or not 0 <= trial < trials:
        return  # a board or trial this run does not plan
    if prompt_hashes is not None and rec.get("prompt_text_sha256") not in (None, prompt_hashes[row]):
        raise UserError(
            f"{path}: line {lineno}: board {rec['board_id']!r} of condition {rec['condition']!r} was "
            f"asked with another prompt than this bank's board (the bank or the prompt changed); "
            f"give --condition NEW_NAME or use another --out"
        )
    attempt = rec.get("attempt")
    if isinstance(attempt, int) and attempt > scan.attempts[row, trial]:
        scan.attempts[row, trial] = attempt
    if rec.get("status") == OK:
        scan.done[row, trial] = True
        scan.turns.pop((row, trial), None)  # a finished conversation: its turns are not needed
    elif keep_turns and rec.get("status") == TURN and not scan.done[row, trial]:
        scan.turns.setdefault((row, trial), []).append((lineno, {k: rec.get(k) for k in TURN_FIELDS}))
