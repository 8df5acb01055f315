"""One Hanoi answer played out step by step (a ``fastspe.report.trace.Trace``): the pegs after each move, where the
plan broke, came closest and went in circles, drawn as three lines of disks with the disk just moved marked.

``hanoi_trace(bank_row, verdict_row)`` replays the verdict's ``moves`` (stored symbols) on the bank row's start with
the domain's rules (``rules.move``) and exact distances (the solver's table) in Python, a second replay beside the
kernel's, so that the viewer checks the verdict it shows (``Trace.disagreements``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fastspe.domains.codes import NO_ERROR
from fastspe.report.trace import Illegal, SHARED_REASONS, Trace, TracePage, format_failure, step_note, verdict_lines

from .rules import ERROR_NAMES, ERROR_REASONS, PEGS, SYMBOLS, TOKENS, move, read_start, state_code
from .solver import distance_table

__all__ = ["HanoiStep", "HanoiTrace", "hanoi_trace"]

REASONS = {**SHARED_REASONS, **ERROR_REASONS}


@dataclass(frozen=True)
class HanoiStep:
    """The pegs after move ``number`` (0: the start): each disk's peg, the disk moved (0-based, -1 at the start)."""

    number: int
    move: str  # the token, "" at step 0
    disk: int
    pegs: tuple[int, ...]
    h: int
    revisit_of: int | None = None  # the earlier step in this state


@dataclass(frozen=True)
class HanoiTrace(Trace):
    """A verdict row replayed on its start: the steps of its legal prefix and what the replay found."""

    board_id: str
    condition: str
    trial: int
    rule: str
    depth: int
    moves: tuple[str, ...]  # the answer's tokens ("?" for one that is not an action)
    steps: tuple[HanoiStep, ...]
    illegal: Illegal | None
    verdict: dict = field(default_factory=dict, repr=False)

    moved_heading = "disk"

    @property
    def disks(self) -> int:
        return len(self.steps[0].pegs)

    def summary_lines(self) -> list[str]:
        start = "".join(PEGS[p] for p in self.steps[0].pegs)
        return [
            f"state {self.board_id} ({self.disks} disks, start {start}, rule {self.rule}, d* = {self.depth}) · "
            f"condition {self.condition} · trial {self.trial}"
        ] + verdict_lines(self)

    def moved_text(self, step: HanoiStep) -> str:
        return str(step.disk + 1) if step.disk >= 0 else "-"

    def moved_label(self, step: HanoiStep) -> str:
        return f", disk {step.disk + 1}" if step.disk >= 0 else ""

    def peg_lines(self, step: HanoiStep) -> list[str]:
        """One line per peg, its disks bottom to top: ``A: 4 2 1``."""
        return [
            f"{name}: " + (" ".join(str(d + 1) for d in range(self.disks - 1, -1, -1) if step.pegs[d] == p) or "-")
            for p, name in enumerate(PEGS)
        ]

    def goal_lines(self) -> list[str]:
        return [
            f"{name}: " + ("-" if name != "C" else " ".join(str(d) for d in range(self.disks, 0, -1))) for name in PEGS
        ]

    def state_lines(self, step: HanoiStep) -> list[tuple[str, tuple[int, int] | None]]:
        """The peg lines, the moved disk (the last number of its new peg's line) highlighted."""
        out = []
        for p, line in enumerate(self.peg_lines(step)):
            span = None
            if step.disk >= 0 and step.pegs[step.disk] == p:
                label = str(step.disk + 1)
                span = (len(line) - len(label), len(line))
            out.append((line, span))
        return out

    def page(self) -> TracePage:
        steps = [
            {
                "n": s.number,
                "move": s.move,
                "disk": s.disk + 1,
                "h": s.h,
                "pegs": list(s.pegs),
                "note": step_note(self, s),
            }
            for s in self.steps
        ]
        stage = ['<div class="boards"><div><b>Pegs</b>', '<div id="board" class="hanoi"></div></div></div>']
        draw = (
            '    var board = document.getElementById("board"); board.textContent = "";\n'
            "    for (var p = 0; p < 3; p++){\n"
            '      var peg = document.createElement("div"); peg.className = "peg";\n'
            "      for (var d = s.pegs.length - 1; d >= 0; d--){\n"
            "        if (s.pegs[d] !== p) continue;\n"
            '        var disk = document.createElement("div");\n'
            '        disk.className = "cell disk" + (d + 1 === s.disk ? " moved" : "");\n'
            '        disk.style.width = (1.6 + 1.2 * (d + 1)) + "em"; disk.textContent = d + 1;\n'
            "        peg.appendChild(disk);\n"
            "      }\n"
            '      var name = document.createElement("div"); name.className = "peg-name";\n'
            '      name.textContent = "ABC"[p]; peg.appendChild(name); board.appendChild(peg);\n'
            "    }\n"
        )
        css = (
            ".hanoi{display:flex;gap:1.5em;align-items:flex-end;margin:.3em 0}\n"
            ".peg{display:flex;flex-direction:column-reverse;align-items:center;min-width:14em;min-height:12em;"
            "border-bottom:4px solid #555;justify-content:flex-start}\n"
            ".peg .disk{height:1.3em;width:auto;margin:1px 0}\n.peg-name{font-weight:bold;order:-1}\n"
        )
        return TracePage(
            stage,
            steps,
            draw,
            '(s.disk > 0 ? ", disk " + s.disk : "")',
            "yellow: the disk just moved; each peg drawn bottom to top",
            css,
        )


def replay_start(start: str, rule: str, moves: str) -> tuple[list[HanoiStep], Illegal | None]:
    """The steps of ``moves`` (stored symbols) up to the first illegal action, and that action (None if all legal)."""
    pegs = read_start(start)
    dist = distance_table(len(pegs), rule).dist
    steps = [HanoiStep(0, "", -1, pegs, int(dist[state_code(pegs)]))]
    seen = {pegs: 0}
    for i, symbol in enumerate(moves):
        code = SYMBOLS.find(symbol)
        token = TOKENS[code] if code >= 0 else "?"
        after, disk, error = move(pegs, code, rule)
        if error != NO_ERROR:
            name = ERROR_NAMES[error]
            return steps, Illegal(i + 1, token, name, REASONS[name])
        pegs = after
        steps.append(HanoiStep(i + 1, token, disk, pegs, int(dist[state_code(pegs)]), seen.get(pegs)))
        seen.setdefault(pegs, i + 1)
    return steps, None


def hanoi_trace(bank_row: dict, verdict_row: dict) -> HanoiTrace:
    """The trace of one verdict row on its bank row (``start``, ``rule``, ``depth``; the verdict's ``board_id,
    condition, trial, moves``, with ``error_kind`` for a format failure)."""
    moves = str(verdict_row.get("moves") or "")
    steps, illegal = replay_start(str(bank_row["start"]), str(bank_row["rule"]), moves)
    tokens = tuple(TOKENS[SYMBOLS.index(s)] if s in SYMBOLS else "?" for s in moves)
    return HanoiTrace(
        str(verdict_row["board_id"]),
        str(verdict_row["condition"]),
        int(verdict_row["trial"]),
        str(bank_row["rule"]),
        int(bank_row["depth"]),
        tokens,
        tuple(steps),
        format_failure(verdict_row) or illegal,
        dict(verdict_row),
    )
