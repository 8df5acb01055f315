"""Published Sokoban levels kept in tests/data/sokoban/ (see its README for their source and credit)."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).parent / "data" / "sokoban"


def microban() -> list[tuple[str, str]]:
    """Microban's 155 levels as (number, XSB text), in order."""
    levels, lines, name = [], [], "1"
    for line in (DATA / "microban.txt").read_text().split("\n") + [";"]:
        if line.startswith(";"):
            if any(x.strip() for x in lines):
                levels.append((name, "\n".join(x for x in lines if x.strip())))
            lines, name = [], line[1:].strip()
        elif not line.startswith("'"):
            lines.append(line.rstrip())
    return levels
