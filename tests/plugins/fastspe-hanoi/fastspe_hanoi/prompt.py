"""The Hanoi planning prompt, in the form of the paper's Appendix B: the state, the rules, the answer form.

Versioned and hashed as fastspe's own prompts are: ``PROMPT_SHA256`` is the hash of the template itself (placeholders
included, ``fastspe.domains.contract.prompt_hash``), so a change of wording changes the hash every run log records.
The rule sentence is part of the template's text (one per rule), so both are covered by the hash.
"""

from __future__ import annotations

from fastspe.domains.contract import prompt_hash

from .rules import check_rule, goal_text, read_start

__all__ = [
    "PROMPT_VERSION",
    "PROMPT_TEMPLATE",
    "RULE_TEXT",
    "PROMPT_SHA256",
    "render_prompt",
    "pegs_drawing",
    "prompt_fields",
]

PROMPT_VERSION = "hanoi/1"

# The template's named parts (``prompt_fields``: prompt variants reuse them); the template is made of them.
RULES_TEXT = (
    "Disk 1 is the smallest and disk {disks} the largest.\n"
    "A move takes the top disk of one peg and puts it on another peg.\n"
    "Never put a disk onto a smaller disk, and never move from an empty peg.\n"
    "{rule_text}\n"
    "Write a move as its source peg then its target peg: AB moves the top disk of A onto B.\n"
    "Find a shortest complete sequence of moves that puts every disk on peg C."
)
ANSWER_FORM = "comma-separated moves (AB, AC, BA, BC, CA, CB)"
ANSWER_LINE = f"Return only MOVES: followed by {ANSWER_FORM}."

PROMPT_TEMPLATE = (
    "You are solving a Tower of Hanoi puzzle with {disks} disks on three pegs A, B and C.\n"
    + RULES_TEXT
    + "\n"
    + ANSWER_LINE
    + "\n"
    "Initial pegs (bottom to top):\n"
    "{initial}\n"
    "Goal pegs (bottom to top):\n"
    "{goal}"
)
RULE_TEXT = {
    "classic": "A disk may move between any two pegs.",
    "adjacent": "A disk may move only between adjacent pegs: A and B, or B and C (never directly between A and C).",
}

PROMPT_SHA256 = prompt_hash(PROMPT_TEMPLATE + "".join(f"\n{k}: {v}" for k, v in RULE_TEXT.items()))


def pegs_drawing(start: str) -> str:
    """Three lines, one per peg, its disks bottom to top (``A: 3 1``; an empty peg ``B: -``)."""
    pegs = read_start(start)
    lines = []
    for p, name in enumerate("ABC"):
        disks = [str(d + 1) for d in range(len(pegs) - 1, -1, -1) if pegs[d] == p]
        lines.append(f"{name}: {' '.join(disks) if disks else '-'}")
    return "\n".join(lines)


def render_prompt(start: str, rule: str) -> str:
    """The prompt for one state (peg letters, disk 1 first) under ``rule``: lines joined by ``\\n``, no trailing
    newline."""
    disks = len(read_start(start))
    return PROMPT_TEMPLATE.format(
        disks=disks,
        rule_text=RULE_TEXT[check_rule(rule)],
        initial=pegs_drawing(start),
        goal=pegs_drawing(goal_text(disks)),
    )


def render_row(row) -> str:
    """The prompt of one bank row (a mapping of its columns): the domain's ``render_prompt``."""
    return render_prompt(row["start"], row["rule"])


def prompt_fields(row) -> dict[str, str]:
    """The named parts of one bank row's prompt (``Domain.prompt_fields``): rules, answer instruction, the pegs."""
    disks = len(read_start(row["start"]))
    rule_text = RULE_TEXT[check_rule(row["rule"])]
    return {
        "rules": RULES_TEXT.format(disks=disks, rule_text=rule_text),
        "answer": ANSWER_LINE,
        "answer_form": ANSWER_FORM,
        "disks": str(disks),
        "rule_text": rule_text,
        "initial": pegs_drawing(row["start"]),
        "goal": pegs_drawing(goal_text(disks)),
    }
