"""The Sokoban planning prompt, in the form of the paper's Appendix B: the level in XSB, the rules, the answer form.

Versioned and hashed as the sliding puzzle's prompt is: ``PROMPT_SHA256`` is the hash of the template itself
(placeholders included), so a change of wording changes the hash every run log records; ``prompt_sha256(text)``
(``contract.prompt_hash``, the SHA-256 of its UTF-8) identifies one rendered request.
"""

from __future__ import annotations

from ..contract import prompt_hash as prompt_sha256
from .level import parse_level

__all__ = [
    "PROMPT_VERSION",
    "PROMPT_TEMPLATE",
    "PROMPT_SHA256",
    "PUSH_PROMPT_TEMPLATE",
    "PUSH_PROMPT_SHA256",
    "render_prompt",
    "prompt_fields",
]

PROMPT_VERSION = "sokoban/1"

# The template's named parts (``prompt_fields``: prompt variants reuse them); the template is made of them.
RULES_TEXT = (
    "# is a wall, a space is floor, . is a goal, $ is a box, * is a box on a goal,\n"
    "@ is you (the player), + is you standing on a goal.\n"
    "U/D/L/R move you one cell up/down/left/right.\n"
    "Moving into a box pushes it one cell further, if that cell is floor or a goal.\n"
    "Never walk into a wall or push a box into a wall or another box.\n"
    "The level is solved when every box is on a goal.\n"
    "Find a shortest complete sequence of moves that solves it (every push is a move)."
)  # its last line is ``MOVES_AIM``
ANSWER_FORM = "comma-separated U,D,L,R"
ANSWER_LINE = f"Return only MOVES: followed by {ANSWER_FORM}."

PROMPT_TEMPLATE = (
    "You are solving a {rows}-by-{cols} Sokoban level.\n" + RULES_TEXT + "\n" + ANSWER_LINE + "\nLevel:\n{level}"
)

PROMPT_SHA256 = prompt_sha256(PROMPT_TEMPLATE)

# A bank certifying fewest pushes (``objective`` pushes) asks for that: the same prompt, its aim line replaced. Run
# logs record the domain's template hash (``PROMPT_SHA256``) for both; each answer's ``prompt_text_sha256`` is the
# rendered prompt's, so an answer to one is never scored against the other.
MOVES_AIM = "Find a shortest complete sequence of moves that solves it (every push is a move)."
PUSHES_AIM = (
    "Find a complete sequence of moves that solves it with the fewest pushes (a push is a move that moves a "
    "box), and among those the fewest moves."
)
PUSH_RULES_TEXT = RULES_TEXT.replace(MOVES_AIM, PUSHES_AIM)
PUSH_PROMPT_TEMPLATE = PROMPT_TEMPLATE.replace(MOVES_AIM, PUSHES_AIM)
PUSH_PROMPT_SHA256 = prompt_sha256(PUSH_PROMPT_TEMPLATE)
_RULES = {"moves": RULES_TEXT, "pushes": PUSH_RULES_TEXT}


def render_prompt(level_text: str, objective: str = "moves") -> str:
    """The prompt for one level (XSB text; ``parse_level`` checks it), the level drawn in its canonical XSB; the aim
    is the fewest moves, or the fewest pushes with ``objective`` "pushes" (a push bank's).

    Returns the prompt, lines separated by ``\\n``, no trailing newline.
    """
    level = parse_level(level_text)
    template = PUSH_PROMPT_TEMPLATE if objective == "pushes" else PROMPT_TEMPLATE
    return template.format(rows=level.rows, cols=level.cols, level=level.text)


def _objective(row) -> str:
    """A bank row's objective: its ``objective`` column where the bank has one, else moves."""
    return row.get("objective") or "moves" if hasattr(row, "get") else "moves"


def render_row(row) -> str:
    """The prompt of one bank row (a mapping of its columns): the domain's ``render_prompt``."""
    return render_prompt(row["level"], _objective(row))


def prompt_fields(row) -> dict[str, str]:
    """The named parts of one bank row's prompt (``Domain.prompt_fields``): rules, answer instruction, the level."""
    level = parse_level(row["level"])
    return {
        "rules": _RULES.get(_objective(row), RULES_TEXT),
        "answer": ANSWER_LINE,
        "answer_form": ANSWER_FORM,
        "rows": str(level.rows),
        "cols": str(level.cols),
        "level": level.text,
    }
