"""Published Sokoban levels kept in tests/data/sokoban/ (see its README for their source and credit)."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).parent / "data" / "sokoban"


def microban(file: str = "microban.txt") -> list[tuple[str, str]]:
    """Microban's 155 levels as (number, XSB text), in order (``file``: another collection kept the same way)."""
    levels, lines, name = [], [], "1"
    for line in (DATA / file).read_text().split("\n") + [";"]:
        if line.startswith(";"):
            if any(x.strip() for x in lines):
                levels.append((name, "\n".join(x for x in lines if x.strip())))
            lines, name = [], line[1:].strip()
        elif not line.startswith("'"):
            lines.append(line.rstrip())
    return levels


def microban2() -> list[tuple[str, str]]:
    """Microban II's 135 levels as (number, XSB text), in order."""
    return microban("microban2.txt")
