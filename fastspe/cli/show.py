"""``fastspe show``: one model answer played out on its board, as text or as a self-contained HTML page."""

from __future__ import annotations

import sys

from ._common import MAX_TRIALS, int_option, note, refuse_overwrite, say, text_option, warn
from ..errors import UserError

FORMATS = ("auto", "grid", "trace")
MAX_LISTED = 20  # matching (condition, trial) pairs listed when the choice is not made


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "show",
        help="replay one answer on its board, step by step",
        description="Replay one verdict's plan on its board: the board after each move on a terminal, one line per "
        "move on a pipe, with the first illegal move (and why), the closest approach to the goal (least "
        "h and its step) and every revisited state. --html writes the same as one self-contained page "
        "with a step slider. Each domain draws its own states (a grid of tiles, a level in XSB text, ...).",
    )
    p.add_argument("--bank", required=True, help="bank file the answers were scored against (.parquet or .jsonl)")
    p.add_argument("--verdicts", required=True, metavar="VERDICTS", help="verdicts file from `fastspe score`")
    p.add_argument("--board", required=True, type=text_option, metavar="ID", help="board_id to show")
    p.add_argument(
        "--condition",
        type=text_option,
        metavar="C",
        help="condition to show (needed when the board has answers under several)",
    )
    p.add_argument(
        "--trial",
        type=int_option(0, MAX_TRIALS),
        metavar="N",
        help="trial to show (needed when the board has several under the condition)",
    )
    p.add_argument(
        "--responses",
        metavar="FILE",
        help="the run log or responses file the verdicts were scored from: shows the answer's text as "
        "received (verdicts keep only the parsed moves)",
    )
    p.add_argument(
        "--prompt",
        action="store_true",
        help="also print what was asked: the answer's messages (system, worked examples, the board's "
        "prompt), from the prompts sidecar beside --responses or --prompts (NAME.prompts.jsonl) or, "
        "for the paper prompt, rendered from the bank",
    )
    p.add_argument(
        "--prompts",
        metavar="EXPORT.jsonl",
        help="with --prompt: the prompt export (`fastspe prompts export`) the answer replied to, when its "
        "answers were scored through `score --prompts`",
    )
    p.add_argument("--html", metavar="FILE", help="also write the replay as a self-contained HTML page")
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="auto",
        help="grid: the board after every move; trace: one line per move; auto: grid on a terminal, trace otherwise",
    )
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
            raise UserError(
                f"--condition {condition!r}: board {board!r} has no verdict under it; its conditions: "
                f"{', '.join(known)}"
            )
    if trial is not None:
        known = sorted(int(t) for t in rows["trial"].unique())
        rows = rows[rows["trial"] == trial]
        if rows.empty:
            raise UserError(
                f"--trial {trial}: board {board!r} has no such trial"
                f"{'' if condition is None else ' under ' + repr(condition)}; its trials: "
                f"{', '.join(map(str, known))}"
            )
    if len(rows) == 1:
        return rows.iloc[0].to_dict()
    pairs = rows.sort_values(["condition", "trial"])[["condition", "trial"]].itertuples(index=False)
    listed = [f"  --condition {c} --trial {int(t)}" for c, t in pairs]
    say(
        f"board {board} has {len(listed)} answers; choose one:\n"
        + "\n".join(listed[:MAX_LISTED])
        + (f"\n  ... {len(listed) - MAX_LISTED} more" if len(listed) > MAX_LISTED else ""),
        err=True,
    )
    return None


def run_show(args) -> int:
    from ..boundary.banks import load_bank
    from ..boundary.verdict_files import read_verdicts
    from ..report.trace import trace_lines

    if args.html:
        refuse_overwrite(
            {
                "--bank": args.bank,
                "--verdicts": args.verdicts,
                "--responses": args.responses,
                "--prompts": args.prompts,
            },
            {"--html": args.html},
        )
    bank = load_bank(args.bank)
    verdicts = read_verdicts(args.verdicts, bank).frame
    row = _pick(verdicts, args.board, args.condition, args.trial)
    if row is None:
        raise UserError(f"--board {args.board!r} has several answers: give --condition and --trial to pick one")
    frame = bank.frame
    trace = bank.domain.trace(frame[frame["board_id"] == args.board].iloc[0].to_dict(), row)
    for what in trace.disagreements():
        warn(f"the replay here and the verdict differ ({what}); was the verdicts file scored against this bank?")
    answer = _answer_text(args, row)
    if args.prompt:
        say("\n".join(_asked_lines(args, row, bank, frame[frame["board_id"] == args.board])) + "\n")
    mode = args.format if args.format != "auto" else ("grid" if sys.stdout.isatty() else "trace")
    if mode == "grid":
        _print_states(trace)
    else:
        say("\n".join(trace_lines(trace)))
    turns = _conversation(args, row)
    if turns:
        from ..report.conversation import conversation_lines

        say("\n" + "\n".join(conversation_lines(turns)))
    if answer is not None:
        from ..report.answer import answer_lines

        say("\n" + "\n".join(answer_lines(answer)))
    elif trace.illegal is not None and trace.illegal.kind == "format":
        note(
            "the answer's text is not in the verdicts: give --responses FILE (the run log or responses file they "
            "were scored from) to see it"
        )
    if args.html:
        from ..report.viewer_html import write_trace_page

        write_trace_page(trace, args.html, answer)
        say(f"wrote {args.html}")
    return 0


def _answer_text(args, row: dict) -> str | None:
    """The picked answer's text as received: the verdict's own ``response`` where it carries one, else the
    --responses file's answer of the same board, condition and trial (None without either)."""
    if isinstance(row.get("response"), str):
        return row["response"]
    if args.responses is None:
        return None
    from ..boundary.responses import read_responses

    answers = read_responses(args.responses)
    hit = answers[
        (answers["board_id"] == row["board_id"])
        & (answers["condition"] == row["condition"])
        & (answers["trial"] == int(row["trial"]))
    ]
    if hit.empty:
        raise UserError(
            f"--responses {args.responses}: no answer of board {row['board_id']!r}, condition "
            f"{row['condition']!r}, trial {int(row['trial'])} (is it the file these verdicts were "
            "scored from?)"
        )
    text = hit.iloc[-1]["response"]
    return text if isinstance(text, str) else ""


def _conversation(args, row: dict) -> list[dict]:
    """The answered turns of the picked answer's conversation in the --responses run log (none for one answer)."""
    if args.responses is None or not row.get("protocol") or not isinstance(row.get("protocol"), str):
        return []
    from ..boundary.conversations import conversation_records

    return conversation_records(args.responses, str(row["condition"]), str(row["board_id"]), int(row["trial"]))


def _recorded(row: dict, name: str) -> str | None:
    value = row.get(name)
    return value if isinstance(value, str) and value else None


def _asked_lines(args, row: dict, bank, bank_rows) -> list[str]:
    """What the picked answer was asked, message by message: its spec (the paper prompt when the answer records
    none) and user message from the prompts sidecar beside --responses, else rendered from the bank."""
    from ..domains.contract import prompt_hash
    from ..prompting import PAPER_SPEC, prompt_text_of, spec_of, user_texts

    spec_sha, text_sha = _recorded(row, "prompt_spec_sha256"), _recorded(row, "prompt_text_sha256")
    kept = [path for path in (args.prompts, args.responses) if path is not None]  # files with a sidecar beside
    spec = PAPER_SPEC
    if spec_sha is not None:
        spec = next((s for s in (spec_of(path, spec_sha) for path in kept) if s is not None), None)
        if spec is None:
            where = f"the prompts sidecar of {' or '.join(kept)}" if kept else "no --responses or --prompts given"
            raise UserError(
                f"--prompt: the answer was asked with prompt variant {row.get('prompt_variant')!r} "
                f"(spec {spec_sha[:12]}), which {where} does not keep; give --responses FILE (the run "
                f"log the answers came from) or --prompts EXPORT.jsonl (the export), whose "
                f"NAME.prompts.jsonl is beside it"
            )
    text = (
        next((t for t in (prompt_text_of(path, text_sha) for path in kept) if t is not None), None)
        if text_sha
        else None
    )
    if text is None:
        text = user_texts(spec, bank.domain, bank_rows)[0]
        if text_sha is not None and prompt_hash(text) != text_sha:
            warn(
                "--prompt: the answer's prompt hash is not that of the prompt rendered here from the bank; shown as "
                "rendered"
            )
    messages = spec.opening(text) or ({"role": "user", "content": text},)
    lines = [f"asked ({spec.label} prompt" + (f", spec {spec.sha256[:12]}" if not spec.is_default else "") + "):"]
    for message in messages:
        lines += [f"[{message['role']}]", message["content"]]
    return lines


def _print_states(trace) -> None:
    """The state after every move, what the move moved reversed on a colour terminal (and marked in the text)."""
    from rich.text import Text

    from ..report.trace import step_note

    say("\n".join(trace.summary_lines()))
    goal = trace.goal_lines()
    if goal:
        say("\ngoal:")
        say("\n".join(goal))
    for step in trace.steps:
        head = "start" if step.number == 0 else f"move {step.number}: {step.move}{trace.moved_label(step)}"
        note = step_note(trace, step)
        say(f"\nstep {step.number} ({head}) · h = {step.h}" + (f" · {note}" if note else ""))
        for line, span in trace.state_lines(step):
            if span is None:
                say(line)
            else:
                say(Text.assemble(line[: span[0]], (line[span[0] : span[1]], "bold reverse"), line[span[1] :]))
    if trace.illegal is not None:
        bad = trace.illegal
        say(
            f"\nmove {bad.number} {bad.move!r}: {bad.reason}; the replay stops here"
            if bad.kind != "format"
            else f"\n{bad.reason}: the answer has no plan to replay"
        )
