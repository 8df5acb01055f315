"""Shared pieces of the boundary tests: a tiny certified bank, in-process CLI runs and the refusal check."""

from __future__ import annotations

import functools
import json
import re
import warnings
from pathlib import Path

import pandas as pd

from fastspe.domains.sliding.bank.build import build_bank
from fastspe.cli import main
from fastspe.domains.sliding.bank.design import design_from_dict

# 3x3 boards with and without a block, and a 2x3 cell: several layouts and sizes in a handful of boards
TINY_DESIGN = {
    "seed": 3,
    "rows": 3,
    "cols": 3,
    "cells": [
        {"cohort": "p", "blocks": [], "depth": 4, "count": 3},
        {"cohort": "p", "blocks": [4], "depth": 3, "count": 2},
    ],
}


@functools.lru_cache(maxsize=1)
def _tiny_bank() -> pd.DataFrame:
    return build_bank(design_from_dict(TINY_DESIGN))


def tiny_bank() -> pd.DataFrame:
    """Five certified boards (a fresh copy: callers may edit it)."""
    return _tiny_bank().copy()


def bank_records(bank: pd.DataFrame) -> list[dict]:
    """Bank rows as JSON-ready dicts (boards as plain lists)."""
    return [json.loads(line) for line in bank.to_json(orient="records", lines=True).splitlines()]


def write_jsonl(path: Path, records) -> Path:
    """``records`` as JSONL: dicts are dumped, bytes are written as they are (raw or damaged lines)."""
    path.write_bytes(b"".join(r if isinstance(r, bytes) else (json.dumps(r) + "\n").encode() for r in records))
    return path


def oracle_records(bank: pd.DataFrame, condition: str = "oracle", trials: int = 1) -> list[dict]:
    """One complete, optimal answer per board and trial (the certificate)."""
    return [
        {"board_id": b, "condition": condition, "trial": t, "response": "MOVES: " + ", ".join(c)}
        for t in range(trials)
        for b, c in zip(bank["board_id"], bank["certificate"])
    ]


def run_cli(capsys, args) -> tuple[int, str, str]:
    """``fastspe ARGS`` in-process: (exit code, stdout, stderr); Python warnings are not on stderr."""
    capsys.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def assert_refused(code: int, err: str, *, names=(), absent=()) -> str:
    """Exit 2, one ``error:`` line on stderr, no traceback; the line holds each of ``names``; no file in
    ``absent`` exists. Returns the error line."""
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert code == 2, (code, err)
    assert len(errors) == 1, err
    for name in names:
        assert str(name) in errors[0], (name, errors[0])
    for path in absent:
        assert not Path(path).exists(), f"{path} left behind"
        leftovers = [p.name for p in Path(path).parent.glob(f".{Path(path).name}.*")]
        assert not leftovers, leftovers
    return errors[0]


def error_position(line: str) -> str | None:
    """``line N`` or ``row N`` from an error line."""
    m = re.search(r"\b(line|row) \d+", line)
    return m.group(0) if m else None
