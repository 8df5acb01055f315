"""Small text files that people write by hand: a bank design (JSON), a labels file (CSV or JSON).

Only the reading is here; what the text must say is checked by the module that knows its meaning
(``fastspe.domains.sliding.bank.design``, ``fastspe.report.labels``).
"""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import UserError


def read_text(path, error: type[UserError] = UserError) -> str:
    """The UTF-8 text of ``path`` without a byte-order mark (editors on Windows write one, and it is no part of
    the text); ``error`` (a ``UserError`` class) ``"PATH: not UTF-8 text"`` otherwise."""
    try:
        return Path(path).read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise error(f"{path}: not UTF-8 text") from None


def read_design_json(path) -> object:
    """The JSON value of a design file; a ``UserError`` names the line and column that is not JSON."""
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
