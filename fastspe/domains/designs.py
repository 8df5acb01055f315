"""What every domain's bank designs share: a design named or read from a JSON file, the checks of its seed, cells and
cohort names, and the error a cell whose quota cannot be met raises. A domain's ``load_design`` reads its own cells
with these."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable, Mapping

from ..boundary.text_files import read_design_json
from ..errors import UserError
from ..kernels import MAX_SEED

__all__ = ["QuotaError", "load_design_file", "check_seed", "check_cohort", "design_seed", "design_cells", "is_json_int"]

_COHORT = re.compile(r"^[A-Za-z0-9_.]+$")


class QuotaError(UserError):
    """A design cell has fewer distinct certified rows within its proposal cap than it asks for."""


def load_design_file(spec: str, named: Mapping[str, Callable], from_dict: Callable, seed: int | None = None):
    """The design ``spec`` names: one of ``named`` (name -> ``design(seed)``, the design's own seed when ``seed`` is
    None) or a JSON file read by ``from_dict(spec, source=path, seed=seed)``."""
    if spec in named:
        return named[spec](seed)
    path = Path(spec)
    if not path.is_file():
        names = " nor ".join(repr(n) for n in named)
        raise UserError(f"design {spec!r} is neither {names} nor an existing JSON file")
    return from_dict(read_design_json(path), source=str(path), seed=seed)


def check_seed(seed, where: str) -> int:
    """A design's seed: an integer in 0..MAX_SEED (not a bool)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise UserError(f"{where}: the seed must be an integer in 0..2**63-1, got {seed!r}")
    return seed


def check_cohort(cohort) -> bool:
    """A cohort name: letters, digits, ``_`` and ``.`` (it becomes part of board ids and file names)."""
    return isinstance(cohort, str) and bool(_COHORT.match(cohort))


def design_seed(spec, source: str, seed: int | None, keys: tuple[str, ...], what: str) -> int:
    """What every design file is checked for first: a JSON object (``what`` names it) with no keys but ``keys``,
    and a seed (``seed`` when given, else the file's)."""
    if not isinstance(spec, dict):
        raise UserError(f"{source}: {what} is a JSON object with {', '.join(keys[:-1])} and {keys[-1]}")
    unknown = set(spec) - set(keys)
    if unknown:
        raise UserError(f"{source}: unknown keys {sorted(unknown)} (allowed: {', '.join(keys)})")
    if seed is None:
        if "seed" not in spec:
            raise UserError(f'{source}: no seed (give "seed" in the file or --seed)')
        seed = spec["seed"]
    return check_seed(seed, f"{source}: seed")


def design_cells(spec, source: str) -> list:
    """A design file's ``cells``: a non-empty list (each cell is the caller's to check)."""
    cells_spec = spec.get("cells")
    if not isinstance(cells_spec, list) or not cells_spec:
        raise UserError(f"{source}: cells must be a non-empty list")
    return cells_spec


def is_json_int(value) -> bool:
    """A JSON integer: not a bool (JSON true/false), float (2.5 or 1e12), string or null."""
    return isinstance(value, int) and not isinstance(value, bool)
