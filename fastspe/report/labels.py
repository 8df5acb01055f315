"""Display labels for conditions (``report --labels FILE``): condition key -> label, and an order.

A labels file is CSV with a header ``condition,label`` or JSON: an object ``{"openai:gpt-4.1": "GPT-4.1",
...}`` or a list of ``{"condition": ..., "label": ...}``. Its row order is the display order of every
table and figure; conditions it does not name keep their key as label and follow, in ranking order.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..boundary.errors import InputError
from ..boundary.text_files import read_text

MAX_LABEL = 200


@dataclass(frozen=True)
class Labels:
    """``mapping`` condition -> label; ``order`` the conditions in the file's order."""

    mapping: dict
    order: tuple

    def get(self, condition: str, default=None):
        return self.mapping.get(condition, condition if default is None else default)

    def ordered(self, ranking: Sequence[str]) -> list[str]:
        """The file's conditions that occur in ``ranking`` first, in file order, then the rest of ``ranking``."""
        present = set(ranking)
        first = [c for c in self.order if c in present]
        return first + [c for c in ranking if c not in self.mapping]

    def unknown(self, conditions: Sequence[str]) -> list[str]:
        """Conditions the file names that are not among ``conditions`` (a typo, or another run's)."""
        have = set(conditions)
        return [c for c in self.order if c not in have]


def _pairs_from_json(path: Path, data) -> list[tuple[int, object, object]]:
    if isinstance(data, dict):
        return [(i + 1, k, v) for i, (k, v) in enumerate(data.items())]
    if isinstance(data, list):
        pairs = []
        for i, item in enumerate(data, start=1):
            if not isinstance(item, dict) or set(item) != {"condition", "label"}:
                raise InputError(f'{path}: item {i}: expected {{"condition": ..., "label": ...}}')
            pairs.append((i, item["condition"], item["label"]))
        return pairs
    raise InputError(
        f'{path}: a labels file holds an object (condition -> label) or a list of {{"condition", "label"}} objects'
    )


def _pairs_from_csv(path: Path, text: str) -> list[tuple[int, object, object]]:
    rows = csv.reader(text.splitlines())
    header = next(rows, None)
    if header is None or [h.strip() for h in header] != ["condition", "label"]:
        raise InputError(f"{path}: line 1: the header must be condition,label")
    pairs = []
    for line, row in enumerate(rows, start=2):
        if not row:
            continue
        if len(row) != 2:
            raise InputError(f"{path}: line {line}: expected 2 fields (condition,label), got {len(row)}")
        pairs.append((line, row[0], row[1]))
    return pairs


def read_labels(path) -> Labels:
    """Read and check a labels file; an ``InputError`` names the line or item at fault."""
    path = Path(path)
    text = read_text(path, InputError)
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}: line {exc.lineno}: not JSON ({exc.msg})") from None
        pairs, where = _pairs_from_json(path, data), "item"
    elif path.suffix.lower() == ".csv":
        pairs, where = _pairs_from_csv(path, text), "line"
    else:
        raise InputError(f"{path}: a labels file is .csv (condition,label) or .json")
    mapping: dict = {}
    seen_labels: dict = {}
    for n, cond, label in pairs:
        for what, value in (("condition", cond), ("label", label)):
            if (
                not isinstance(value, str)
                or not value.strip()
                or len(value) > MAX_LABEL
                or any(ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F for ch in value)
            ):
                raise InputError(
                    f"{path}: {where} {n}: {what} {value!r} must be non-empty text of at most "
                    f"{MAX_LABEL} characters without control characters"
                )
        if cond in mapping:
            raise InputError(f"{path}: {where} {n}: condition {cond!r} is labelled twice")
        if label in seen_labels:
            raise InputError(
                f"{path}: {where} {n}: label {label!r} is also the label of {seen_labels[label]!r}; "
                "two conditions would look the same"
            )
        mapping[cond] = label
        seen_labels[label] = cond
    if not mapping:
        raise InputError(f"{path}: no labels")
    return Labels(mapping, tuple(mapping))
