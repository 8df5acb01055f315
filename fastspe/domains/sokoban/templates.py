"""Fixed room templates for Sokoban designs: walls only; a design's goals and boxes are drawn inside them.

As the paper's Appendix A balances block layouts within a cell (five boards per layout and depth), a cell that
names templates gets the same number of levels in each. Each room is closed by walls, its floor connected, at most
``walks.CELLS`` cells; its name, once published, never changes its walls (banks of a seed would change).
"""

from __future__ import annotations

import numpy as np

from ...errors import UserError

__all__ = ["ROOM_TEMPLATES", "template_walls", "check_template_names"]

# name -> drawing ('#' wall, ' ' floor): rooms with walls to get around (a box's way to its goal winds), each deep
# enough for one box at d* 40 and small enough for four boxes' reverse play to reach d* 60 within REVERSE_CAP states
ROOM_TEMPLATES: dict[str, str] = {
    "zigzag": (
        "##########\n"
        "#   #    #\n"
        "#   #    #\n"
        "#   #  # #\n"
        "#      # #\n"
        "#  ##  # #\n"
        "#   #  # #\n"
        "#   #    #\n"
        "#   #    #\n"
        "##########"
    ),
    "galleries": (
        "##########\n"
        "#    #   #\n"
        "#    #   #\n"
        "#        #\n"
        "###  #####\n"
        "#        #\n"
        "#   #    #\n"
        "#   #    #\n"
        "#   #    #\n"
        "##########"
    ),
    "two-rooms": ("#########\n#   #   #\n#   #   #\n#       #\n#   #   #\n## ### ##\n#       #\n#   #   #\n#########"),
    "alcoves": ("#########\n#    ####\n# #     #\n#   ##  #\n##      #\n#  #  # #\n#     # #\n###     #\n#########"),
}


def template_walls(name: str, cells: int) -> tuple[np.ndarray, int, int]:
    """The walls of template ``name`` as bool (cells,), row-major over its cols, and (rows, cols)."""
    lines = ROOM_TEMPLATES[name].split("\n")
    rows, cols = len(lines), max(len(line) for line in lines)
    wall = np.ones(cells, dtype=np.bool_)
    for r, line in enumerate(lines):
        for q, ch in enumerate(line.ljust(cols, "#")):
            wall[r * cols + q] = ch == "#"
    return wall, rows, cols


def check_template_names(names, where: str) -> tuple[str, ...]:
    """A cell's ``templates``: a non-empty list of distinct known names, as a tuple."""
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise UserError(f"{where} must be a non-empty list of template names ({', '.join(ROOM_TEMPLATES)})")
    unknown = [n for n in names if n not in ROOM_TEMPLATES]
    if unknown:
        raise UserError(f"{where} names unknown templates {unknown} (known: {', '.join(ROOM_TEMPLATES)})")
    if len(set(names)) != len(names):
        raise UserError(f"{where} names a template twice: {names}")
    return tuple(names)
