"""``fastspe show``: one model answer played out on its board, as text or as a self-contained HTML page."""

from __future__ import annotations

import sys

from ._common import MAX_TRIALS, int_option, refuse_overwrite, say, text_option, warn
from ..errors import UserError

FORMATS = ("auto", "grid", "trace")
MAX_LISTED = 20  # matching (condition, trial) pairs listed when the choice is not made


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "show", help="replay one answer on its board, step by step",
        description="Replay one verdict's plan on its board: the board after each move on a terminal, one line per "
                    "move on a pipe, with the first illegal move (and why), the closest approach to the goal (least "
                    "h and its step) and every revisited state. --html writes the same as one self-contained page "
                    "with a step slider. On a Sokoban bank the level is drawn in XSB after each move.")
    p.add_argument("--bank", required=True, help="bank file the answers were scored against (.parquet or .jsonl)")
    p.add_argument("--verdicts", required=True, metavar="VERDICTS", help="verdicts file from `fastspe score`")
    p.add_argument("--board", required=True, type=text_option, metavar="ID", help="board_id to show")
    p.add_argument("--condition", type=text_option, metavar="C",
                   help="condition to show (needed when the board has answers under several)")
    p.add_argument("--trial", type=int_option(0, MAX_TRIALS), metavar="N",
                   help="trial to show (needed when the board has several under the condition)")
    p.add_argument("--html", metavar="FILE", help="also write the replay as a self-contained HTML page")
    p.add_argument("--format", choices=FORMATS, default="auto",
                   help="grid: the board after every move; trace: one line per move; auto: grid on a terminal, "
                        "trace otherwise")
    p.set_defaults(func=run_show)


def _pick(frame, board: str, condition: str | None, trial: int | None):
    """The one verdict row the options name; a UserError naming the option that does not fit, or None
    after listing the candidates when the options leave several."""
    rows = frame[frame["board_id"] == board]
    if rows.empty:
        raise UserError(f"--board {board!r}: no verdict of this board in the verdicts file (is it the bank's id?)")
    if condition is not None:
        known = sorted(rows["condition"].unique())
        rows = rows[rows["condition"] == condition]
        if rows.empty:
            raise UserError(f"--condition {condition!r}: board {board!r} has no verdict under it; its conditions: "
                            f"{', '.join(known)}")
    if trial is not None:
        known = sorted(int(t) for t in rows["trial"].unique())
        rows = rows[rows["trial"] == trial]
        if rows.empty:
            raise UserError(f"--trial {trial}: board {board!r} has no such trial"
                            f"{'' if condition is None else ' under ' + repr(condition)}; its trials: "
                            f"{', '.join(map(str, known))}")
    if len(rows) == 1:
        return rows.iloc[0].to_dict()
    pairs = rows.sort_values(["condition", "trial"])[["condition", "trial"]].itertuples(index=False)
    listed = [f"  --condition {c} --trial {int(t)}" for c, t in pairs]
    say(f"board {board} has {len(listed)} answers; choose one:\n" + "\n".join(listed[:MAX_LISTED])
        + (f"\n  ... {len(listed) - MAX_LISTED} more" if len(listed) > MAX_LISTED else ""), err=True)
    return None


def run_show(args) -> int:
    from ..bank.build import read_bank
    from ..boundary.verdicts import read_verdicts
    from ..domains.registry import domain_name_of
    from ..report.sokoban_viewer import sokoban_trace, sokoban_trace_lines
    from ..report.viewer import plan_trace, trace_lines

    if args.html:
        refuse_overwrite({"--bank": args.bank, "--verdicts": args.verdicts}, {"--html": args.html})
    bank = read_bank(args.bank)
    sokoban = domain_name_of(bank) == "sokoban"
    verdicts = read_verdicts(args.verdicts, bank).frame
    row = _pick(verdicts, args.board, args.condition, args.trial)
    if row is None:
        raise UserError(f"--board {args.board!r} has several answers: give --condition and --trial to pick one")
    trace = (sokoban_trace if sokoban else plan_trace)(bank[bank["board_id"] == args.board].iloc[0].to_dict(), row)
    for what in trace.disagreements():
        warn(f"the replay here and the verdict differ ({what}); was the verdicts file scored against this bank?")
    mode = args.format if args.format != "auto" else ("grid" if sys.stdout.isatty() else "trace")
    if mode == "grid":
        _print_levels(trace) if sokoban else _print_grid(trace)
    else:
        say("\n".join((sokoban_trace_lines if sokoban else trace_lines)(trace)))
    if args.html:
        from ..report.viewer_html import write_trace_page

        write_trace_page(trace, args.html)
        say(f"wrote {args.html}")
    return 0


def _print_grid(trace) -> None:
    """The board after every move, the moved tile in brackets (and reversed on a colour terminal)."""
    from rich.text import Text

    from ..report.viewer import grid_lines, step_note, summary_lines

    def board(step_board, moved: int = 0) -> None:
        for line in grid_lines(step_board, trace.cols, moved):
            if moved and f"[{moved}]" in line:
                at = line.index(f"[{moved}]")
                end = at + len(f"[{moved}]")
                say(Text.assemble(line[:at], (line[at:end], "bold reverse"), line[end:]))
            else:
                say(line)

    say("\n".join(summary_lines(trace)))
    say("\ngoal:")
    board(trace.goal)
    for step in trace.steps:
        head = "start" if step.number == 0 else f"move {step.number}: {step.move}, tile {step.tile}"
        note = step_note(trace, step)
        say(f"\nstep {step.number} ({head}) · h = {step.h}" + (f" · {note}" if note else ""))
        board(step.board, step.tile)
    _say_illegal(trace)


def _say_illegal(trace) -> None:
    if trace.illegal is not None:
        bad = trace.illegal
        say(f"\nmove {bad.number} {bad.move!r}: {bad.reason}; the replay stops here" if bad.kind != "format"
            else f"\n{bad.reason}: the answer has no plan to replay")


def _print_levels(trace) -> None:
    """A Sokoban answer: the level in XSB after every move, the box just pushed reversed on a colour terminal."""
    from rich.text import Text

    from ..report.sokoban_viewer import pushed_at, sokoban_summary_lines
    from ..report.viewer import step_note

    say("\n".join(sokoban_summary_lines(trace)))
    for step in trace.steps:
        head = "start" if step.number == 0 else f"move {step.number}: {step.move}" + (", push" if step.pushed >= 0
                                                                                       else "")
        note = step_note(trace, step)
        say(f"\nstep {step.number} ({head}) · h = {step.h}" + (f" · {note}" if note else ""))
        box = pushed_at(trace, step)
        for r, line in enumerate(trace.text(step).split("\n")):
            if box is not None and r == box[0]:
                say(Text.assemble(line[:box[1]], (line[box[1]], "bold reverse"), line[box[1] + 1:]))
            else:
                say(line)
    _say_illegal(trace)
