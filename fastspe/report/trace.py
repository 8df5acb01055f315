"""One answer played out step by step, in any domain: where the plan broke, came closest and went in circles.

A domain's ``Domain.trace(bank_row, verdict_row)`` replays the verdict's ``moves`` on the bank row with plain Python
and returns a ``Trace`` (a frozen dataclass of the domain's, with the fields below) whose steps are its states: step 0
is the start; step i is the state after the i-th move, so the illegal action at ``first_error`` (0-based, as verdicts
count) is move ``first_error + 1``. A second replay is what lets the viewer check the verdict it shows
(``Trace.disagreements``). The text views (``fastspe show``), the page (``report.viewer_html``) and the report's
example pages read a trace through the methods below, which a domain's trace fills in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

from ..domains.codes import SHARED_REASONS

__all__ = [
    "Illegal",
    "Trace",
    "TracePage",
    "SHARED_REASONS",
    "verdict_value",
    "format_failure",
    "step_note",
    "verdict_lines",
    "trace_lines",
    "move_table",
]


@dataclass(frozen=True)
class Illegal:
    """The first illegal action: move ``number`` (1-based; 0 for an answer without a move list), its kind (a verdict's
    ``error_kind``) and why, in words."""

    number: int
    move: str
    kind: str
    reason: str


@dataclass(frozen=True)
class TracePage:
    """What a domain draws on a trace's HTML page (``report.viewer_html`` builds the rest: title, summary, slider,
    move list, legend, script frame).

    stage : HTML of the state panel(s); the element ``id="board"`` is redrawn at each step by ``draw``
    steps : one JSON object per step (``n``, ``move``, ``h``, ``note`` and what ``draw`` reads)
    draw : JavaScript that draws step ``s`` (``data.steps[i]``, the step number ``i``) into ``#board``; ``cells`` holds
        the ``.cell`` elements under ``#board``
    moved : a JavaScript expression of ``s``: what the move moved, for the step label (``", tile " + s.tile``)
    legend : the first legend entry, plain text ("yellow: the tile just moved")
    css : the domain's own style rules
    data : more JSON the script may read (``data.cols``)
    """

    stage: Sequence[str]
    steps: list
    draw: str
    moved: str
    legend: str
    css: str = ""
    data: dict = field(default_factory=dict)


class Trace:
    """What every domain's trace says from its ``steps``, ``illegal``, ``moves`` and ``verdict`` (fields of the
    domain's dataclass, with ``board_id``, ``condition``, ``trial`` and ``depth``), and the views it fills in."""

    moved_heading = "moved"  # the heading of the move table's column of what each move moved ("tile", "push")

    # ---- what the replay found ------------------------------------------------------------------------------

    @property
    def status(self) -> str:
        if self.illegal is not None:
            return "illegal"
        return "complete" if self.steps[-1].h == 0 else "legal_noncompletion"

    @property
    def first_error(self) -> int:
        """0-based index of the first illegal action, -1 without one (a format failure has none either)."""
        return self.illegal.number - 1 if self.illegal is not None and self.illegal.kind != "format" else -1

    @property
    def closest(self):
        """The first step with the least h (the start included)."""
        return min(self.steps, key=lambda s: (s.h, s.number))

    @property
    def revisits(self) -> list:
        return [s for s in self.steps if s.revisit_of is not None]

    @property
    def final(self):
        return self.steps[-1]

    def disagreements(self) -> list[str]:
        """What this replay and the verdict row say differently (empty when they agree)."""
        found = {
            "status": self.status,
            "L": len(self.moves),
            "first_error": self.first_error,
            "error_kind": self.illegal.kind if self.illegal else "",
            "final_h": self.final.h,
            "min_h": self.closest.h,
            "revisits": len(self.revisits),
        }
        out = []
        for name, mine in found.items():
            if name not in self.verdict:
                continue
            theirs = verdict_value(self.verdict[name], name)
            if theirs != mine:
                out.append(f"{name}: verdict {theirs!r}, replay {mine!r}")
        return out

    # ---- what the domain fills in ---------------------------------------------------------------------------

    def summary_lines(self) -> list[str]:
        """The verdict in words: the state's own line, then ``verdict_lines(self)`` (and anything the domain adds)."""
        raise NotImplementedError

    def moved_text(self, step) -> str:
        """What the move of ``step`` moved, for the move table's ``moved_heading`` column ("7", "box", "-")."""
        return "-"

    def moved_label(self, step) -> str:
        """What the move of ``step`` moved, after the move in a step's heading (", tile 7", ", push"; "" if nothing)."""
        return ""

    def step_notes(self, step) -> list[str]:
        """What the domain finds remarkable about ``step``, after the shared notes (``step_note``); none by default."""
        return []

    def move_mark(self, step) -> tuple[str, str]:
        """A class for the move of ``step`` in the page's move list (styled by ``TracePage.css``) and what its title
        adds ("", "" by default)."""
        return "", ""

    def goal_lines(self) -> list[str]:
        """The goal as text lines, shown once before the steps (none when the state's own text shows it)."""
        return []

    def state_lines(self, step) -> list[tuple[str, tuple[int, int] | None]]:
        """The state at ``step`` as text lines, each with the (start, end) span to highlight (what just moved)."""
        raise NotImplementedError

    def page(self) -> TracePage:
        """The domain's part of the HTML page."""
        raise NotImplementedError


def verdict_value(value, name: str):
    """A verdict cell as the replay states it: a missing error kind is "", a missing first error -1."""
    missing = value is None or (isinstance(value, float) and math.isnan(value))
    if name == "error_kind":
        return "" if missing else str(value)
    if name == "status":
        return str(value)
    return -1 if missing else int(value)


def format_failure(verdict_row: dict) -> Illegal | None:
    """The verdict's own call on an answer without a move list (no replay can find that), else None."""
    if verdict_value(verdict_row.get("error_kind"), "error_kind") == "format":
        return Illegal(0, "", "format", SHARED_REASONS["format"])
    return None


def step_note(trace: Trace, step) -> str:
    """What is remarkable about a step: the closest approach, a revisit."""
    notes = []
    if step.number == trace.closest.number:
        notes.append("closest to the goal")
    if step.revisit_of is not None:
        notes.append(f"revisits step {step.revisit_of}")
    return "; ".join(notes + trace.step_notes(step))


def verdict_lines(trace: Trace) -> list[str]:
    """Status, length, first illegal move, closest approach, revisits (any domain's trace)."""
    out = [f"status {trace.status} · L = {len(trace.moves)} · h {trace.steps[0].h} -> {trace.final.h}"]
    if trace.illegal is not None:
        bad = trace.illegal
        out.append(
            "first illegal: none taken, " + bad.reason
            if bad.kind == "format"
            else f"first illegal: move {bad.number} ({bad.move!r}): {bad.reason} (first_error = {bad.number - 1})"
        )
    close = trace.closest
    out.append(f"closest to the goal: h = {close.h} at step {close.number}")
    revisits = trace.revisits
    if revisits:
        shown = ", ".join(f"step {s.number} = step {s.revisit_of}" for s in revisits[:10])
        out.append(f"revisits: {len(revisits)} ({shown}{', ...' if len(revisits) > 10 else ''})")
    else:
        out.append("revisits: none")
    return out


def trace_lines(trace: Trace) -> list[str]:
    """The compact trace for a pipe: the summary, then one line per move (step, move, what it moved, h after it)."""
    return trace.summary_lines() + move_table(trace)


def move_table(trace: Trace) -> list[str]:
    """A header and one line per move: step, move, what it moved (``moved_text``), h, note."""
    rows = [("0", "-", "-", str(trace.steps[0].h), step_note(trace, trace.steps[0]))]
    rows += [(str(s.number), s.move, trace.moved_text(s), str(s.h), step_note(trace, s)) for s in trace.steps[1:]]
    if trace.illegal is not None and trace.illegal.kind != "format":
        rows.append((str(trace.illegal.number), trace.illegal.move, "-", "-", f"illegal: {trace.illegal.reason}"))
    return [_columns(("step", "move", trace.moved_heading, "h", "note"))] + [_columns(r) for r in rows]


def _columns(row) -> str:
    step, move, moved, h, note = row
    return f"{step:>5}  {move:<4} {moved:>4} {h:>4}  {note}".rstrip()
